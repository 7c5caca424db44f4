"""Hostile input for the site and METHOD.md (issue 23, classes 2, 10 and 12), as data.

``TASK_IDS``: task ids that try to choose where the site writes, or to collide once mapped to
file names. Each passes validation (freezer refuses only control characters in data), so each
reaches a frozen version and the site. ``UNSAFE_PAGE_PATHS``: paths the site writer must refuse
whatever built them. ``MARKDOWN``: fixture text that would become a link, an image or other
inline markup in a Markdown viewer if the filters let it through; ``PROSE_FIELDS`` and
``CELL_FIELDS`` name where a draft carries such text.
"""

from __future__ import annotations

TASK_IDS = [
    "../../../../outside/pwned",  # climbs out of the site's folder
    "../../index",  # would replace another suite's page
    "../index",  # would replace this suite's page
    "/etc/passwd",  # absolute
    "a/b/c",  # nests folders
    "a\\b",  # a separator on Windows
    "..",
    ".",
    ".hidden",  # a dot file
    "fixtures",
    "index",  # plain, but named like the index pages
    "Plain-Task",  # case variants of one another and of a plain id
    "plain-task",
    "PLAIN-TASK",
    "con",  # Windows device names
    "NUL.txt",
    "lpt1",
    "trailing.",  # Windows drops a trailing dot
    "space at end ",
    "x" * 120,  # longer than a plain file name (100), as long as freezer lets a task id be
    "x" * 119 + "y",  # differs from the last only past any slug
    "ünïcødé",
    "Ünïcødé",
    "a%2e%2e%2fb",  # URL-escaped traversal
    "a?b#c",  # URL query and fragment
    'a"b<c>d',  # markup in an attribute
    "javascript:alert(1)",
    "x~0123456789abcdef",  # shaped like a mapped name
]

# Names that are distinct but equal once case is ignored: the writer's last wall.
CASE_COLLIDING_PATHS = ["suite/fixtures/task.html", "suite/fixtures/TASK.html"]
# Distinct strings that name one file on APFS: é composed, and e + combining acute.
NORMALISATION_COLLIDING_PATHS = ["suite/fixtures/\u00e9.html", "suite/fixtures/e\u0301.html"]

UNSAFE_PAGE_PATHS = [
    "../escape.html",
    "a/../../escape.html",
    "/tmp/escape.html",
    "a//b.html",
    "./a.html",
    "a/./b.html",
    "a/..",
    "",
    "a\\..\\b.html",
    "a\x00b.html",
    "a\nb.html",
    "a\x1b[31mb.html",
]

# Each payload would load, link or format something in CommonMark or GitHub's Markdown if it
# reached METHOD.md as typed.
MARKDOWN = [
    "![beacon](http://127.0.0.1:9/beacon.png)",
    "![beacon][ref]\n\n[ref]: http://127.0.0.1:9/ref.png",
    "[click](http://127.0.0.1:9/click)",
    "[click](<http://127.0.0.1:9/click>)",
    '[click](http://127.0.0.1:9/click "title")',
    "[click][ref]\n\n[ref]: http://127.0.0.1:9/ref",
    "[ref]: http://127.0.0.1:9/definition",
    "<http://127.0.0.1:9/autolink>",
    "<mailto:someone@example.invalid>",
    "http://127.0.0.1:9/bare-url",
    "https://127.0.0.1:9/bare-url",
    "www.example.invalid/bare",
    "ftp://127.0.0.1:9/bare",
    "&lt;img src=http://127.0.0.1:9/entity.png&gt;",
    "&#33;&#91;x&#93;&#40;http://127.0.0.1:9/entities.png&#41;",
    "\\![x](http://127.0.0.1:9/escaped-bang.png)",
    "!\\[x](http://127.0.0.1:9/escaped-bracket.png)",
    "<img src=http://127.0.0.1:9/raw.png>",
    "<script>window.__x = 1</script>",
    "[^note]\n\n[^note]: http://127.0.0.1:9/footnote",
    "- [ ] a task list item",
    "*emphasis* **strong** _under_ __dunder__ ~~struck~~ `code`",
    "$\\href{http://127.0.0.1:9/math}{x}$",
    "a | table | row",
    "1) an ordered list",
    "# a heading",
    "> a quote",
    "```\na fence\n```",
    "    indented code",
]

# Where a draft carries prose (the ``text`` filter) and table cells (the ``cell`` filter): paths in
# the graph example's version.yaml and fixture, as (document, key path).
PROSE_FIELDS = [
    ("version", ("purpose",)),
    ("version", ("rationale",)),
    ("version", ("known_caveats", 0)),
    ("version", ("sweep_notes", 0, "body")),
    ("fixture", ("question",)),
    ("fixture", ("why_grep_fails",)),
    ("fixture", ("graph_tool_path", "resolution")),
    ("fixture", ("notes",)),
]
CELL_FIELDS = [
    ("version", ("title",)),
    ("version", ("sweep_notes", 0, "title")),
    ("version", ("binary", "consumers", 0, "mechanism")),
    ("fixture", ("class",)),
    ("fixture", ("difficulty",)),
    ("fixture", ("ground_truth", 0, "note")),
    ("fixture", ("ground_truth", 0, "container")),
    ("fixture", ("oracle", "must_include", 0)),
    ("fixture", ("oracle", "must_not_include", 0)),
]
