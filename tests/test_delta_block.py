"""Issue 25, class 3: a suite template cannot hide §Delta.

freezer renders §Delta from its own template (frozen with the version as delta.md.j2) and a
suite's template: places it as ``{{ delta_block }}``, exactly once and verbatim. Audit checks, for
every version, old ones included, that METHOD.md's §Delta names every dimension delta.json
records as moved or unknown.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from freezer.domain.canonical import frozen_file
from freezer.render.attest import statement_bytes
from freezer.render.method import method_from_files
from freezer.render.named import unnamed_dimensions
from freezer.runtime import resources
from freezer.validate.template import placement

from conftest import run_inprocess
from registry_helpers import set_drafts

SHIPPED = resources.template_text("METHOD.md.j2")
DELTA = resources.template_text("delta.md.j2")
# The examples carry a run configuration (issue 25, class 2), so it moves between v1 and v2 too.
V2_MOVED = [
    "fixture set",
    "version record",
    "run configuration",
    "indexer",
    "descriptions",
    "surface",
    "binary",
    "code under test",
]


def _whole(section: str) -> str:
    """A METHOD.md template as every version before checks.delta_block carried it: one file that
    renders §Delta itself (``section``), with the macro §Delta uses at its top."""
    macro_end = DELTA.index("{%- endmacro -%}\n") + len("{%- endmacro -%}\n")
    macro = DELTA[DELTA.index("{%- macro change(c) -%}") : macro_end]
    return macro + SHIPPED.replace("{{ delta_block }}", section)


OLD_SHIPPED = _whole(DELTA[DELTA.index("{%- endmacro -%}\n") + len("{%- endmacro -%}\n") :])
OLD_HIDING = _whole("## Delta vs {{ delta_heading | cell }}\n\nNothing moved.\n\n")


def _use_template(reg: Path, text: str, name: str = "method.j2") -> Path:
    template = reg / name
    template.write_text(text, encoding="utf-8")
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("versions: versions", f"versions: versions\n    template: {name}"))
    return template


def _cut_both(reg: Path) -> None:
    first = run_inprocess("cut", "v1", cwd=reg)
    assert first.code == 0, first.text
    set_drafts(reg, "v2")
    second = run_inprocess("cut", "v2", cwd=reg)
    assert second.code == 0, second.text


def _writable(version: Path) -> None:
    for path in version.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)


def _reseal(version: Path, edits: dict[str, bytes | None], manifest_edit: Callable[[dict[str, Any]], None]) -> bytes:
    """Rewrite a frozen version as a cut would have written it with these files and this manifest
    (every hash, METHOD.md re-rendered, the statement, SHA256SUMS); the new manifest bytes."""
    _writable(version)
    for rel, data in edits.items():
        if data is None:
            (version / rel).unlink()
        else:
            (version / rel).write_bytes(data)
    manifest = json.loads((version / "manifest.json").read_bytes())
    manifest_edit(manifest)
    manifest["files"] = {
        rel: hashlib.sha256((version / rel).read_bytes()).hexdigest() for rel in manifest["files"] if rel not in edits
    } | {rel: hashlib.sha256(data).hexdigest() for rel, data in edits.items() if data is not None}
    manifest["checks"]["template_sha256"] = manifest["files"]["METHOD.md.j2"]
    manifest_bytes = frozen_file(manifest)
    (version / "manifest.json").write_bytes(manifest_bytes)
    data_files = {rel: (version / rel).read_bytes() for rel in manifest["files"]}
    method = method_from_files(data_files, manifest_bytes).encode("utf-8")
    (version / "METHOD.md").write_bytes(method)
    if (version / "provenance.json").exists():
        (version / "provenance.json").write_bytes(statement_bytes(manifest_bytes, method))
    _resum(version)
    return manifest_bytes


def _resum(version: Path) -> None:
    """SHA256SUMS made to agree with the files, as a careful forger would."""
    files = sorted(p.relative_to(version).as_posix() for p in version.rglob("*") if p.is_file())
    sums = "".join(
        f"{hashlib.sha256((version / rel).read_bytes()).hexdigest()}  {rel}\n" for rel in files if rel != "SHA256SUMS"
    )
    (version / "SHA256SUMS").write_text(sums)


def _method_without_hash(version: Path) -> str:
    """METHOD.md with its manifest's hash (which quotes the manifest's every byte) left out."""
    digest = hashlib.sha256((version / "manifest.json").read_bytes()).hexdigest()
    return (version / "METHOD.md").read_text().replace(digest, "<manifest sha256>")


def _as_cut_before_delta_block(reg: Path, template: str) -> None:
    """graph_v1 and graph_v2 rewritten as a freezer without checks.delta_block cut them, with
    ``template`` as their frozen whole METHOD.md template: no delta.md.j2, no delta_block."""

    def old(manifest: dict[str, Any]) -> None:
        del manifest["checks"]["delta_block"]
        del manifest["files"]["delta.md.j2"]

    edits: dict[str, bytes | None] = {"METHOD.md.j2": template.encode(), "delta.md.j2": None}
    v1 = _reseal(reg / "versions/graph_v1", edits, old)

    def old_chained(manifest: dict[str, Any]) -> None:
        old(manifest)
        manifest["previous"]["manifest_sha256"] = hashlib.sha256(v1).hexdigest()

    _reseal(reg / "versions/graph_v2", edits, old_chained)


# --- where a template places the block: read from its syntax tree -------------------------------


def test_the_shipped_template_places_the_block_once() -> None:
    assert placement(SHIPPED) == ()
    assert SHIPPED.count("{{ delta_block }}") == 1
    assert "## Delta vs" not in SHIPPED and "## Delta vs" in DELTA


@pytest.mark.parametrize(
    ("template", "line", "said"),
    [
        ("# {{ name }}\n\n## Purpose\n", 1, "does not place §Delta"),
        ("# {{ name }}\n\n## Delta vs {{ delta_heading }}\n\nNothing moved.\n", 3, "does not place §Delta"),
        ("# {{ name }}\n{# {{ delta_block }} #}\n", 1, "does not place §Delta"),
        ("# {{ name }}\n{% raw %}{{ delta_block }}{% endraw %}\n", 1, "does not place §Delta"),
        ("{{ delta_block }}\n\n## Again\n\n{{ delta_block }}\n", 5, "a second time (first at line 1)"),
        ("a\n{% for x in [1, 2] %}\n{{ delta_block }}\n{% endfor %}\n", 3, "inside an if, for"),
        ("{% if delta.moved %}\n{{ delta_block }}\n{% endif %}\n", 2, "inside an if, for"),
        ("{% filter upper %}{{ delta_block }}{% endfilter %}\n", 1, "inside an if, for"),
        ("{{ delta_block | replace('surface', '') }}\n", 1, "used in an expression"),
        ("{{ delta_block[:10] }}\n", 1, "used in an expression"),
        ("x\n{% set delta_block = 'Nothing moved' %}\n{{ delta_block }}\n", 2, "assigns delta_block"),
    ],
    ids=[
        "omitted",
        "own-heading",
        "in-a-comment",
        "raw",
        "twice",
        "in-a-loop",
        "conditional",
        "filter-block",
        "filtered",
        "sliced",
        "reassigned",
    ],
)
def test_a_template_that_misplaces_the_block_is_refused_at_its_line(template: str, line: int, said: str) -> None:
    found = placement(template)
    assert found, template
    assert found[0].line == line
    assert said in found[0].message
    assert "write {{ delta_block }} exactly once" in found[0].message


@pytest.mark.parametrize(
    "template",
    [
        "# {{ name }}\n\nOur framing.\n\n{{ delta_block }}\n\nMore of ours.\n",
        "{{- delta_block -}}\n",
        "## Delta\n\nNothing moved, we say.\n\n{{ delta_block }}\n",
    ],
    ids=["framed", "trimmed", "nothing-moved-beside"],
)
def test_a_template_that_places_it_once_is_accepted(template: str) -> None:
    assert placement(template) == ()


# --- validate and cut ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "where"),
    [
        ("# {{ name }} by our own template\n\n## Delta\n\nNothing moved.\n", "method.j2:3:"),
        ("# {{ name }}\n\n{{ delta_block }}\n\n{{ delta_block }}\n", "method.j2:5:"),
    ],
    ids=["omits", "twice"],
)
def test_validate_and_cut_refuse_a_template_that_misplaces_the_block(reg: Path, template: str, where: str) -> None:
    _use_template(reg, template)
    for command in (("validate",), ("cut", "v1")):
        result = run_inprocess(*command, cwd=reg)
        assert result.code == 1, result.text
        assert where in result.text and "write {{ delta_block }} exactly once" in result.text, result.text
        assert "Traceback" not in result.text
    assert not (reg / "versions/graph_v1").exists()


def test_a_template_that_frames_the_block_is_accepted_and_audits(reg: Path) -> None:
    # A blank line after the block: without it, our words would join §Delta's last sentence (issue 36).
    _use_template(reg, "# {{ name }}, as we frame it\n\nOur words before.\n\n{{ delta_block }}\n\nOur words after.\n")
    _cut_both(reg)
    v2 = reg / "versions/graph_v2"
    method = (v2 / "METHOD.md").read_text()
    assert method.startswith("# graph_v2, as we frame it\n\nOur words before.\n\n## Delta vs v1\n")
    assert method.endswith("Our words after.\n")
    assert MOVED_LINE in method
    assert (v2 / "delta.md.j2").read_text() == DELTA  # freezer's, frozen with the version
    manifest = json.loads((v2 / "manifest.json").read_text())
    assert manifest["checks"]["delta_block"] == 2  # 2: the rendered METHOD.md was read and shows it
    assert manifest["files"]["delta.md.j2"] == hashlib.sha256(DELTA.encode()).hexdigest()
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 0, result.text
    assert "METHOD.md reproduced" in result.out


def test_nothing_moved_beside_the_block_still_names_every_moved_dimension(reg: Path) -> None:
    # A heading of its own saying Delta would claim to be §Delta, which a cut refuses (issue 36).
    _use_template(reg, "# {{ name }}\n\n## In short\n\nNothing moved.\n\n{{ delta_block }}")
    _cut_both(reg)
    for name in ("graph_v1", "graph_v2"):
        method = (reg / "versions" / name / "METHOD.md").read_text()
        delta = json.loads((reg / "versions" / name / "delta.json").read_text())
        assert "Nothing moved." in method
        assert unnamed_dimensions(method, delta) == []
    delta = json.loads((reg / "versions/graph_v2/delta.json").read_text())
    # the example pins its harness to a commit, so of the run configuration only what moved is said;
    # the binary's build commit is what stays unknown
    assert delta["moved"] == V2_MOVED and [u["dimension"] for u in delta["unknown"]] == ["binary build"]
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 0, result.text


# --- audit: the block verbatim, and every moved dimension named ------------------------------------


MOVED_LINE = "these dimensions moved: **" + ", ".join(V2_MOVED) + "**"
EVERYTHING_V2_RECORDS = [*V2_MOVED, "binary build"]


def _drop_moved_line(method: str) -> str:
    return method.replace(MOVED_LINE, "nothing moved")


def _say_nothing_moved(method: str) -> str:
    start, end = method.index("## Delta vs"), method.index("## Comparability")
    return method[:start] + "## Delta vs v1\n\nNothing moved.\n\n" + method[end:]


def _drop_the_section(method: str) -> str:
    return method[: method.index("## Delta vs")] + method[method.index("## Comparability") :]


@pytest.mark.parametrize(
    ("edit", "missing"),
    [
        # §Delta's other lines and headings still name the rest (the tool-surface dimensions,
        # "Binary and code under test", ...): only the version record is named nowhere else.
        (_drop_moved_line, ["version record"]),
        (_say_nothing_moved, EVERYTHING_V2_RECORDS),
        (_drop_the_section, EVERYTHING_V2_RECORDS),
    ],
    ids=["moved-line-dropped", "nothing-moved", "section-dropped"],
)
def test_a_hand_edited_method_that_hides_a_moved_dimension_fails_audit(
    v2_frozen: Path, edit: Callable[[str], str], missing: list[str]
) -> None:
    reg = v2_frozen  # graph_v1 and graph_v2 cut (and committed), as _cut_both leaves them
    method_path = reg / "versions/graph_v2/METHOD.md"
    _writable(method_path.parent)
    edited = edit(method_path.read_text())
    assert edited != method_path.read_text()
    method_path.write_text(edited)
    _resum(method_path.parent)
    delta = json.loads((reg / "versions/graph_v2/delta.json").read_text())
    hidden = unnamed_dimensions(edited, delta)
    assert hidden == missing
    result = run_inprocess("audit", "--no-code", "v2", cwd=reg)
    assert result.code == 1, result.text
    assert "graph_v2/METHOD.md: hides what moved: delta.json records " in result.out
    assert all(repr(d) in result.out for d in hidden)


def test_a_tampered_frozen_template_cannot_drop_the_block(v2_frozen: Path) -> None:
    reg = v2_frozen  # graph_v1 and graph_v2 cut (and committed), as _cut_both leaves them
    hidden = SHIPPED.replace("{{ delta_block }}", "{% if false %}{{ delta_block }}{% endif %}")
    version = reg / "versions/graph_v2"
    _writable(version)
    (version / "METHOD.md.j2").write_text(hidden)
    manifest = json.loads((version / "manifest.json").read_text())
    manifest["files"]["METHOD.md.j2"] = hashlib.sha256(hidden.encode()).hexdigest()
    (version / "manifest.json").write_bytes(frozen_file(manifest))
    _resum(version)
    result = run_inprocess("audit", "--no-code", "v2", cwd=reg)
    assert result.code == 1, result.text
    assert "METHOD.md: cannot be re-rendered: METHOD.md.j2:" in result.out and "inside an if, for" in result.out


# --- versions cut before freezer owned §Delta ------------------------------------------------------


def test_a_version_cut_before_the_delta_block_still_audits(v2_frozen: Path) -> None:
    reg = v2_frozen  # graph_v1 and graph_v2 cut (and committed), as _cut_both leaves them
    versions = reg / "versions"
    before = {v.name: _method_without_hash(v) for v in versions.iterdir()}
    _as_cut_before_delta_block(reg, OLD_SHIPPED)
    for version in versions.iterdir():
        manifest = json.loads((version / "manifest.json").read_text())
        assert "delta_block" not in manifest["checks"] and not (version / "delta.md.j2").exists()
        # The whole template of before renders what the shipped one renders with freezer's block.
        assert _method_without_hash(version) == before[version.name]
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 0, result.text
    assert result.out.count("METHOD.md reproduced") == 2


def test_an_old_version_whose_template_hid_what_moved_fails_audit(v2_frozen: Path) -> None:
    reg = v2_frozen  # graph_v1 and graph_v2 cut (and committed), as _cut_both leaves them
    _as_cut_before_delta_block(reg, OLD_HIDING)
    method = (reg / "versions/graph_v2/METHOD.md").read_text()
    assert "Nothing moved." in method and "these dimensions moved" not in method
    result = run_inprocess("audit", "--no-code", cwd=reg)
    assert result.code == 1, result.text
    # Re-rendered byte for byte, yet it hides every moved dimension: audit says which.
    assert "METHOD.md reproduced" in result.out
    hiding = [x for x in result.out.splitlines() if "hides what moved" in x]
    [line] = [x for x in hiding if "graph_v2/METHOD.md" in x]
    assert all(repr(d) in line for d in EVERYTHING_V2_RECORDS), line
    # graph_v1 records nothing moved and nothing unknown (its harness is pinned to a commit): its
    # "Nothing moved" is true, and the unknown binary build of graph_v2 is named above.
    assert not [x for x in hiding if "graph_v1/METHOD.md" in x], hiding


@pytest.mark.parametrize(
    ("method", "missing"),
    [
        ("# x\n\n## Delta vs v1\n\nCompared with `v1`, these dimensions moved: **surface, binary**.\n", []),
        ("# x\n\n## Delta vs v1\n\nmoved: **surface**.\n\n## Binary\n\nbinary\n", ["binary"]),
        ("# x\n\n## Binary\n\nsurface, binary\n", ["surface", "binary"]),
        ("# x\n\n## Delta\n\n### Tools\n\nsurface\\_x moved; binary\n", ["surface"]),
        ("# x\n\n## Delta\n\nmoved: binary, my\\_dim\\_, a &amp; b.\n", ["surface"]),
    ],
    ids=["named", "named-outside-delta", "no-delta-section", "whole-words", "escapes-undone"],
)
def test_which_dimensions_a_method_names(method: str, missing: list[str]) -> None:
    delta: dict[str, Any] = {"moved": ["surface", "binary"], "unknown": []}
    if "my" in method:
        delta = {"moved": ["binary", "my_dim_", "surface"], "unknown": [{"dimension": "a & b", "why": "x"}]}
    assert unnamed_dimensions(method, delta) == missing
