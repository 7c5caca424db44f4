"""``results import --out`` never writes through a link or into a frozen version, and the harness
readers never follow a link out of the place the user named (issue 34, items 2 and 3).

The links are committed to a real git repository (``freezer demo``'s registry) and the real CLI runs
on them (in-process: what is refused does not depend on the interpreter's start).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest
from hostile.evalzip import fix_offsets, lie_about_size, rewrite, zeros
from test_results_import import SWE, TB, _inspect, _lmeval, _trial

from conftest import assert_clean_failure, needs_inspect, run_inprocess

BBH = ["bbh_slice_boolean_logic"]
VICTIM = b'{"precious": true}\n'


@pytest.fixture
def repo(tmp_path: Path, demo_build: Path) -> Path:
    """The demo registry (a git repository) in tmp/demo, beside tmp/outside/victim.jsonl."""
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.jsonl").write_bytes(VICTIM)
    return root


def _commit(root: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, capture_output=True)
    subprocess.run(["git", "commit", "-qm", message], cwd=root, check=True, capture_output=True)


def _committed_link(root: Path, link: str, target: str) -> Path:
    path = root / link
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    _commit(root, f"add {link}")
    mode = subprocess.run(["git", "ls-files", "-s", link], cwd=root, capture_output=True, text=True, check=True)
    assert mode.stdout.startswith("120000"), mode.stdout  # git holds it as a link
    return path


def _import(root: Path, *args: str) -> tuple[int, str]:
    path = _lmeval(root.parent, BBH)
    result = run_inprocess("results", "import", "--from", "lm-eval", str(path), "--version", "bbh_v2", *args, cwd=root)
    return result.code, result.out + result.err


def _clean(root: Path) -> None:
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True, check=True)
    assert status.stdout == "", status.stdout


def test_results_out_refuses_a_committed_link_to_a_file_outside(repo: Path) -> None:
    _committed_link(repo, "runs/tb.jsonl", "../../outside/victim.jsonl")
    code, text = _import(repo, "--out", "runs/tb.jsonl")
    assert code == 1, text
    assert "runs/tb.jsonl" in text and "symbolic link" in text and "Traceback" not in text
    assert (repo.parent / "outside" / "victim.jsonl").read_bytes() == VICTIM
    assert (repo / "runs" / "tb.jsonl").is_symlink()
    _clean(repo)


def test_results_out_refuses_a_committed_folder_link_on_the_way(repo: Path) -> None:
    _committed_link(repo, "runs", "../outside")
    code, text = _import(repo, "--out", "runs/victim.jsonl")
    assert code == 1, text
    assert "symbolic link" in text and "runs" in text
    assert (repo.parent / "outside" / "victim.jsonl").read_bytes() == VICTIM
    code, text = _import(repo, "--out", "runs/new.jsonl")
    assert code == 1, text
    assert not (repo.parent / "outside" / "new.jsonl").exists()
    _clean(repo)


@pytest.mark.parametrize("frozen", ["versions/tb_v1/version.yaml", "versions/bbh_v2/rows.jsonl", "versions/new.jsonl"])
def test_results_out_refuses_the_frozen_versions_folder(repo: Path, frozen: str) -> None:
    before = (repo / "versions/tb_v1/version.yaml").read_bytes()
    code, text = _import(repo, "--out", frozen)
    assert code == 2, text  # a usage error: a place freezer never writes to
    assert frozen in text and "frozen" in text and "Traceback" not in text
    assert (repo / "versions/tb_v1/version.yaml").read_bytes() == before
    assert not (repo / "versions/bbh_v2/rows.jsonl").exists() and not (repo / "versions/new.jsonl").exists()
    _clean(repo)


def test_results_out_refuses_a_path_into_the_registry_through_an_outside_link(repo: Path) -> None:
    alias = repo.parent / "alias"
    alias.symlink_to(repo / "versions" / "tb_v1")
    before = (repo / "versions/tb_v1/version.yaml").read_bytes()
    code, text = _import(repo, "--out", str(alias / "version.yaml"))
    assert code == 2, text
    assert "versions" in text
    assert (repo / "versions/tb_v1/version.yaml").read_bytes() == before


def test_results_out_outside_the_registry_refuses_a_link_and_writes_a_real_file(repo: Path) -> None:
    link = repo.parent / "rows.jsonl"
    link.symlink_to(repo.parent / "outside" / "victim.jsonl")
    code, text = _import(repo, "--out", str(link))
    assert code == 1, text
    assert str(link) in text and "symbolic link" in text
    assert (repo.parent / "outside" / "victim.jsonl").read_bytes() == VICTIM
    real = repo.parent / "outside" / "rows.jsonl"
    code, text = _import(repo, "--out", str(real))
    assert code == 0, text
    assert json.loads(real.read_text().splitlines()[0])["task_id"] == BBH[0]
    assert sorted(p.name for p in real.parent.iterdir()) == ["rows.jsonl", "victim.jsonl"]  # no temporary left


def test_results_out_inside_the_registry_writes_atomically(repo: Path) -> None:
    (repo / "runs").mkdir()
    (repo / "runs" / "old.jsonl").write_text("old\n")
    os.chmod(repo / "runs" / "old.jsonl", 0o640)
    code, text = _import(repo, "--out", "runs/old.jsonl")
    assert code == 0, text
    assert json.loads((repo / "runs/old.jsonl").read_text().splitlines()[0])["task_id"] == BBH[0]
    assert os.stat(repo / "runs/old.jsonl").st_mode & 0o777 == 0o640  # the file it replaced keeps its mode
    assert sorted(p.name for p in (repo / "runs").iterdir()) == ["old.jsonl"]


# -- readers -----------------------------------------------------------------------------------


def test_harbor_job_folder_with_a_committed_trial_link_outside_is_refused(repo: Path) -> None:
    job = repo / "jobs" / "job1"
    _trial(job, TB[0], 1.0)
    outside_job = repo.parent / "outside" / "job"
    _trial(outside_job, "SECRET-OUTSIDE-TASK", 1.0)
    _committed_link(repo, "jobs/job1/stolen__1", "../../../outside/job/SECRET-OUTSIDE-TASK__1")
    for command in ("import", "check"):
        result = run_inprocess("results", command, "--from", "harbor", "jobs/job1", "--version", "tb_v1", cwd=repo)
        assert_clean_failure(result)
        assert "SECRET-OUTSIDE-TASK" not in result.text
        assert "stolen__1" in result.text and "symbolic link" in result.text


def test_harbor_job_folder_that_is_a_link_is_refused(repo: Path) -> None:
    _trial(repo.parent / "outside" / "job", "SECRET-OUTSIDE-TASK", 1.0)
    _committed_link(repo, "jobs/job1", "../../outside/job")
    result = run_inprocess("results", "import", "--from", "harbor", "jobs/job1", "--version", "tb_v1", cwd=repo)
    assert_clean_failure(result)
    assert "SECRET-OUTSIDE-TASK" not in result.text and "symbolic link" in result.text


@needs_inspect
@pytest.mark.parametrize("suffix", [".eval", ".json"])
def test_inspect_log_that_is_a_committed_link_is_refused(repo: Path, suffix: str) -> None:
    outside = repo.parent / "outside"
    _inspect(outside, {SWE[0]: "C"}, suffix=suffix)
    _committed_link(repo, f"logs/log{suffix}", f"../../outside/log{suffix}")
    for command in ("import", "check"):
        result = run_inprocess(
            "results", command, "--from", "inspect", f"logs/log{suffix}", "--version", "swe_v1", cwd=repo
        )
        assert_clean_failure(result)
        assert "symbolic link" in result.text, result.text
        assert '"manifest_sha256"' not in result.out


# Slow lane: its point is size (tens of seconds of the default lane's wall on two cores).
@pytest.mark.slow
@needs_inspect
def test_inspect_archive_whose_members_inflate_past_the_limit_is_refused(tmp_path: Path, demo_build: Path) -> None:
    from freezer.runtime.limits import MAX_INSPECT_MEMBER_BYTES, MAX_INSPECT_MEMBERS

    big = MAX_INSPECT_MEMBER_BYTES + (1 << 20)
    declared = _inspect(tmp_path, {SWE[0]: "C"})
    rewrite(declared, {"header.json": bytes(big)})  # a header that says it is over the limit
    lying = tmp_path / "lying"
    lying.mkdir()
    small = _inspect(lying, {SWE[0]: "C"})
    rewrite(small, {"extra.bin": b"\0" * 1000})
    raw = small.read_bytes()
    with zipfile.ZipFile(small) as z:
        info = z.getinfo("extra.bin")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra)
    bomb = zeros(big)  # deflate data that inflates to more than it says, far past the limit
    patched = raw[:start] + bomb + raw[start + info.compress_size :]
    small.write_bytes(patched)
    fix_offsets(small, info, len(bomb) - info.compress_size)
    lie_about_size(small, "extra.bin", 1000)
    many = tmp_path / "many"
    many.mkdir()
    crowded = _inspect(many, {SWE[0]: "C"})
    rewrite(crowded, {f"junk/{n}": b"" for n in range(MAX_INSPECT_MEMBERS + 1)}, method=zipfile.ZIP_STORED)
    for log, text in ((declared, "header.json"), (small, "extra.bin"), (crowded, "members")):
        result = run_inprocess("results", "import", "--from", "inspect", str(log), "--version", "swe_v1",
                               cwd=demo_build)  # fmt: skip
        assert_clean_failure(result)
        assert str(log) in result.out and text in result.out, result.out
        assert "limit" in result.out, result.out
