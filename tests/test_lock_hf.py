"""``freezer lock`` on the Hugging Face datasets an lm-eval suite's tasks read with no revision:
resolved offline from a hub cache built here as huggingface_hub lays it out
(``datasets--owner--name/refs/main`` holding the commit, ``snapshots/<commit>/``), recorded in the
drafts' lock file and, at a cut, in the manifest's ``locked_datasets``; ``refs/main`` re-pointed
between two versions moves exactly the tasks that read that dataset in §Delta and ``compare``;
``lock --check`` says unlocked and stale; a dataset the cache lacks writes nothing and says what
to download. No test here has a network: the cache is all lock reads, through huggingface_hub.

huggingface_hub reads where its cache is (HF_HUB_CACHE, HF_HOME, …) once, when it is imported, so
each lock that reads a cache runs in a fresh process (run_forked or run_cli), as a user's does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, run_forked, run_inprocess
from hub_helpers import LOCK, LOGIC, REASONING, drafts, point, registry
from nocode_helpers import write
from registry_helpers import commit_all, compare_arms, cut_suite, ok, snapshot


def _env(cache: Path) -> dict[str, str]:
    return {"HF_HUB_CACHE": str(cache)}


def test_a_dataset_locked_from_the_cache_then_repointed_moves_exactly_its_tasks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "hf-home" / "hub"
    first, logic, second = "1" * 40, "2" * 40, "3" * 40
    point(cache, REASONING, first)
    point(cache, LOGIC, logic)
    root = registry(tmp_path)
    commit_all(root, "bbh drafts v1")
    unlocked = run_inprocess("lock", "--check", "--suite", "bbh", cwd=root)
    assert unlocked.code == 1, unlocked.text
    assert f"dataset {REASONING} main is named by tag and not locked (arith-add $.dataset_path)" in unlocked.out
    dry = ok(run_inprocess("cut", "v1", "--suite", "bbh", "--dry-run", cwd=root))
    assert f"lm-eval reads dataset {REASONING} at its newest revision" in dry.text

    # The real command, in its own process, finding the cache through HF_HOME as huggingface_hub does.
    for variable in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        monkeypatch.delenv(variable, raising=False)  # unset: huggingface_hub reads an empty one as a folder
    locked = run_forked("lock", "--suite", "bbh", cwd=root, env={"HF_HOME": str(cache.parent)})
    assert locked.code == 0, locked.text
    assert f"dataset {REASONING} main locked at {first} (new)" in locked.out
    assert json.loads((root / LOCK).read_bytes()) == {
        "lock_format": 1,
        "images": {},
        "datasets": {LOGIC: {"main": logic}, REASONING: {"main": first}},
    }
    commit_all(root, "bbh drafts v1, locked")
    ok(run_inprocess("lock", "--check", "--suite", "bbh", cwd=root))
    text = cut_suite(root, "bbh", "bbh_v1").text
    assert "newest revision" not in text
    manifest = json.loads((root / "versions/bbh_v1/manifest.json").read_bytes())
    assert manifest["locked_datasets"] == {LOGIC: {"main": logic}, REASONING: {"main": first}}
    # The default arm depends on the data sources once a lock pins the tasks' datasets.
    assert "sources" in manifest["comparability"]["arms"]["all"], manifest["comparability"]["arms"]

    # v2: no task edited; refs/main of one dataset re-pointed (a new download), locked again.
    point(cache, REASONING, second)
    drafts(root, 2)
    relocked = ok(run_forked("lock", "--suite", "bbh", cwd=root, env=_env(cache)))
    assert f"dataset {REASONING} main MOVED {first} → {second}" in relocked.out
    assert f"dataset {LOGIC} main unchanged at {logic}" in relocked.out
    commit_all(root, "bbh drafts v2, locked")
    cut_suite(root, "bbh", "bbh_v2")
    delta = json.loads((root / "versions/bbh_v2/delta.json").read_bytes())
    [change] = delta["sources"]
    assert change["path"] == f"dataset {REASONING} at main"
    assert (change["old"], change["new"]) == (f"main@{first} (pinned by lock)", f"main@{second} (pinned by lock)")
    assert "sources" in delta["moved"] and not delta["unknown"], delta
    assert f"main@{second} (pinned by lock)" in (root / "versions/bbh_v2/METHOD.md").read_text(encoding="utf-8")
    arm = compare_arms(root, "bbh_v1", "bbh_v2", "bbh")["all"]
    assert arm["comparable"] == ["logic-and", "logic-or"], arm
    assert sorted(arm["excluded"]) == ["arith-add", "arith-sub"]
    assert f"its dataset {REASONING} main@{first} → main@{second} (pinned by lock)" in arm["excluded"]["arith-add"]
    ok(run_inprocess("audit", "--suite", "bbh", cwd=root))
    ok(run_inprocess("check", "--base", "HEAD~1", cwd=root))


def test_lock_check_names_an_unlocked_and_a_stale_dataset(tmp_path: Path) -> None:
    root = registry(tmp_path)
    sha = "a" * 40
    stale = {"lock_format": 1, "images": {}, "datasets": {REASONING: {"v0": sha}, LOGIC: {"main": sha}}}
    write(root / LOCK, json.dumps(stale))
    commit_all(root, "bbh drafts, a lock of another revision")
    result = run_inprocess("lock", "--check", "--suite", "bbh", cwd=root)
    assert result.code == 1, result.text
    assert f"dataset {REASONING} main is named by tag and not locked (arith-add $.dataset_path)" in result.out
    assert f"dataset {REASONING} v0 is locked but no draft names it any more (stale)" in result.out
    assert f"dataset {LOGIC} main locked at {sha}" in result.out


def test_a_dataset_the_cache_lacks_writes_no_lock_and_says_what_to_download(tmp_path: Path) -> None:
    cache = tmp_path / "hub"
    point(cache, LOGIC, "2" * 40)  # the other dataset was never downloaded
    root = registry(tmp_path)
    commit_all(root, "bbh drafts")
    before = snapshot(root / "drafts")
    result = run_forked("lock", "--suite", "bbh", cwd=root, env=_env(cache))
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert f"does not hold dataset(s) the tasks read: {REASONING} at main" in result.text
    assert f"hf download --repo-type dataset {REASONING}" in result.text
    assert LOGIC not in result.text.split("hint")[0].split("read:")[1]
    assert snapshot(root / "drafts") == before
    # A ref file that holds no commit is a damaged cache: said, not locked.
    write(cache / f"datasets--{REASONING.replace('/', '--')}" / "refs" / "main", "not a commit\n")
    damaged = run_forked("lock", "--suite", "bbh", cwd=root, env=_env(cache))
    assert damaged.code == 1 and "not a commit (40 hex)" in damaged.text, damaged.text
    assert snapshot(root / "drafts") == before


def test_a_task_reading_a_local_folder_is_not_asked_of_the_cache_and_stays_unknown(tmp_path: Path) -> None:
    cache = tmp_path / "hub"
    point(cache, REASONING, "1" * 40)
    point(cache, LOGIC, "2" * 40)
    root = registry(tmp_path)
    write(root / "drafts/bbh/tasks/local-read.yaml", "dataset_path: ./local-data\ntest_split: test\ntask: local-read\n")
    commit_all(root, "bbh drafts, a task reading a folder")
    locked = ok(run_forked("lock", "--suite", "bbh", cwd=root, env=_env(cache)))
    assert "local-data" not in locked.text
    assert set(json.loads((root / LOCK).read_bytes())["datasets"]) == {REASONING, LOGIC}
    commit_all(root, "locked")
    dry = ok(run_inprocess("cut", "v1", "--suite", "bbh", "--dry-run", cwd=root))
    assert "lm-eval reads dataset ./local-data at its newest revision" in dry.text
    assert f"lm-eval reads dataset {REASONING}" not in dry.text


def test_the_hub_cache_is_found_in_huggingface_hubs_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HF_HUB_CACHE, then the older HUGGINGFACE_HUB_CACHE, then HF_HOME/hub, then
    XDG_CACHE_HOME/huggingface/hub: each candidate cache holds another commit, and lock pins the one
    of the cache huggingface_hub picks."""
    caches = {
        "HF_HUB_CACHE": tmp_path / "a",
        "HUGGINGFACE_HUB_CACHE": tmp_path / "b",
        "HF_HOME": tmp_path / "c" / "hub",
        "XDG_CACHE_HOME": tmp_path / "d" / "huggingface" / "hub",
    }
    commits = {variable: str(n) * 40 for n, variable in enumerate(caches, start=1)}
    for variable, cache in caches.items():
        point(cache, REASONING, commits[variable])
        point(cache, LOGIC, commits[variable])
    every = {
        "HF_HUB_CACHE": str(tmp_path / "a"),
        "HUGGINGFACE_HUB_CACHE": str(tmp_path / "b"),
        "HF_HOME": str(tmp_path / "c"),
        "XDG_CACHE_HOME": str(tmp_path / "d"),
    }
    root = registry(tmp_path)
    commit_all(root, "bbh drafts v1")
    names = list(caches)
    for at, variable in enumerate(names):
        for earlier in names[:at]:
            monkeypatch.delenv(earlier, raising=False)  # unset: huggingface_hub reads an empty one as a folder
        env = {name: every[name] for name in names[at:]}
        locked = run_forked("lock", "--suite", "bbh", "--format", "json", cwd=root, env=env)
        assert locked.code == 0, (variable, locked.text)
        assert json.loads((root / LOCK).read_bytes())["datasets"][REASONING] == {"main": commits[variable]}, variable


def test_a_dataset_is_locked_from_the_cache_the_older_variable_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A maintainer whose environment still sets HUGGINGFACE_HUB_CACHE (older huggingface_hub
    releases' name, which current ones still read) locks from that cache, not from ~/.cache."""
    cache = tmp_path / "legacy-cache"
    point(cache, REASONING, "4" * 40)
    point(cache, LOGIC, "5" * 40)
    root = registry(tmp_path)
    commit_all(root, "bbh drafts v1")
    for variable in ("HF_HUB_CACHE", "HF_HOME"):
        monkeypatch.delenv(variable, raising=False)  # unset: huggingface_hub reads an empty one as a folder
    env = {"HUGGINGFACE_HUB_CACHE": str(cache), "HOME": str(tmp_path / "home")}
    locked = run_forked("lock", "--suite", "bbh", cwd=root, env=env)
    assert locked.code == 0, locked.text
    assert f"dataset {REASONING} main locked at {'4' * 40} (new)" in locked.out


def test_lock_without_huggingface_hub_exits_2_naming_the_extra(tmp_path: Path) -> None:
    """huggingface_hub reads the hub cache: where it cannot be imported, lock of a suite whose tasks
    read datasets stops before reading anything, with the usage exit and the extra that installs it.
    The cache holds both datasets, so only the missing reader can stop it."""
    cache = tmp_path / "hub"
    point(cache, REASONING, "1" * 40)
    point(cache, LOGIC, "2" * 40)
    root = registry(tmp_path)
    commit_all(root, "bbh drafts")
    before = snapshot(root / "drafts")
    # The interpreter finds no huggingface_hub (None in sys.modules refuses its import), then runs
    # the CLI as the console script does.
    program = (
        "import sys; sys.modules['huggingface_hub'] = None\n"
        "from freezer.cli import main\n"
        "sys.exit(main(['lock', '--suite', 'bbh']))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), **_env(cache)}
    env.pop("FREEZER_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=root, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert "with huggingface_hub, which is not installed" in done.stderr
    assert "pip install 'freezer-bench[hub]'" in done.stderr
    assert snapshot(root / "drafts") == before
