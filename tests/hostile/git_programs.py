"""What makes git run a program, or change bytes, on freezer's behalf (issue 23, classes 3 and 11).

Data only; ``tests/test_git_attributes.py``, ``tests/test_git_on_path.py`` and
``tests/test_git_calls_read_only.py`` materialise each case in a real repository, show
it live under plain git, then run freezer over it.
"""

from __future__ import annotations

FROZEN = "versions/graph_v1"
# A frozen file that holds "$Id$", for the ident vector.
ID_FILE = f"{FROZEN}/fixtures/locate-register-tools.yaml"


# (id, config keys set in the registry, committed .gitattributes line or "" for none, a plain git
# command that runs the program). "{script}" is the marker program, "{attributes}" an attributes
# file outside the registry that says "* filter=x diff=x".
DRIVERS: list[tuple[str, dict[str, str], str, tuple[str, ...]]] = [
    ("filter-clean", {"filter.x.clean": "{script}"}, "* filter=x", ("diff", "--name-status", "HEAD")),
    ("filter-process", {"filter.x.process": "{script}"}, "* filter=x", ("diff", "--name-status", "HEAD")),
    (
        "filter-required",
        {"filter.x.clean": "{script}", "filter.x.required": "true"},
        "* filter=x",
        ("diff", "--name-status", "HEAD"),
    ),
    ("filter-smudge", {"filter.x.smudge": "{script}"}, "* filter=x", ("checkout", "--", FROZEN)),
    (
        "attributes-file",
        {"core.attributesFile": "{attributes}", "filter.x.clean": "{script}"},
        "",
        ("diff", "--name-status", "HEAD"),
    ),
    ("diff-textconv", {"diff.x.textconv": "{script}"}, "* diff=x", ("diff", "HEAD~1", "HEAD")),
    ("diff-command", {"diff.x.command": "{script}"}, "* diff=x", ("diff", "HEAD~1", "HEAD")),
    ("diff-external", {"diff.external": "{script}"}, "* text", ("diff", "HEAD~1", "HEAD")),
    ("log-patch-textconv", {"diff.x.textconv": "{script}"}, "* diff=x", ("log", "-p", "-1")),
]

# (id, committed .gitattributes line, the frozen file a checkout converts, bytes the converted file holds)
CONVERSIONS: list[tuple[str, str, str, bytes]] = [
    ("ident", f"{FROZEN}/** ident\n", ID_FILE, b"$Id: "),
    ("working-tree-encoding", f"{FROZEN}/*.md working-tree-encoding=UTF-16\n", f"{FROZEN}/METHOD.md", b"\xff\xfe"),
    (
        "working-tree-encoding-yaml",
        f"{FROZEN}/fixtures/*.yaml working-tree-encoding=UTF-16LE-BOM\n",
        ID_FILE,
        b"\xff\xfe",
    ),
]

# PATH values whose empty or relative entry comes before the folder of the real git ("{git}").
SEARCHES: list[tuple[str, str]] = [
    ("leading-empty", ":{git}"),
    ("middle-empty", "/nonexistent::{git}"),
    ("dot", ".:{git}"),
    ("relative", "bin:{git}"),
]
# PATH values with no real git at all, only the planted one.
NO_GIT: list[tuple[str, str]] = [("trailing-empty", "/nonexistent:"), ("empty", ""), ("dot-only", ".")]

# The git subcommands freezer may run: reading stored objects; writing only in demo and init.
READING = frozenset(
    {"rev-parse", "rev-list", "ls-tree", "ls-files", "cat-file", "merge-base", "branch", "config", "remote", "log"}
)
WRITING = frozenset({"init", "add", "commit"})
# Options that would show content (so run textconv or a diff driver), follow renames, or check signatures.
CONTENT_OPTIONS = (
    "-p",
    "-u",
    "--patch",
    "--stat",
    "--numstat",
    "--textconv",
    "--ext-diff",
    "--follow",
    "--show-signature",
)
