"""Issue 27, item 9: a suite of another kind than graph no longer defaults to the graph's dimensions.

What a frozen version recorded still rules it: a version cut when every suite defaulted to
indexer/descriptions/surface audits as before, and ``check`` does not call the new default a change.
"""

from __future__ import annotations

import json
from pathlib import Path

from freezer.registry import config as config_mod
from freezer.registry.dimensions import DEFAULT_DIMENSIONS, SURFACE_DIMENSIONS

from conftest import run_inprocess
from doc_pages import section
from registry_helpers import commit_all

GRAPH_THREE = "    dimensions:\n" + "".join(
    f"      {name}: {meaning!r}\n" for name, meaning in DEFAULT_DIMENSIONS.items()
)


def test_each_kind_gets_its_own_default(demo_build: Path, api: Path) -> None:
    demo = config_mod.load(demo_build)
    assert demo.suite("graph").dimensions == DEFAULT_DIMENSIONS
    assert demo.suite("api").dimensions == SURFACE_DIMENSIONS  # generic, with tool_surface globs
    assert demo.suite("tb").dimensions == {} and demo.suite("swe").dimensions == {}  # folders, records: no code
    for name in ("api", "tb", "swe"):
        recorded = json.loads((demo_build / f"versions/{name}_v1/manifest.json").read_text())["checks"]["dimensions"]
        assert {d["dimension"] for d in recorded}.isdisjoint(DEFAULT_DIMENSIONS), (name, recorded)
    # freezer.yaml's own dimensions win over any default, for every kind.
    config = api / "freezer.yaml"
    config.write_text(config.read_text() + "    dimensions:\n      prompts: the prompt templates\n")
    assert config_mod.load(api).suite("api").dimensions == {"prompts": "the prompt templates"}
    assert config_mod.load(api).suite("graph").dimensions == DEFAULT_DIMENSIONS


def test_a_version_cut_with_the_graph_default_still_rules_itself(api: Path) -> None:
    config = api / "freezer.yaml"
    plain = config.read_text()
    # As an older freezer cut it: the graph's three dimensions recorded for the generic suite.
    config.write_text(plain + GRAPH_THREE)
    commit_all(api, "api with the graph dimensions")
    cut = run_inprocess("cut", "v1", "--suite", "api", cwd=api)
    assert cut.code == 0, cut.text
    recorded = json.loads((api / "versions/api_v1/manifest.json").read_text())["checks"]["dimensions"]
    assert [d["dimension"] for d in recorded] == list(DEFAULT_DIMENSIONS)
    config.write_text(plain)  # the freezer.yaml such a registry has: no dimensions: at all
    commit_all(api, "api_v1 frozen")
    checked = run_inprocess("check", "--base", "HEAD", cwd=api)
    assert checked.code == 0, checked.text
    assert "dimensions" not in checked.out and "arms" not in checked.out
    assert run_inprocess("audit", "--no-code", "api_v1", cwd=api).code == 0
    # A dimension the config now names is a change, and check says so.
    config.write_text(plain + "    dimensions:\n      prompts: the prompt templates\n")
    changed = run_inprocess("check", "--base", "HEAD", cwd=api)
    assert changed.code == 1 and "dimensions: " in changed.out, changed.text


def test_readme_documents_dimensions() -> None:
    documented = section("docs/registry.md", "## `dimensions:`")
    for said in ("indexer, descriptions, surface", "tool_surface", "kind", "manifest", "freezer check"):
        assert said in documented, said
