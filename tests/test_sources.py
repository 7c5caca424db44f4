"""Issue 26: version.yaml's ``sources:`` (data sources with pinned revisions) is validated by the
schema, diffed field by field in §Delta, part of the environment digest, and a dimension an arm can
depend on: a moved revision makes that arm's scores incomparable, with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.compare.comparerecord import environment_digest
from freezer.domain.manifest import Manifest
from freezer.parse.yamlload import load_bytes

from conftest import run_inprocess
from nocode_helpers import (
    SQUAD_V1,
    SQUAD_V2,
    compare,
    cut,
    drafts,
    frozen,
    manifest,
    ok,
    refused,
    registry,
    sources_yaml,
)

ARMS = "    arms:\n      reader: [record, sources]\n      fixed: [record]\n"
SOURCES_V1 = sources_yaml(
    ("rajpurkar/squad", "huggingface", SQUAD_V1), ("https://example.org/q.csv", "url", "sha256:1")
)
SOURCES_V2 = sources_yaml(
    ("rajpurkar/squad", "huggingface", SQUAD_V2), ("https://example.org/q.csv", "url", "sha256:1")
)


def _two(tmp_path: Path, second: str, arms: str = ARMS) -> Path:
    root = registry(tmp_path, arms)
    drafts(root, 1, sources=SOURCES_V1)
    cut(root, "v1")
    drafts(root, 2, sources=second)
    cut(root, "v2")
    return root


def test_a_moved_revision_moves_sources_and_an_arm_depending_on_it_is_incomparable(tmp_path: Path) -> None:
    root = _two(tmp_path, SOURCES_V2)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "sources" in delta["moved"]
    assert delta["sources"] == [
        {"path": "rajpurkar/squad revision", "change": "changed", "old": SQUAD_V1, "new": SQUAD_V2}
    ]
    records = compare(root, "qa_v1", "qa_v2")
    reader, fixed = records["reader"], records["fixed"]
    assert reader["moved"] == ["sources"] and reader["comparable"] == []
    reason = reader["excluded"]["capital-city"]
    assert reason.startswith("moved for arm reader: sources (rajpurkar/squad revision")
    assert SQUAD_V1[:8] in reason or SQUAD_V1 in reason
    assert fixed["moved"] == [] and fixed["comparable"] == ["capital-city", "river-length"]


def test_method_and_diff_show_the_change(tmp_path: Path) -> None:
    root = _two(tmp_path, SOURCES_V2)
    method = (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")
    assert "## Data sources" in method and f"`{SQUAD_V2}`" in method
    section = method.split("### Data sources", 1)[1].split("###", 1)[0]
    assert "`rajpurkar/squad revision`" in section and SQUAD_V1 in section
    out = ok(run_inprocess("diff", "qa_v1", "qa_v2", "--suite", "qa", cwd=root)).out
    assert "moved: sources" in out and "source rajpurkar/squad revision" in out


def test_unchanged_sources_do_not_move_and_keep_scores_comparable(tmp_path: Path) -> None:
    root = _two(tmp_path, SOURCES_V1)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "sources" in delta["unmoved"] and "sources" not in delta
    assert compare(root, "qa_v1", "qa_v2")["reader"]["comparable"] == ["capital-city", "river-length"]
    method = (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")
    assert "and their pinned revisions did not change" in method


def test_a_removed_source_and_a_new_note_are_changes(tmp_path: Path) -> None:
    second = sources_yaml(("rajpurkar/squad", "huggingface", SQUAD_V1)) + "    notes: validation split only\n"
    root = _two(tmp_path, second)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    paths = {(c["path"], c["change"]) for c in delta["sources"]}
    assert ("rajpurkar/squad notes", "added") in paths
    assert ("https://example.org/q.csv revision", "removed") in paths
    assert "https://example.org/q.csv" in compare(root, "qa_v1", "qa_v2")["reader"]["excluded"]["capital-city"]


def test_the_default_arm_depends_on_sources_when_the_version_has_them(tmp_path: Path) -> None:
    root = _two(tmp_path, SOURCES_V2, arms="")
    assert manifest(root, 1)["comparability"]["arms"] == {"all": ["run", "assets", "record", "sources"]}
    [(name, record)] = compare(root, "qa_v1", "qa_v2").items()
    assert name == "all" and record["moved"] == ["sources"] and record["comparable"] == []


def test_sources_are_in_the_environment_digest(tmp_path: Path) -> None:
    one = _two(tmp_path / "a", SOURCES_V2)
    two = _two(tmp_path / "b", SOURCES_V1)
    digests = {manifest(root, 2)["comparability"]["environment"] for root in (one, two)}
    assert len(digests) == 2
    # the digest is a function of the frozen manifest and version.yaml: recomputed, it agrees
    data = manifest(one, 2)
    version = load_bytes((frozen(one, 2) / "version.yaml").read_bytes(), "version.yaml").document
    assert version is not None
    assert environment_digest(Manifest.from_data(data), version.data) == data["comparability"]["environment"]
    assert (
        environment_digest(Manifest.from_data(data), {**version.data, "sources": []})
        != data["comparability"]["environment"]
    )
    ok(run_inprocess("audit", "--suite", "qa", cwd=one))


def test_a_first_version_lists_its_sources(tmp_path: Path) -> None:
    root = registry(tmp_path)
    drafts(root, 1, sources=SOURCES_V1)
    cut(root, "v1")
    delta = json.loads((frozen(root, 1) / "delta.json").read_bytes())
    assert {c["path"] for c in delta["sources"]} == {
        "rajpurkar/squad kind",
        "rajpurkar/squad revision",
        "https://example.org/q.csv kind",
        "https://example.org/q.csv revision",
    }
    assert "Data sources of this first version" in (frozen(root, 1) / "METHOD.md").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("sources", "message"),
    [
        (sources_yaml(("rajpurkar/squad", "huggingface", "main")), "$.sources[0].revision"),
        (sources_yaml(("org/repo", "git", "abc1234")), "$.sources[0].revision"),
        (sources_yaml(("a", "ftp", "x")), "$.sources[0].kind"),
        (sources_yaml(("a", "url", "x"), ("a", "url", "y")), "source 'a' is listed twice"),
        ("sources:\n  - name: a\n    kind: url\n", "revision"),
    ],
)
def test_bad_sources_are_located(tmp_path: Path, sources: str, message: str) -> None:
    out = refused(registry(tmp_path), sources=sources)
    assert message in out, out
