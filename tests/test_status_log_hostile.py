"""Issue 23, class 4: a status line that does not verify is reported by every reader and obeyed by none."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import warnings
from pathlib import Path

import pytest
from hostile.status_lines import FORGERIES, Forgery, Keys, last_hash, line_of, sign_event, yank_of

from conftest import assert_clean_failure, run_inprocess, sampled_corpus
from registry_helpers import commit_all, public_line, ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


@pytest.fixture(scope="module")
def signed_demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Keys]:
    """The demo registry, alice in allowed_signers, and a real yank of api_v1 as line 1 of the log."""
    base = tmp_path_factory.mktemp("status-log")
    root = base / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    keys = Keys(ssh_key(base / "alice"), ssh_key(base / "mallory"))
    (root / "allowed_signers").write_text(f"alice@example.org {public_line(keys.alice)}\n")
    yanked = run_inprocess("yank", "api_v1", "--reason", "a real yank", "--key", str(keys.alice), cwd=root)
    assert yanked.code == 0, yanked.text
    commit_all(root, "allowed signers and a real yank")
    return root, keys


@pytest.fixture
def reg(signed_demo: tuple[Path, Keys], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Keys]:
    monkeypatch.setenv("FREEZER_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "demo"
    shutil.copytree(signed_demo[0], root, symlinks=True)
    return root, signed_demo[1]


def _forge(root: Path, keys: Keys, forgery: Forgery) -> None:
    log = root / "status.jsonl"
    line = forgery.line(log, keys)
    with log.open("ab") as out:
        out.write(line)


def _view(root: Path):  # type: ignore[no-untyped-def]
    from freezer.trust import lifecycle

    return lifecycle.status_log(root)


@pytest.mark.parametrize("forgery", sampled_corpus(FORGERIES, [f.id for f in FORGERIES]))
def test_a_forged_line_is_a_located_problem_and_changes_no_status(reg: tuple[Path, Keys], forgery: Forgery) -> None:
    root, keys = reg
    _forge(root, keys, forgery)
    view = _view(root)
    assert view.of("graph_v2").status == "current"
    assert view.of("api_v1").status == "yanked"  # the real line 1 still counts
    assert [(p.file.endswith("status.jsonl"), p.line) for p in view.problems] == [(True, 2)], view.problems
    assert forgery.says in view.problems[0].message, view.problems[0].message
    assert "not counted as status" in view.problems[0].message


@pytest.mark.parametrize(
    "case", sampled_corpus(["sig-AAAA", "key-not-allowed", "out-of-chain-first", "version-a-list"])
)
def test_every_reader_reports_the_line_and_acts_only_on_verified_events(reg: tuple[Path, Keys], case: str) -> None:
    import freezer.api

    root, keys = reg
    _forge(root, keys, next(f for f in FORGERIES if f.id == case))
    listed = run_inprocess("list", "--suite", "graph", cwd=root)
    assert_clean_failure(listed)
    rows = listed.out.splitlines()
    # Issue 25, class 7: a line that names graph_v2 is shown beside it as an error, never as its status.
    expected = "current" if case == "version-a-list" else "current ✗ unverified event"
    assert rows[2].startswith("graph_v2") and rows[2].endswith(expected), listed.out
    assert "✗ status.jsonl:2: $: " in listed.out and "not counted as status" in listed.out
    everything = json.loads(run_inprocess("list", "--format", "json", cwd=root).out)
    assert not everything["ok"] and everything["result"]["status_log"][0]["line"] == 2
    statuses = {row["version"]: row["status"]["status"] for row in everything["result"]["versions"]}
    assert statuses == {
        "graph_v1": "current",
        "graph_v2": "current",
        "api_v1": "yanked",
        "tb_v1": "current",
        "swe_v1": "current",
        "bbh_v1": "current",
        "bbh_v2": "current",
    }

    shown = run_inprocess("show", "graph_v2", cwd=root)
    assert_clean_failure(shown)
    assert "yanked" not in shown.out.split("✗ status.jsonl")[0] and "status.jsonl:2" in shown.out
    shown_json = json.loads(run_inprocess("show", "graph_v2", "--format", "json", cwd=root).out)
    assert shown_json["result"]["status"]["status"] == "current" and shown_json["exit_code"] == 1

    logged = run_inprocess("log", "--suite", "graph", cwd=root)
    assert_clean_failure(logged)
    assert "[yanked]" not in logged.out and "status.jsonl:2" in logged.out

    compared = run_inprocess("compare", "graph_v1", "graph_v2", cwd=root)
    assert_clean_failure(compared)
    assert "graph_v2 is yanked" not in compared.out and "status.jsonl:2" in compared.out

    with pytest.warns(freezer.api.StatusLogWarning, match=r"status\.jsonl:2"):
        latest = freezer.api.load("latest", registry=root, suite="graph")
    assert latest.name == "graph_v2" and latest.status.status == "current"
    assert latest.status_problems and "status.jsonl:2" in latest.status_problems[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", freezer.api.StatusLogWarning)
        with pytest.warns(freezer.api.YankedWarning, match="a real yank"):
            freezer.api.load("api_v1", registry=root)

    assert_clean_failure(run_inprocess("audit", "--no-code", cwd=root))


def test_the_site_shows_only_verified_status(reg: tuple[Path, Keys], tmp_path: Path) -> None:
    """The site reads the verified view once; the command reports the lines it ignored, as list does."""
    root, keys = reg
    _forge(root, keys, next(f for f in FORGERIES if f.id == "sig-AAAA"))
    built = run_inprocess("site", str(tmp_path / "site"), cwd=root)
    assert built.code == 1, built.text
    assert "status.jsonl:" in built.out and "not status" in built.out, built.text
    as_json = json.loads(run_inprocess("site", str(tmp_path / "site"), "--format", "json", cwd=root).out)
    assert not as_json["ok"] and as_json["result"]["status_log"], as_json
    index = json.loads((tmp_path / "site" / "index.json").read_text())
    text = json.dumps(index)
    assert "forged" not in text  # the forged line's reason appears nowhere
    assert "a real yank" in text  # the verified one does


def test_a_real_yank_after_a_forged_line_is_refused_until_the_log_is_restored(reg: tuple[Path, Keys]) -> None:
    root, keys = reg
    _forge(root, keys, next(f for f in FORGERIES if f.id == "sig-AAAA"))
    refused = run_inprocess("yank", "graph_v1", "--reason", "x", "--key", str(keys.alice), cwd=root)
    assert_clean_failure(refused, code=2)
    assert "status.jsonl:2" in refused.err and "restore it" in refused.err
    subprocess.run(["git", "checkout", "-q", "--", "status.jsonl"], cwd=root, check=True)
    assert run_inprocess("yank", "graph_v1", "--reason", "x", "--key", str(keys.alice), cwd=root).code == 0
    assert _view(root).of("graph_v1").status == "yanked" and not _view(root).problems


def test_a_signed_line_chained_onto_a_forged_one_counts_and_the_forged_one_does_not(reg: tuple[Path, Keys]) -> None:
    """Only a key of allowed_signers can sign the line after the forged one, so that line counts."""
    root, keys = reg
    _forge(root, keys, next(f for f in FORGERIES if f.id == "sig-AAAA"))
    log = root / "status.jsonl"
    with log.open("ab") as out:
        out.write(line_of(sign_event(keys.alice, {**yank_of("graph_v1", last_hash(log)), "reason": "chained"})))
    view = _view(root)
    assert [p.line for p in view.problems] == [2]
    assert view.of("graph_v1").status == "yanked" and view.of("graph_v2").status == "current"


def test_a_deleted_line_puts_the_next_one_out_of_the_chain(reg: tuple[Path, Keys]) -> None:
    root, keys = reg
    assert run_inprocess("yank", "graph_v1", "--reason", "second", "--key", str(keys.alice), cwd=root).code == 0
    log = root / "status.jsonl"
    log.write_bytes(b"".join(log.read_bytes().splitlines(keepends=True)[1:]))
    view = _view(root)
    assert view.of("api_v1").status == "current" and view.of("graph_v1").status == "current"
    assert [(p.line, "chain is broken" in p.message) for p in view.problems] == [(1, True)]


def test_allowed_signers_that_limits_the_key_to_other_namespaces(reg: tuple[Path, Keys]) -> None:
    root, keys = reg
    (root / "allowed_signers").write_text(f'alice@example.org namespaces="freezer" {public_line(keys.alice)}\n')
    view = _view(root)
    assert view.of("api_v1").status == "current"
    assert [p.line for p in view.problems] == [1] and "does not allow" in view.problems[0].message


def test_an_invalid_allowed_signers_makes_no_event_status(reg: tuple[Path, Keys]) -> None:
    root, _ = reg
    (root / "allowed_signers").write_text("alice@example.org ssh-rsa AAAA\n")
    view = _view(root)
    assert view.of("api_v1").status == "current"
    # The line ssh-keygen skips is reported, and the event its key would have allowed is not status.
    assert any(p.file.endswith("allowed_signers") and p.line == 1 for p in view.problems), view.problems
    assert any("does not allow to change status" in p.message for p in view.problems), view.problems
    listed = run_inprocess("list", cwd=root)
    assert_clean_failure(listed)
    assert "allowed_signers:1" in listed.out


@pytest.mark.parametrize("kind", ["link", "fifo", "directory", "oversized"])
def test_a_log_that_is_not_a_regular_file_is_reported_not_read(
    reg: tuple[Path, Keys], tmp_path: Path, kind: str
) -> None:
    root, _ = reg
    log = root / "status.jsonl"
    outside = tmp_path / "outside.jsonl"
    original = log.read_bytes()
    outside.write_bytes(original)
    log.unlink()
    if kind == "link":
        log.symlink_to(outside)  # a log that verifies, reached through a link
    elif kind == "fifo":
        os.mkfifo(log)
    elif kind == "directory":
        log.mkdir()
    else:
        with log.open("wb") as out:
            out.truncate(65 << 20)
    listed = run_inprocess("list", cwd=root, timeout=60)
    assert_clean_failure(listed)
    assert "status.jsonl" in listed.out and "api_v1" in listed.out
    assert _view(root).of("api_v1").status == "current"
    assert outside.read_bytes() == original


def test_blank_lines_keep_line_numbers_true(reg: tuple[Path, Keys]) -> None:
    root, keys = reg
    log = root / "status.jsonl"
    log.write_bytes(log.read_bytes() + b"\n\n")
    _forge(root, keys, next(f for f in FORGERIES if f.id == "sig-AAAA"))
    assert [p.line for p in _view(root).problems] == [4]
