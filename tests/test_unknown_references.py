"""Issue 36, classes 5 and 6: every reference a version records is pinned (by what pins it) or
unknown with the reason, and unknown is never "did not move": a url source with no content digest,
a harness repository with no commit, an lm-eval task whose dataset is read at no pinned revision.
And the run configuration is more than its text: the bytes of the harness files it names are part
of ``run``, so a changed harness script moves it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from freezer.demo.registry import LMEVAL_CONFIG
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.resolve.references import dataset_unknown, harness_unknown, source_unknowns

from conftest import EXAMPLES, run_inprocess
from nocode_helpers import SQUAD_V1, compare, cut, drafts, frozen, ok, registry, sources_yaml
from registry_helpers import commit_all, compare_arms, cut_suite

ARMS = "    arms:\n      reader: [record, sources]\n      runner: [record, run]\n      fixed: [record]\n"
BOTH = ["capital-city", "river-length"]


def _two(tmp_path: Path, first: str, second: str, files: tuple[dict[str, str], dict[str, str]] = ({}, {})) -> Path:
    root = registry(tmp_path, ARMS)
    drafts(root, 1, sources=first, files=files[0])
    cut(root, "v1")
    drafts(root, 2, sources=second, files=files[1])
    cut(root, "v2")
    return root


def _section(root: Path, title: str) -> str:
    method = (frozen(root, 2) / "METHOD.md").read_text(encoding="utf-8")
    return method.split(f"### {title}", 1)[1].split("###", 1)[0]


def test_a_url_source_at_latest_is_unknown_never_unchanged(tmp_path: Path) -> None:
    latest = sources_yaml(("https://example.org/q.csv", "url", "latest"), ("rajpurkar/squad", "huggingface", SQUAD_V1))
    root = registry(tmp_path, ARMS)
    drafts(root, 1, sources=latest)
    assert "revision 'latest', which names no content digest" in cut(root, "v1").text
    drafts(root, 2, sources=latest)
    cut(root, "v2")
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "sources" not in delta["unmoved"] and "sources" not in delta["moved"]
    [unknown] = [u for u in delta["unknown"] if u["dimension"] == "sources"]
    assert "source https://example.org/q.csv (kind url) has revision 'latest'" in unknown["why"]
    section = _section(root, "Data sources")
    assert "did not change" not in section and "unknown" in section and "latest" in section
    records = compare(root, "qa_v1", "qa_v2")
    assert records["reader"]["comparable"] == []
    assert "cannot tell whether sources moved: qa_v2: source https://example.org/q.csv" in str(
        records["reader"]["excluded"]["capital-city"]
    )
    assert records["fixed"]["comparable"] == BOTH and records["runner"]["comparable"] == BOTH
    out = ok(run_inprocess("diff", "qa_v1", "qa_v2", "--suite", "qa", cwd=root)).out
    assert "latest" in out and "unknown" in out
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))


def test_a_harness_repo_with_no_commit_is_unknown(tmp_path: Path) -> None:
    run = "run:\n  harness:\n    repo: https://github.com/acme/harness\n  timeouts:\n    turn_s: 600\n"
    root = _two(tmp_path, run, run)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "run configuration" not in delta["unmoved"]
    assert any(u["dimension"] == "run configuration" and "names no commit" in u["why"] for u in delta["unknown"])
    section = _section(root, "Run configuration")
    assert "(harness, models, seeds, budgets, timeouts, parameters) did not change" not in section
    assert "what it runs is unknown" in section and "acme/harness names no commit" in section
    records = compare(root, "qa_v1", "qa_v2")
    assert records["runner"]["comparable"] == []
    assert "cannot tell whether run moved" in str(records["runner"]["excluded"]["river-length"])
    assert records["reader"]["comparable"] == BOTH
    pinned = run.replace("harness\n", "harness\n    commit: 0a1b2c3d\n")
    root = _two(tmp_path / "pinned", pinned, pinned)
    assert compare(root, "qa_v1", "qa_v2")["runner"]["comparable"] == BOTH


def test_a_changed_harness_file_moves_run(tmp_path: Path) -> None:
    run = "run:\n  harness:\n    paths: [harness/run.py]\n"
    files = ({"harness/run.py": "TIMEOUT = 600\n"}, {"harness/run.py": "TIMEOUT = 1000\n"})
    root = _two(tmp_path, run, run, files)
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    assert "run configuration" in delta["moved"]
    [change] = delta["run"]
    assert change["path"] == "harness.paths harness/run.py" and change["old"] != change["new"]
    section = _section(root, "Run configuration")
    assert "did not change" not in section and "`harness.paths harness/run.py`" in section
    runner = compare(root, "qa_v1", "qa_v2")["runner"]
    assert runner["moved"] == ["run"] and runner["comparable"] == []
    assert "moved for arm runner: run (harness.paths harness/run.py sha256:" in runner["excluded"]["capital-city"]
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))


def _bbh(tmp_path: Path, pinned: bool, sources: bool = True) -> Path:
    """The example lm-eval suite, v1 then v2, its dataset pinned in the template or not; ``sources``
    False drops version.yaml's sources list, so only the tasks' own dataset_path names the data."""
    root = tmp_path / "registry"
    root.mkdir(parents=True)
    (root / "freezer.yaml").write_text("suites:\n" + LMEVAL_CONFIG, encoding="utf-8")
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    for number in (1, 2):
        shutil.rmtree(root / "drafts", ignore_errors=True)
        shutil.copytree(EXAMPLES / f"bbh/v{number}", root / "drafts/bbh")
        template = root / "drafts/bbh/tasks/_template_yaml"
        text = template.read_text(encoding="utf-8")
        assert "dataset_kwargs:\n  revision: " in text
        if not pinned:
            template.write_text(text.replace("dataset_kwargs:\n  revision: ", "# revision: "), encoding="utf-8")
        if not sources:
            version = root / "drafts/bbh/version.yaml"
            kept = version.read_text(encoding="utf-8").split("\nsources:\n")[0] + "\n"
            version.write_text(kept, encoding="utf-8")
        commit_all(root, f"bbh drafts v{number}")
        text = cut_suite(root, "bbh", f"bbh_v{number}").text
        # the cut warns once for the dataset, not once for each of the five tasks that read it
        assert text.count("freezer-examples/bbh-slice at its newest revision") == (0 if pinned else 1), text
    return root


def test_an_lm_eval_dataset_with_no_revision_is_unknown_for_its_tasks(tmp_path: Path) -> None:
    root = _bbh(tmp_path, pinned=False)
    delta = json.loads((root / "versions/bbh_v2/delta.json").read_bytes())
    [unknown] = [u for u in delta["unknown"] if u["dimension"] == "sources"]
    assert "reads dataset freezer-examples/bbh-slice at its newest revision" in unknown["why"]
    assert "sources" not in delta["unmoved"]
    method = (root / "versions/bbh_v2/METHOD.md").read_text(encoding="utf-8")
    assert "and their pinned revisions did not change" not in method
    arm = compare_arms(root, "bbh_v1", "bbh_v2", "bbh")["all"]
    assert arm["comparable"] == []
    for reason in arm["excluded"].values():
        assert "cannot tell whether its data moved: bbh_v2: lm-eval reads dataset freezer-examples/bbh-slice" in reason
    ok(run_inprocess("audit", "--suite", "bbh", cwd=root))


def test_an_unpinned_dataset_is_unknown_in_compare_when_version_yaml_lists_no_sources(tmp_path: Path) -> None:
    """The tasks' own dataset_path is a data source: the default arm depends on it even when
    version.yaml has no sources list, so compare cannot call those tasks comparable."""
    root = _bbh(tmp_path, pinned=False, sources=False)
    manifest = json.loads((root / "versions/bbh_v2/manifest.json").read_bytes())
    assert "sources" in manifest["comparability"]["arms"]["all"]
    arm = compare_arms(root, "bbh_v1", "bbh_v2", "bbh")["all"]
    assert arm["comparable"] == [], arm
    for reason in arm["excluded"].values():
        assert "cannot tell whether its data moved" in reason, reason
    ok(run_inprocess("audit", "--suite", "bbh", cwd=root))


def test_an_lm_eval_dataset_pinned_by_revision_keeps_untouched_tasks_comparable(tmp_path: Path) -> None:
    root = _bbh(tmp_path, pinned=True)
    delta = json.loads((root / "versions/bbh_v2/delta.json").read_bytes())
    assert not [u for u in delta["unknown"] if u["dimension"] == "sources"]
    arm = compare_arms(root, "bbh_v1", "bbh_v2", "bbh")["all"]
    assert len(arm["comparable"]) == 2, arm


@pytest.mark.parametrize(
    ("fixture", "pinned"),
    [
        ({"dataset_path": "org/data", "dataset_kwargs": {"revision": "a" * 40}}, True),
        ({"dataset_path": "org/data", "dataset_kwargs": {"revision": "main"}}, False),
        ({"dataset_path": "org/data"}, False),
        ({"dataset_path": "json", "dataset_kwargs": {"data_files": {"test": "data/test.jsonl"}}}, True),
        ({"dataset_path": "json", "dataset_kwargs": {"data_files": "https://example.org/t.jsonl"}}, False),
        ({"prompt": "no dataset"}, True),
    ],
)
def test_which_dataset_references_pin(fixture: dict[str, object], pinned: bool) -> None:
    assert (dataset_unknown(fixture) is None) is pinned


def test_which_source_and_harness_references_pin() -> None:
    sources = [
        {"name": "a", "kind": "url", "revision": "sha256:" + "0" * 64},
        {"name": "b", "kind": "url", "revision": "latest"},
        {"name": "c", "kind": "git", "revision": "0" * 40},
    ]
    [why] = source_unknowns({"sources": sources})
    assert why.startswith("source b (kind url)")
    assert harness_unknown({"run": {"harness": {"repo": "r"}}}) is not None
    assert harness_unknown({"run": {"harness": {"repo": "r", "commit": "0a1b2c3d"}}}) is None
    assert harness_unknown({"run": {"harness": {"paths": ["h.py"]}}}) is None
