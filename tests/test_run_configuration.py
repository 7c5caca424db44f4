"""Issue 25, class 2: the run configuration (version.yaml's ``run:``) is validated, diffed field by
field, digested into the environment, and a dimension arms depend on; so are the assets and the
version record, and the default arm ``all`` depends on every dimension."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from freezer.compare.delta import compute
from freezer.compare.deltamodel import Delta
from freezer.domain.canonical import frozen_file
from freezer.domain.model import VersionDraft
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.registry import config as config_mod
from freezer.registry.model import Suite
from freezer.registry.record import VersionData, dimensions_of, read

from conftest import EXAMPLES, REPO, assert_clean_failure, run_inprocess
from doc_pages import page
from registry_helpers import commit_all, compare_arms, cut_suite, ok, sample_repo

FORMAT_3 = REPO / "tests/cases/format-3-registry"
EVERY_DIMENSION = ["indexer", "descriptions", "surface", "binary", "code", "run", "assets", "record"]


def _next(root: Path, suite: str, edit: dict[str, str] | None = None) -> Path:
    """``freezer next`` for ``suite``, its TODO line dropped, then ``edit`` (old → new) applied."""
    ok(run_inprocess("next", "--suite", suite, cwd=root))
    version = root / "drafts" / suite / "version.yaml"
    text = re.sub(r"# TODO\(freezer next\).*\n", "", version.read_text(encoding="utf-8"))
    for old, new in (edit or {}).items():
        assert old in text, old
        text = text.replace(old, new, 1)
    version.write_text(text, encoding="utf-8")
    return version


def _frozen(root: Path, number: int) -> VersionData:
    frozen = Suite.of(config_mod.load(root).suite("graph")).find(number)
    assert frozen is not None
    return read(frozen)


@pytest.fixture
def demo(tmp_path: Path, demo_build: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


# --- the seed: v1 → v2 harness changes -------------------------------------------------------------


def test_the_seed_harness_changes_make_graph_tool_scores_incomparable(demo_build: Path) -> None:
    records = compare_arms(demo_build, "graph_v1", "graph_v2", "graph")
    graph, grep = records["graph-tools"], records["grep-only"]
    assert "run" in graph["depends_on"] and "run" in graph["moved"]
    reason = graph["excluded"]["locate-loopaudit-variants"]
    # the harness moved to the commit the v2 sweep ran (the example pins each), and with it its settings
    assert (
        "run (harness.commit bb736e3961b0d3bec4631c48782ff0c286a01456 → 7df885dbe3b4ac5017f1bbfb08604e60dabb1f25, "
        in reason
    )
    assert "timeouts.subprocess_s 600 → 1000, parameters.infra_model_patterns +claude-opus-4-*" in reason
    assert "models.probe added (haiku)" in reason
    # The grep-only arm does not depend on run: its reason stays the fixture's own change.
    assert "run" not in grep["moved"] and "run" not in grep["excluded"]["locate-loopaudit-variants"]
    text = ok(run_inprocess("compare", "graph_v1", "graph_v2", cwd=demo_build)).out
    assert "moved for arm graph-tools: indexer, descriptions, surface, binary, code, run (" in text


def test_method_md_shows_the_run_configuration(demo_build: Path) -> None:
    v2 = (demo_build / "versions/graph_v2/METHOD.md").read_text(encoding="utf-8")
    section = v2[v2.index("### Run configuration") : v2.index("### Tool surface, by dimension")]
    assert "- `timeouts.subprocess_s`: 600 → 1000" in section
    assert "- `budgets.run_usd`: removed (was 1.0)" in section
    assert "- `budgets.max_budget_usd`: removed (was 0.25)" in section
    assert "- `models.probe`: added (haiku)" in section
    assert "- `parameters.infra_model_patterns`: added claude-opus-4-\\*" in section
    assert "these dimensions moved: **fixture set, version record, run configuration," in v2
    # Not also inside the set-level record.
    record = v2[v2.index("### Set-level record") : v2.index("### Run configuration")]
    # (Its line diffs quote the sweep notes, which mention run.py and the subprocess timeout.)
    assert "`$.run" not in record and "subprocess_s" not in record
    v1 = (demo_build / "versions/graph_v1/METHOD.md").read_text(encoding="utf-8")
    first = v1[v1.index("## Delta vs") : v1.index("## Comparability")]
    assert "Run configuration of this first version" in first
    assert "- `timeouts.subprocess_s`: 600" in first and "- `models.main`: claude-sonnet-4-6" in first


def test_freezer_diff_lists_the_run_changes(demo_build: Path) -> None:
    out = ok(run_inprocess("diff", "graph_v1", "graph_v2", cwd=demo_build)).out
    assert "  run timeouts.subprocess_s: 600 → 1000" in out
    assert "  run budgets.run_usd: 1.0 → ∅" in out
    assert "  run models.probe: ∅ → haiku" in out
    assert "run configuration" in out.splitlines()[1]  # moved: ...
    assert "version.yaml $.run" not in out


def test_the_examples_state_the_seed_harness_changes() -> None:
    import yaml

    v1 = VersionDraft.from_data(yaml.safe_load((EXAMPLES / "graph/v1/version.yaml").read_text(encoding="utf-8")))
    v2 = VersionDraft.from_data(yaml.safe_load((EXAMPLES / "graph/v2/version.yaml").read_text(encoding="utf-8")))
    assert v1.run is not None and v2.run is not None
    assert (v1.run.timeouts["subprocess_s"], v2.run.timeouts["subprocess_s"]) == (600, 1000)
    assert v1.run.budgets and not v2.run.budgets  # --budget and --max-budget-usd are gone
    assert v2.run.models["main"] == "claude-sonnet-4-6" and v2.run.models["probe"] == "haiku"
    assert "probe" not in v1.run.models
    assert v2.run.parameters["infra_model_patterns"] == ("claude-sonnet-*", "claude-haiku-*", "claude-opus-4-*")
    assert v1.run.parameters["infra_model_patterns"] == ("claude-sonnet-*", "claude-haiku-*")


# --- the default arm depends on every dimension ---------------------------------------------------


def test_a_new_cut_records_the_default_arm_depending_on_everything(demo_build: Path) -> None:
    manifest = json.loads((demo_build / "versions/api_v1/manifest.json").read_text())
    # A generic suite's default dimension is its tool surface, not the graph's three (issue 27).
    assert manifest["comparability"]["arms"] == {"all": ["tool_surface", *EVERY_DIMENSION[3:]]}
    graph = json.loads((demo_build / "versions/graph_v2/manifest.json").read_text())
    assert graph["comparability"]["arms"]["graph-tools"][-1] == "run"


HARNESS = "harness/run.py"


def _api_with_harness(root: Path) -> None:
    """api_v2: the api suite with a frozen harness script and a run configuration."""
    (root / "drafts/api/harness").mkdir()
    (root / "drafts/api" / HARNESS).write_text("TIMEOUT = 600\n", encoding="utf-8")
    _next(
        root,
        "api",
        {
            "provenance_text:": f"run:\n  harness:\n    paths: [{HARNESS}]\n  timeouts:\n    turn_s: 600\n"
            + "provenance_text:"
        },
    )
    cut_suite(root, "api", "v2")


def test_a_harness_script_change_makes_the_default_arm_incomparable(demo: Path) -> None:
    _api_with_harness(demo)
    (demo / "drafts/api" / HARNESS).write_text("TIMEOUT = 1000\n", encoding="utf-8")
    _next(demo, "api")
    cut_suite(demo, "api", "v3")
    arm = compare_arms(demo, "api_v2", "api_v3", "api")["all"]
    # the harness file's bytes are part of run (delta format 6), and the file is an unclaimed asset too
    assert arm["moved"] == ["run", "assets"] and arm["comparable"] == []
    assert set(arm["classes"].values()) == {"unchanged"}
    assert all(f"moved for arm all: run (harness.paths {HARNESS} sha256:" in why for why in arm["excluded"].values())
    assert all(f"assets ({HARNESS} changed)" in why for why in arm["excluded"].values())
    method = (demo / "versions/api_v3/METHOD.md").read_text(encoding="utf-8")
    assert f"- changed `{HARNESS}`" in method


def test_a_run_change_and_a_record_change_move_the_default_arm(demo: Path) -> None:
    _api_with_harness(demo)
    _next(demo, "api", {"turn_s: 600": "turn_s: 900\n  seeds: [1, 2]"})
    cut_suite(demo, "api", "v3")
    arm = compare_arms(demo, "api_v2", "api_v3", "api")["all"]
    assert arm["moved"] == ["run"] and arm["comparable"] == []
    reason = next(iter(arm["excluded"].values()))
    assert reason.startswith("moved for arm all: run (timeouts.turn_s 600 → 900, seeds added (")
    _next(demo, "api", {"provenance_text: ": "provenance_text: Re-run on a second machine. "})
    cut_suite(demo, "api", "v4")
    arm = compare_arms(demo, "api_v3", "api_v4", "api")["all"]
    assert arm["moved"] == ["record"] and arm["comparable"] == []
    assert next(iter(arm["excluded"].values())) == "moved for arm all: record (provenance_text)"
    # Unchanged run, assets and record: the same fixtures compare again.
    _next(demo, "api")
    cut_suite(demo, "api", "v5")
    arm = compare_arms(demo, "api_v4", "api_v5", "api")["all"]
    assert arm["moved"] == [] and arm["excluded"] == {} and arm["comparable"]


def test_arms_may_name_run_assets_and_record_and_nothing_else(demo: Path) -> None:
    config = demo / "freezer.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("grep-only: [code_sites]", "grep-only: [code_sites, run, assets, record]"))
    loaded = config_mod.load_config(config)
    assert loaded.suites["graph"].arms["grep-only"] == ("code_sites", "run", "assets", "record")
    config.write_text(text.replace("grep-only: [code_sites]", "grep-only: [code_sites, harness]"))
    result = run_inprocess("list", cwd=demo)
    assert_clean_failure(result)
    assert "arm 'grep-only' depends on 'harness', which is not a dimension" in result.text
    assert "binary, code, code_sites, run, assets, record" in result.text


# --- validation -----------------------------------------------------------------------------------

BROKEN_RUN = {
    "timeouts:\n    subprocess_s: 1000": ("timeouts:\n    subprocess_s: -5", "$.run.timeouts.subprocess_s"),
    "  models:\n": ("  model: opus\n  models:\n", "$.run.model"),
    "    main: claude-sonnet-4-6\n": ("    main: 4\n", "$.run.models.main"),
    "  parameters:\n": ("  parameters:\n    nested: {a: 1}\n", "$.run.parameters.nested"),
    "    repo: benchmarks": ("    paths: [scripts/providers.py]\n    repo: benchmarks", "$.run.harness.paths[0]"),
}


@pytest.mark.parametrize("old", sorted(BROKEN_RUN))
def test_a_broken_run_configuration_is_refused_where_it_is(tmp_path: Path, old: str) -> None:
    drafts = tmp_path / "v2"
    shutil.copytree(EXAMPLES / "graph/v2", drafts)
    new, where = BROKEN_RUN[old]
    version = drafts / "version.yaml"
    text = version.read_text(encoding="utf-8")
    assert old in text
    version.write_text(text.replace(old, new, 1), encoding="utf-8")
    line = text[: text.index(old)].count("\n") + 1
    (tmp_path / "freezer.yaml").write_text(
        "freezer: 1\nsuites:\n  graph:\n    drafts: v2\n    code_repo: code\n    tool_surface: ['src/**']\n"
    )
    result = run_inprocess("validate", cwd=tmp_path)
    assert_clean_failure(result)
    problems = [ln for ln in result.out.splitlines() if "version.yaml:" in ln]
    assert len(problems) == 1, result.out
    found = re.search(r"version\.yaml:(\d+):\d+: (\S+):", problems[0])
    assert found is not None, problems[0]
    assert found.group(2) == where
    assert line <= int(found.group(1)) <= line + 2, (line, problems[0])


# --- frozen formats -------------------------------------------------------------------------------


@pytest.fixture
def format_3(tmp_path: Path, cache_root: Path) -> Path:
    """The registry freezer 0.3.0 cut (delta and comparability format 3), with the sample code."""
    root = tmp_path / "old"
    shutil.copytree(FORMAT_3, root)
    shutil.copytree(sample_repo(cache_root), root / "sample-code", symlinks=True)
    (root / ".gitignore").write_text("/sample-code/\n")
    for suite in ("graph", "api"):
        (root / "drafts" / suite).mkdir(parents=True)
    return root


def test_deltas_of_format_3_still_audit_and_read_back_byte_for_byte(format_3: Path) -> None:
    audited = json.loads(run_inprocess("audit", "--no-code", "--format", "json", cwd=format_3).out)
    versions = audited["result"]["versions"] if isinstance(audited["result"], dict) else audited["result"]
    assert len(versions) == 3 and all(v["ok"] for v in versions), versions
    for name in ("graph_v1", "graph_v2", "api_v1"):
        path = format_3 / "versions" / name / "delta.json"
        raw = path.read_bytes()
        frozen = Delta.from_json(json.loads(raw))
        assert frozen.delta_format == 3 and "run" not in json.loads(raw)
        assert frozen_file(frozen.to_json()) == raw, name
    v1, v2 = (_frozen(format_3, n).side() for n in (1, 2))
    dims = dimensions_of(v2.manifest)
    again = compute([v1, v2], dims, delta_format=3).to_json()
    assert again == json.loads((format_3 / "versions/graph_v2/delta.json").read_text())
    assert "run configuration" in compute([v1, v2], dims).unmoved  # format 4 says so


def test_a_new_cut_on_top_of_format_3_versions(format_3: Path) -> None:
    """graph_v3, cut now with a run configuration, after two versions of format 3: the old ones
    audit as they are, the new delta is of the newest format (4 on), and an arm that now depends on run says why."""
    config = format_3 / "freezer.yaml"
    config.write_text(config.read_text().replace("binary, code]", "binary, code, run]"))
    shutil.copytree(EXAMPLES / "graph/v2", format_3 / "drafts/graph", dirs_exist_ok=True)
    run_git(["init", "-q", "-b", "main", "."], format_3, DETERMINISTIC_ENV)
    commit_all(format_3, "the old registry")
    _next(format_3, "graph", {"subprocess_s: 1000": "subprocess_s: 1200"})
    cut_suite(format_3, "graph", "v3")
    audited = run_inprocess("audit", "--no-code", cwd=format_3)
    assert audited.code == 0, audited.text
    assert audited.text.count("delta.json recomputed") == 4
    delta = json.loads((format_3 / "versions/graph_v3/delta.json").read_text())
    assert delta["delta_format"] == 6 and "run configuration" in delta["moved"]
    # v2 (format 3) stated no run configuration: v3's every field is added.
    assert {c["change"] for c in delta["run"]} == {"added"}
    arm = compare_arms(format_3, "graph_v2", "graph_v3", "graph")["graph-tools"]
    assert "run" in arm["moved"]
    assert all("run (" in why for why in arm["excluded"].values())


# --- the environment digest -----------------------------------------------------------------------


def test_the_environment_digest_covers_the_run_configuration(demo: Path, format_3: Path) -> None:
    from freezer.compare.comparerecord import environment_digest

    frozen = json.loads((format_3 / "versions/graph_v2/manifest.json").read_text())["comparability"]
    v2_old = _frozen(format_3, 2)
    assert environment_digest(v2_old.manifest, v2_old.version) == frozen["environment"]  # tag /1 kept
    data = _frozen(demo, 2)
    recorded = data.manifest.comparability
    assert recorded is not None
    assert environment_digest(data.manifest, data.version) == recorded.environment
    changed = {**data.version, "run": {**data.version["run"], "timeouts": {"subprocess_s": 600}}}
    assert environment_digest(data.manifest, changed) != recorded.environment
    without = {k: v for k, v in data.version.items() if k != "run"}
    assert environment_digest(data.manifest, without) not in (
        recorded.environment,
        environment_digest(data.manifest, changed),
    )


def test_the_readme_run_block_is_a_valid_run_configuration() -> None:
    import yaml

    from freezer.schema import schemas

    readme = page("docs/compare.md")
    section = readme[readme.index("**The run configuration.**") :]
    block = yaml.safe_load(section.split("```yaml\n", 1)[1].split("```", 1)[0])
    version = yaml.safe_load((EXAMPLES / "graph/v2/version.yaml").read_text(encoding="utf-8"))
    assert schemas.schema_errors(schemas.VERSION, {**version, **block}) == []
    run = VersionDraft.from_data({**version, **block}).run
    assert run is not None and run.harness is not None and run.harness.commit == "0a1b2c3d"
    assert run.seeds == (1, 2, 3) and run.timeouts == {"subprocess_s": 1000}
    # Each part is checked: an empty block, a string seed, an unknown harness key.
    for broken in ({}, {"seeds": ["1"]}, {"harness": {"script": "x"}}):
        assert schemas.schema_errors(schemas.VERSION, {**version, "run": broken}) != [], broken
