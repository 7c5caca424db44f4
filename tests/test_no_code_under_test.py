"""Issue 26: a suite with no code under test (no code_repo, no tool_surface) cuts, audits, diffs,
compares, shows its status and builds its site; no code step runs, and METHOD.md says once that
there is no code under test instead of calling binary, surface and code unknown or unmoved."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import jsonschema
import pytest

from conftest import REPO, assert_clean_failure, run_inprocess
from nocode_helpers import SQUAD_V1, cut, drafts, frozen, manifest, ok, refused, registry, sources_yaml, write
from registry_helpers import commit_all

CODE_WORDS = ("Pinned SHA", "Binary provenance", "Tool-surface commits", "Gate B grep oracle", "verified at")


@pytest.fixture
def two(tmp_path: Path) -> Path:
    """qa_v1 (two fixtures) and qa_v2 (one prompt edited, one fixture added), both cut."""
    root = registry(tmp_path)
    drafts(root, 1)
    commit_all(root, "drafts v1")
    cut(root, "v1")
    drafts(root, 2, fixtures={"capital-city": "notes: reworded\n", "river-length": "", "moon-distance": ""})
    path = root / "drafts/qa/fixtures/river-length.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("from the passage", "from the text"), encoding="utf-8")
    commit_all(root, "drafts v2")
    cut(root, "v2")
    return root


def test_the_cut_runs_no_code_step_and_the_manifest_says_so(two: Path) -> None:
    for number in (1, 2):
        data = manifest(two, number)
        assert data["code_under_test"] is False
        for key in ("pinned_sha", "code_repo", "binary", "tool_surface"):
            assert key not in data, key
        assert "grep" not in data["checks"]
        assert data["code_history"] is None
        assert data["comparability"]["arms"] == {"all": ["run", "assets", "record"]}
    # sha256sum -c passes without freezer, and the versions chain
    for number in (1, 2):
        subprocess.run(["sha256sum", "-c", "--quiet", "SHA256SUMS"], cwd=frozen(two, number), check=True)
    assert manifest(two, 2)["previous"]["name"] == "qa_v1"


def test_cut_says_no_code_step_ran(tmp_path: Path) -> None:
    root = registry(tmp_path)
    drafts(root, 1)
    result = ok(run_inprocess("cut", "v1", "--suite", "qa", "--dry-run", "--format", "json", cwd=root))
    steps = json.loads(result.out)["result"]["steps"]
    assert [s["step"] for s in steps][:2] == ["drafts", "code"], steps
    assert "no code under test" in steps[1]["detail"]
    assert not {"pinned_sha", "ground_truth", "gate_b", "provenance"} & {s["step"] for s in steps}


def test_audit_passes_and_runs_no_code_check(two: Path) -> None:
    result = ok(run_inprocess("audit", "--suite", "qa", cwd=two))
    assert result.out.count("no code under test") == 2, result.out
    data = json.loads(ok(run_inprocess("audit", "--suite", "qa", "--format", "json", cwd=two)).out)
    codes = [v["code"]["detail"] for v in data["result"]["versions"]]
    assert codes == ["no code under test", "no code under test"]
    assert [v["code"]["status"] for v in data["result"]["versions"]] == ["none", "none"]


def test_audit_status_none_is_distinct_from_not_checked(tmp_path: Path, demo_build: Path) -> None:
    """A version with no code under test says so (status none) with or without --no-code; one with
    code skipped by --no-code is "not checked". Both in the output schema."""
    demo = tmp_path / "demo"
    shutil.copytree(demo_build, demo, symlinks=True)
    validator = jsonschema.Draft202012Validator(json.loads((REPO / "schemas/output.schema.json").read_bytes()))
    document = json.loads(ok(run_inprocess("audit", "--no-code", "--format", "json", cwd=demo)).out)
    assert [f"{e.absolute_path}: {e.message}" for e in validator.iter_errors(document)] == []
    statuses = {v["name"]: v["code"]["status"] for v in document["result"]["versions"]}
    assert set(statuses.values()) == {"none", "not checked"}  # whatever else the demo cuts
    shown = ("graph_v1", "graph_v2", "api_v1", "tb_v1", "swe_v1")
    assert {name: statuses[name] for name in shown} == {
        "graph_v1": "not checked",
        "graph_v2": "not checked",
        "api_v1": "not checked",
        "tb_v1": "none",
        "swe_v1": "none",
    }
    text = ok(run_inprocess("audit", "--no-code", "--suite", "tb", cwd=demo)).out
    assert "tb_v1:" in text and "code: no code under test" in text and "not checked" not in text
    text = ok(run_inprocess("audit", "--no-code", "--suite", "graph", cwd=demo)).out
    assert text.count("code: not checked") == 2 and "no code under test" not in text


def test_a_tampered_no_code_version_fails_audit(two: Path) -> None:
    method = frozen(two, 2) / "METHOD.md"
    method.write_bytes(method.read_bytes().replace(b"Reading questions", b"Reading question5"))
    result = run_inprocess("audit", "--suite", "qa", cwd=two)
    assert result.code == 1 and "Traceback" not in result.text
    assert "METHOD.md" in result.text


def test_method_says_once_there_is_no_code_and_leaves_code_dimensions_out(two: Path) -> None:
    for number in (1, 2):
        text = (frozen(two, number) / "METHOD.md").read_text(encoding="utf-8")
        assert "| Code under test | none |" in text
        assert "## Code under test" in text
        assert "This suite has no code under test" in text
        for word in CODE_WORDS:
            assert word not in text, (number, word)
        assert "unknown" not in text.lower(), number
    method = (frozen(two, 2) / "METHOD.md").read_text(encoding="utf-8")
    delta = method.split("## Delta vs v1", 1)[1].split("\n## ", 1)[0]
    moved, _, rest = delta.partition("These did not: ")
    assert "**fixture set**" in moved
    unmoved = rest.split(".\n", 1)[0]
    assert unmoved == "version record, run configuration, checks", unmoved
    assert delta.count("no code under test") == 1  # said once, and why
    after = delta.split("neither moved nor unmoved here.", 1)[1]
    assert "The METHOD.md template and the dimensions did not change." in after
    for absent in ("binary", "code under test", "Gate B", "Tool surface", "tool-surface"):
        assert absent not in after, absent


def test_delta_json_has_no_code_dimensions(two: Path) -> None:
    delta = json.loads((frozen(two, 2) / "delta.json").read_bytes())
    assert delta["pinned_sha"] is None and delta["code"] is None
    assert delta["grep_oracle"] == {"before": None, "after": None}
    assert delta["tool_surface"] == [] and delta["binary"] == []
    assert delta["moved"] == ["fixture set"]
    assert delta["unknown"] == []
    assert [c["task_id"] for c in delta["fixtures"]["changed"]] == ["capital-city", "river-length"]
    assert [f["task_id"] for f in delta["fixtures"]["added"]] == ["moon-distance"]


def test_diff_and_compare_work(two: Path) -> None:
    out = ok(run_inprocess("diff", "qa_v1", "qa_v2", "--suite", "qa", cwd=two)).out
    assert "moved: fixture set" in out and "pinned SHA" not in out
    data = json.loads(ok(run_inprocess("compare", "qa_v1", "qa_v2", "--suite", "qa", "--format", "json", cwd=two)).out)
    [arm] = data["result"]["arms"]
    assert arm["moved"] == []
    assert sorted(arm["excluded"]) == ["moon-distance", "river-length"]
    assert arm["comparable"] == ["capital-city"]  # its notes changed: cosmetic
    assert "changed what the agent sees" in arm["excluded"]["river-length"]
    assert arm["excluded"]["moon-distance"] == "added in qa_v2"


def test_an_unchanged_fixture_stays_comparable(tmp_path: Path) -> None:
    root = registry(tmp_path)
    drafts(root, 1)
    cut(root, "v1")
    drafts(root, 2, fixtures={"capital-city": "", "river-length": "", "moon-distance": ""})
    cut(root, "v2")
    data = json.loads(ok(run_inprocess("compare", "qa_v1", "qa_v2", "--suite", "qa", "--format", "json", cwd=root)).out)
    [arm] = data["result"]["arms"]
    assert arm["comparable"] == ["capital-city", "river-length"]
    assert list(arm["excluded"]) == ["moon-distance"]


def test_status_show_and_site(two: Path, tmp_path: Path) -> None:
    out = ok(run_inprocess("status", "--suite", "qa", cwd=two)).out
    assert "no code under test" in out
    out = ok(run_inprocess("show", "qa_v2", "--suite", "qa", cwd=two)).out
    assert "no code under test" in out and "binary:" not in out
    site = tmp_path / "site"
    ok(run_inprocess("site", str(site), cwd=two))
    pages = {p.relative_to(site).as_posix(): p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    assert any("qa_v2" in rel for rel in pages), sorted(pages)
    shown = "".join(pages.values())
    assert "no code under test" in shown and ">None<" not in shown and "<code>None" not in shown


def test_recut_with_identical_inputs_is_unchanged(two: Path) -> None:
    drafts(two, 2, fixtures={"capital-city": "notes: reworded\n", "river-length": "", "moon-distance": ""})
    path = two / "drafts/qa/fixtures/river-length.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("from the passage", "from the text"), encoding="utf-8")
    out = ok(run_inprocess("cut", "v2", "--suite", "qa", cwd=two)).out
    assert "identical inputs" in out


@pytest.mark.parametrize(
    ("extra", "field"),
    [
        ("binary:\n  name: reader\n  consumers:\n    - provider: any\n      mechanism: none\n", "binary"),
        ("tool_surface_commits: []\n", "tool_surface_commits"),
    ],
)
def test_a_no_code_draft_giving_code_fields_is_refused(tmp_path: Path, extra: str, field: str) -> None:
    out = refused(registry(tmp_path), sources=extra)
    assert f"$.{field}" in out and "names no code_repo" in out


def test_a_no_code_draft_needs_a_title(tmp_path: Path) -> None:
    root = registry(tmp_path)
    drafts(root, 1)
    version = root / "drafts/qa/version.yaml"
    version.write_text(version.read_text(encoding="utf-8").replace("title: Reading questions\n", ""), encoding="utf-8")
    result = run_inprocess("validate", "--suite", "qa", cwd=root)
    assert_clean_failure(result, 1)
    assert "title" in result.out


@pytest.mark.parametrize("need", ["code", "binary", "code_sites"])
def test_an_arm_cannot_depend_on_code_that_does_not_exist(tmp_path: Path, need: str) -> None:
    root = registry(tmp_path, arms=f"    arms:\n      main: [record, {need}]\n")
    drafts(root, 1)
    result = run_inprocess("validate", "--suite", "qa", cwd=root)
    assert_clean_failure(result, 1)
    assert f"depends on {need!r}, but the suite names no code_repo" in result.text


def test_tool_surface_without_code_repo_is_a_config_error(tmp_path: Path) -> None:
    root = registry(tmp_path)
    text = (root / "freezer.yaml").read_text(encoding="utf-8")
    write(root / "freezer.yaml", text + "    tool_surface: ['src/**']\n")
    drafts(root, 1)
    result = run_inprocess("validate", "--suite", "qa", cwd=root)
    assert_clean_failure(result, 1)
    assert "tool_surface names paths in the code under test, but the suite names no code_repo" in result.text


def test_next_and_check_work_without_code(tmp_path: Path) -> None:
    root = registry(tmp_path)
    drafts(root, 1, sources=sources_yaml(("rajpurkar/squad", "huggingface", SQUAD_V1)))
    cut(root, "v1")
    out = ok(run_inprocess("next", "--suite", "qa", cwd=root)).out
    assert "now says version 2" in out and "pinned_sha" not in out
    text = (root / "drafts/qa/version.yaml").read_text(encoding="utf-8")
    assert "version: 2" in text and "TODO" not in text and SQUAD_V1 in text
    # the default arm with sources is what a cut records, not a config change
    out = ok(run_inprocess("check", cwd=root)).out
    assert "arms" not in out
    commit_all(root, "drafts v2")
    cut(root, "v2")
    assert json.loads((frozen(root, 2) / "delta.json").read_bytes())["unmoved"][-2:] == ["sources", "checks"]


def test_a_suite_cannot_lose_or_gain_its_code_between_versions(tmp_path: Path, demo_build: Path) -> None:
    # gain: a no-code v1, then a code_repo in freezer.yaml
    root = registry(tmp_path / "gain")
    drafts(root, 1)
    cut(root, "v1")
    text = (root / "freezer.yaml").read_text(encoding="utf-8")
    write(root / "freezer.yaml", text + "    code_repo: code\n    tool_surface: ['src/**']\n")
    (root / "code").mkdir()
    subprocess.run(["git", "init", "-q", str(root / "code")], check=True)
    version = root / "drafts/qa/version.yaml"
    version.write_text(
        version.read_text(encoding="utf-8").replace("version: 1", "version: 2")
        + "pinned_sha: 7df885db\nbinary:\n  name: b\n  build_sha_unknown: not known\n  consumers:\n"
        + "    - provider: any\n      mechanism: none\ntool_surface_commits: []\nprovenance_text: x\n"
        + "acceptance:\n  min_landed: 0\n  min_classes: 0\n",
        encoding="utf-8",
    )
    result = run_inprocess("cut", "v2", "--suite", "qa", cwd=root)
    assert_clean_failure(result, 1)
    assert "qa_v1 was cut with no code under test, and the suite now names a code_repo" in result.text
    # lose: the demo's api suite (with code) once its code_repo is removed
    demo = tmp_path / "demo"
    shutil.copytree(demo_build, demo, symlinks=True)
    config = (demo / "freezer.yaml").read_text(encoding="utf-8")
    api = config.index("  api:")
    head, tail = config[:api], config[api:]
    tail = re.sub(r"    code_repo: .*\n    tool_surface:\n(      - .*\n)+", "", tail)
    (demo / "freezer.yaml").write_text(head + tail, encoding="utf-8")
    drafts_yaml = demo / "drafts/api/version.yaml"
    kept = [
        line
        for line in drafts_yaml.read_text(encoding="utf-8").split("\n")
        if not line.startswith(("pinned_sha", "tool_surface_commits"))
    ]
    text = "\n".join(kept).replace("version: 1", "version: 2")
    text = re.sub(r"binary:\n(  .*\n)+", "", text)
    drafts_yaml.write_text(text, encoding="utf-8")
    result = run_inprocess("cut", "v2", "--suite", "api", cwd=demo)
    assert_clean_failure(result, 1)
    assert "api_v1 was cut with code under test, and the suite now names no code_repo" in result.text
