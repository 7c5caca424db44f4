"""Issue 36, class 7: the rendered METHOD.md shows freezer's §Delta as visible text, once, and
nothing else claims to be it.

A template that places ``{{ delta_block }}`` once (tests/test_delta_block.py) can still hide it in
Markdown: inside an HTML comment, a ``<details>``, a code block, or joined to the template's next
line; or forge it with a heading of its own that says Delta. freezer reads the rendered text as
CommonMark with GitHub's tables (markdown-it-py); these tests hold that reading against cmark-gfm,
GitHub's own engine, and run validate, cut, audit and check on such templates.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from typing import ClassVar

import cmarkgfm  # type: ignore[import-untyped]
import pytest
from test_delta_block import SHIPPED, _resum, _use_template, _writable

from freezer.domain.canonical import frozen_file
from freezer.render.attest import statement_bytes
from freezer.render.method import method_from_files
from freezer.render.shown import delta_unshown, says_delta

from conftest import run_inprocess
from registry_helpers import commit_all, set_drafts

BLOCK = (
    "## Delta vs v1\n\nCompared with `v1`, these dimensions moved: **surface, binary**.\n\n"
    "- `a.yaml`: difficulty 2 → 3\n- `b.yaml`: added\n\nThe METHOD.md template and the dimensions did not change.\n"
)
HEAD = "# graph_v2 — METHOD\n\n| | |\n|---|---|\n| Suite | graph |\n\n## Fixtures\n\nSome words.\n\n"
TAIL = "\n## Known caveats\n\nNone recorded.\n"


# --- the reading, held against GitHub's engine -----------------------------------------------------


def _github(markdown: str) -> str:
    # GitHub renders raw HTML (then sanitizes it): unsafe keeps it, as GitHub's viewer does.
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=cmarkgfm.Options.CMARK_OPT_UNSAFE)
    return html


class _Headings(HTMLParser):
    """The elements still open at the end, and the text of every heading, from HTML."""

    VOID: ClassVar = {
        *("br", "hr", "img", "input", "meta", "link", "wbr"),
        *("area", "base", "col", "embed", "source", "track"),
    }

    def __init__(self) -> None:
        super().__init__()
        self.open: list[str] = []
        self.headings: list[str] = []
        self._in_heading = False

    def handle_starttag(self, tag: str, attrs: object) -> None:
        if tag not in self.VOID:
            self.open.append(tag)
        if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            self.headings.append("")
            self._in_heading = True

    def handle_endtag(self, tag: str) -> None:
        if tag in self.open:
            while self.open.pop() != tag:
                pass
        if tag.startswith("h") and tag[1:].isdigit():
            self._in_heading = False

    def handle_data(self, data: str) -> None:
        if self._in_heading:
            self.headings[-1] += data


def _github_shows(document: str, block: str) -> bool:
    """Whether GitHub's engine shows ``block`` in ``document`` as it shows it alone, inside no HTML
    element, with no other heading saying Delta."""
    whole, alone = _github(document), _github(block)
    at = whole.find(alone)
    if at < 0 or whole.count(alone) != 1:
        return False
    before = _Headings()
    before.feed(whole[:at])
    rest = _Headings()
    rest.feed(whole[:at] + whole[at + len(alone) :])
    return not before.open and not any("delta" in h.casefold() for h in rest.headings)


STRUCTURAL = {
    # visible
    "plain": (HEAD + BLOCK + TAIL, True),
    "after-a-paragraph-line": ("# x\n\nSome words.\n" + BLOCK + TAIL, True),
    "after-a-table": ("# x\n\n| a |\n|---|\n| b |\n" + BLOCK + TAIL, True),
    "after-a-list": ("# x\n\n- one\n- two\n" + BLOCK + TAIL, True),
    "after-a-quote": ("# x\n\n> quoted\n" + BLOCK + TAIL, True),
    "after-a-reference-definition": ("# x\n\n[ref]: https://example.com\n" + BLOCK + TAIL, True),
    "after-an-open-reference-title": ('# x\n\n[ref]: https://example.com "a title\n' + BLOCK + TAIL, True),
    "after-closed-details": ("# x\n\n<details><summary>more</summary>\n\nhidden words\n\n</details>\n\n" + BLOCK, True),
    "after-a-closed-comment": ("# x\n\n<!-- a note -->\n\n" + BLOCK + TAIL, True),
    # hidden or altered
    "in-a-comment": ("# x\n\n<!--\n" + BLOCK + "-->\n" + TAIL, False),
    "comment-opened-before-closed-later": ("# x\n\n<!-- notes\n\n" + BLOCK + TAIL + "\nend -->\n", False),
    "in-details": ("# x\n\n<details>\n\n" + BLOCK + "\n</details>\n" + TAIL, False),
    "in-a-hidden-div": ("# x\n\n<div hidden>\n\n" + BLOCK + "\n</div>\n" + TAIL, False),
    "in-an-unclosed-div": ("# x\n\n<div>\n\n" + BLOCK + TAIL, False),
    "in-a-fence": ("# x\n\n```\n" + BLOCK + "```\n" + TAIL, False),
    "in-a-tilde-fence": ("# x\n\n~~~~\n" + BLOCK + "~~~~\n" + TAIL, False),
    "in-a-fence-never-closed": ("# x\n\n```text\n" + BLOCK + TAIL, False),
    "indented-as-code": ("# x\n\n    " + BLOCK + TAIL, False),
    "text-before-on-its-line": ("# x\n\nSee: " + BLOCK + TAIL, False),
    "text-joined-after": ("# x\n\n" + BLOCK + "But nothing that matters moved.\n" + TAIL, False),
    "underlined-after": ("# x\n\n" + BLOCK + "===\n" + TAIL, False),
    "forged-before": ("# x\n\n## Delta vs v1\n\nNo dimension moved.\n\n" + BLOCK + TAIL, False),
    "forged-after": ("# x\n\n" + BLOCK + "\n## Delta vs v1 (corrected)\n\nNothing moved.\n", False),
    "forged-at-another-level": ("# x\n\n#### Delta vs v1\n\n" + BLOCK + TAIL, False),
    "forged-setext": ("# x\n\nDelta vs v1\n-----------\n\n" + BLOCK + TAIL, False),
    "forged-in-a-quote": ("# x\n\n> ## Delta vs v1\n\n" + BLOCK + TAIL, False),
    "forged-in-html": ("# x\n\n<h2>Delta vs v1</h2>\n\n" + BLOCK + TAIL, False),
}


@pytest.mark.parametrize(("document", "shown"), STRUCTURAL.values(), ids=STRUCTURAL.keys())
def test_freezer_reads_delta_as_shown_exactly_when_github_shows_it(document: str, shown: bool) -> None:
    assert _github_shows(document, BLOCK) is shown  # the case is what it says, on GitHub
    found = delta_unshown(document, BLOCK)
    assert (not found) is shown, found
    lines = document.split("\n")
    for one in found:
        assert 1 <= one.line <= len(lines) and "delta" in one.message.casefold()


def test_an_element_opened_in_a_paragraph_still_hides_delta() -> None:
    # HTML closes the paragraph before <details> and leaves <details> open: the heading falls inside.
    found = delta_unshown("# x\n\nsee <details>\n\n" + BLOCK, BLOCK)
    assert [(u.line, "<details> opened at line 3" in u.message) for u in found] == [(3, True)]


LOOKALIKES = {
    "zero-width-space": "## Del\u200bta vs v1",
    "soft-hyphen": "## Del\u00adta vs v1",
    "cyrillic-e": "## D\u0435lta vs v1",
    "capital-i-for-l": "## DeIta vs v1",
    "fullwidth": "## \uff24elta vs v1",
    "greek-capital-delta": "## \u0394 vs v1",
    "entity": "## D&#101;lta vs v1",
    "emphasis-inside": "## **Del**ta vs v1",
    "lower-case": "### delta",
    "combining-mark": "## De\u0301lta vs v1",
}


@pytest.mark.parametrize("heading", LOOKALIKES.values(), ids=LOOKALIKES.keys())
def test_a_heading_that_only_looks_like_delta_is_a_forgery(heading: str) -> None:
    document = f"# x\n\n{heading}\n\nNo dimension moved.\n\n{BLOCK}"
    assert "<h" in _github(heading)  # GitHub shows it as a heading
    found = delta_unshown(document, BLOCK)
    assert [u.line for u in found] == [3], found
    assert "claims to be §Delta" in found[0].message


@pytest.mark.parametrize("heading", ["Deltas", "3. delta\\_encoding", "Model talk", "De\\lta", "Changes"])
def test_a_heading_that_does_not_say_delta_is_not_one(heading: str) -> None:
    assert not says_delta(heading)


# --- validate and cut ------------------------------------------------------------------------------

# template, its line validate names, and what the message says
HIDING = {
    "in-a-comment": ("# {{ name }}\n\n<!--\n{{ delta_block }}\n-->\n", 4, "inside an HTML comment"),
    "comment-around-it": (
        "# {{ name }}\n\n<!-- our notes\n\n{{ delta_block }}\n\nend of our notes -->\n",
        5,
        "inside an HTML comment",
    ),
    "in-details": ("# {{ name }}\n\n<details>\n\n{{ delta_block }}\n\n</details>\n", 5, "<details> opened"),
    "in-a-hidden-div": ("# {{ name }}\n\n<div hidden>\n\n{{ delta_block }}\n\n</div>\n", 5, "<div> opened"),
    "in-a-fence": ("# {{ name }}\n\n```\n{{ delta_block }}\n```\n", 4, "inside a code block"),
    "indented": ("# {{ name }}\n\nWords.\n\n    {{ delta_block }}\n", 5, "before {{ delta_block }} on its line"),
    "forged-heading": (
        "# {{ name }}\n\n## Delta vs v0\n\nNo dimension moved.\n\n{{ delta_block }}\n",
        3,
        "claims to be §Delta",
    ),
    "forged-other-level": ("# {{ name }}\n\n### Delta\n\n{{ delta_block }}\n", 3, "claims to be §Delta"),
    "forged-setext": ("# {{ name }}\n\nDelta vs v0\n===\n\n{{ delta_block }}\n", 3, "claims to be §Delta"),
    "forged-lookalike": ("# {{ name }}\n\n## D\u0435lta vs v0\n\n{{ delta_block }}\n", 3, "claims to be §Delta"),
    "forged-zero-width": ("# {{ name }}\n\n## De\u200blta\n\n{{ delta_block }}\n", 3, "claims to be §Delta"),
    "forged-in-html": ("# {{ name }}\n\n<h2>Delta vs v0</h2>\n\n{{ delta_block }}\n", 3, "claims to be §Delta"),
}


@pytest.mark.parametrize(("template", "line", "said"), HIDING.values(), ids=HIDING.keys())
def test_validate_and_cut_refuse_a_template_that_hides_or_forges_delta(
    reg: Path, template: str, line: int, said: str
) -> None:
    _use_template(reg, template)
    checked = run_inprocess("validate", cwd=reg)
    assert checked.code == 1, checked.text
    assert f"method.j2:{line}:" in checked.text and said in checked.text, checked.text
    assert "rendered with the drafts, METHOD.md line" in checked.text
    cut = run_inprocess("cut", "v1", cwd=reg)
    assert cut.code == 1, cut.text
    assert "METHOD.md:" in cut.text and "(rendered from method.j2)" in cut.text and said in cut.text, cut.text
    for result in (checked, cut):
        assert "Traceback" not in result.text
    assert not (reg / "versions/graph_v1").exists()


def test_text_joined_to_the_last_line_of_delta_is_refused(reg: Path) -> None:
    _use_template(reg, "# {{ name }}\n\n{{ delta_block }}\nBut nothing that matters moved.\n")
    checked = run_inprocess("validate", cwd=reg)
    assert checked.code == 1 and "method.j2:3:" in checked.text and "joins its last lines" in checked.text
    # A first version's §Delta ends with a blank line, so nothing joins it there; graph_v2's ends
    # with a sentence, which the template's next line would continue.
    _cut_v1(reg)
    set_drafts(reg, "v2")
    cut = run_inprocess("cut", "v2", cwd=reg)
    assert cut.code == 1 and "joins its last lines" in cut.text and "(rendered from method.j2)" in cut.text, cut.text
    assert not (reg / "versions/graph_v2").exists()


@pytest.mark.parametrize(
    "template",
    [
        "# {{ name }}\n\n{# {{ delta_block }} #}\n",
        "# {{ name }}\n\n{% raw %}{{ delta_block }}{% endraw %}\n",
        "# {{ name }}\n\n{% if false %}{{ delta_block }}{% endif %}\n",
    ],
    ids=["jinja-comment", "raw", "if-false"],
)
def test_a_template_that_hides_delta_from_jinja_is_refused_where_it_does(reg: Path, template: str) -> None:
    # Held before issue 36 too (the template's syntax tree); kept here beside the Markdown cases.
    _use_template(reg, template)
    for command in (("validate",), ("cut", "v1")):
        result = run_inprocess(*command, cwd=reg)
        assert result.code == 1 and "method.j2:" in result.text and "§Delta" in result.text, result.text
    assert not (reg / "versions/graph_v1").exists()


FRAMING = (
    "# {{ name }}, as we frame it\n\n<details><summary>How we work</summary>\n\nOur process.\n\n</details>\n\n"
    "| Our | table |\n|---|---|\n| a | b |\n\n<!-- a note to ourselves -->\n\n{{ delta_block }}\n\nOur words after.\n"
)


def test_a_template_that_frames_delta_visibly_cuts_validates_and_audits(reg: Path) -> None:
    _use_template(reg, FRAMING)
    assert run_inprocess("validate", cwd=reg).code == 0
    for label in ("v1", "v2"):
        set_drafts(reg, label)
        result = run_inprocess("cut", label, cwd=reg)
        assert result.code == 0, result.text
    v2 = reg / "versions/graph_v2"
    method = (v2 / "METHOD.md").read_text()
    assert method.count("## Delta vs v1\n") == 1 and method.endswith("\n\nOur words after.\n")
    assert json.loads((v2 / "manifest.json").read_text())["checks"]["delta_block"] == 2
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 0, result.text
    assert "does not show §Delta" not in result.text


def test_the_shipped_template_shows_the_block_it_is_not_read_for(reg: Path) -> None:
    # A cut does not read METHOD.md rendered from freezer's own template (the cost is for a suite's
    # own); this holds that it needs no reading, on a real cut of both versions.
    for label in ("v1", "v2"):
        set_drafts(reg, label)
        _cut(reg, label)
        method = (reg / f"versions/graph_{label}/METHOD.md").read_text()
        start = method.index("## Delta vs ")
        # The block ends where the template's next section starts.
        ends = [at for at in (method.find(f"\n\n## {s}", start) for s in ("Comparability", "Known caveats")) if at > 0]
        block = method[start : min(ends)]
        assert method.count(block) == 1 and block.count("## Delta vs ") == 1
        assert delta_unshown(method, block) == []
        assert _github_shows(method, block)


# --- audit and check of frozen versions ----------------------------------------------------------

HIDDEN = SHIPPED.replace("{{ delta_block }}", "<!--\n{{ delta_block }}\n-->\n")


def _refreeze_hiding(version: Path, recorded: int) -> None:
    """``version`` as a freezer before this rule cut it with a template hiding §Delta in a comment
    (checks.delta_block 1), every hash and METHOD.md made to agree; ``recorded`` 2 then claims
    it was cut under the rule."""
    _writable(version)
    (version / "METHOD.md.j2").write_text(HIDDEN)
    manifest = json.loads((version / "manifest.json").read_bytes())
    manifest["files"]["METHOD.md.j2"] = manifest["checks"]["template_sha256"] = hashlib.sha256(
        HIDDEN.encode()
    ).hexdigest()
    manifest["checks"]["delta_block"] = 1
    manifest_bytes = frozen_file(manifest)
    data = {rel: (version / rel).read_bytes() for rel in manifest["files"]}
    method = method_from_files(data, manifest_bytes, unshown=[]).encode()
    assert b"<!--\n## Delta vs" in method
    if recorded != 1:
        manifest["checks"]["delta_block"] = recorded
        manifest_bytes = frozen_file(manifest)
    (version / "manifest.json").write_bytes(manifest_bytes)
    (version / "METHOD.md").write_bytes(method)
    if (version / "provenance.json").exists():
        (version / "provenance.json").write_bytes(statement_bytes(manifest_bytes, method))
    _resum(version)


def _cut(reg: Path, label: str) -> None:
    result = run_inprocess("cut", label, cwd=reg)
    assert result.code == 0, result.text


# A suite's first version has no previous one: its heading says so (it once said "Delta vs v0").
FIRST_DELTA_HEADING = "## Delta vs the previous version: none, this is the first"


def _cut_v1(reg: Path) -> None:
    _cut(reg, "v1")


def test_audit_says_once_that_a_version_cut_before_the_rule_hides_delta(reg: Path) -> None:
    _cut_v1(reg)
    version = reg / "versions/graph_v1"
    _refreeze_hiding(version, recorded=1)
    before = {p: p.read_bytes() for p in version.rglob("*") if p.is_file()}
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 0, result.text  # sacred: it stands as frozen
    assert "METHOD.md reproduced" in result.out
    lines = [x for x in result.text.splitlines() if "does not show §Delta" in x]
    assert len(lines) == 1, result.text
    line = (version / "METHOD.md").read_text().split("\n").index(FIRST_DELTA_HEADING) + 1
    assert f"graph_v1/METHOD.md:{line}" in lines[0] and "inside an HTML comment" in lines[0], lines[0]
    assert "stays as frozen" in lines[0]
    assert {p: p.read_bytes() for p in version.rglob("*") if p.is_file()} == before
    as_json = json.loads(run_inprocess("audit", "--no-code", "--format", "json", cwd=reg).out)
    warnings = [w for v in as_json["result"]["versions"] for w in v["warnings"] if "§Delta" in w["message"]]
    assert len(warnings) == 1


def test_audit_fails_a_version_recorded_as_cut_under_the_rule_that_hides_delta(reg: Path) -> None:
    _cut_v1(reg)
    _refreeze_hiding(reg / "versions/graph_v1", recorded=2)
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 1, result.text
    assert "graph_v1/METHOD.md: cannot be re-rendered: METHOD.md:" in result.out
    assert "inside an HTML comment" in result.out


def test_audit_fails_a_method_hand_edited_to_hide_delta(reg: Path) -> None:
    _cut_v1(reg)
    version = reg / "versions/graph_v1"
    _writable(version)
    method = (version / "METHOD.md").read_text()
    (version / "METHOD.md").write_text(method.replace(FIRST_DELTA_HEADING, "<!--\n" + FIRST_DELTA_HEADING, 1) + "-->\n")
    _resum(version)
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 1, result.text
    assert "graph_v1/METHOD.md: differs from what the frozen data renders to" in result.out


def test_check_refuses_a_new_version_recorded_under_the_rule_that_hides_delta(reg: Path) -> None:
    _cut_v1(reg)
    commit_all(reg, "graph_v1")
    set_drafts(reg, "v2")
    result = run_inprocess("cut", "v2", cwd=reg)
    assert result.code == 0, result.text
    _refreeze_hiding(reg / "versions/graph_v2", recorded=2)
    subprocess.run(["git", "add", "-A"], cwd=reg, check=True)
    result = run_inprocess("check", "--base", "HEAD", "--no-code", cwd=reg)
    assert result.code == 1, result.text
    assert "new version graph_v2: cannot be re-rendered: METHOD.md:" in result.text
