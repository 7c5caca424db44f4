"""Issue 23, class 8: a checkpoint's every field is checked before use; the machine's record of
checkpoints seen knows every suite, and its state file is read and written without trusting it."""

from __future__ import annotations

import base64
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hostile.checkpoint_cases import BAD_DOCUMENTS, BAD_HEADS, STATE_FILES

from conftest import assert_clean_failure, run_inprocess, sampled_corpus
from registry_helpers import commit_all, demo_signed_by_alice

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")

AT = "2026-01-02T03:04:05Z"


@pytest.fixture(scope="module")
def signed_demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Path]:
    return demo_signed_by_alice(tmp_path_factory.mktemp("checkpoint"), demo_build)


@pytest.fixture
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "state"
    monkeypatch.setenv("FREEZER_STATE_DIR", str(folder))
    return folder


@pytest.fixture
def reg(signed_demo: tuple[Path, Path], tmp_path: Path, state: Path) -> tuple[Path, Path]:
    root = tmp_path / "demo"
    shutil.copytree(signed_demo[0], root, symlinks=True)
    return root, signed_demo[1]


def _canonical(data: Any) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def _signed_document(key: Path, payload: Any) -> str:
    """A checkpoint document whose signature over ``payload`` is valid, whatever its shape."""
    from freezer.trust import sshsig

    blob = sshsig.sign(_canonical(payload), sshsig.load_private_key(key), "freezer-checkpoint")
    document = {
        "payload": base64.b64encode(_canonical(payload)).decode(),
        "signature": {"keyid": "SHA256:x", "sig": base64.b64encode(blob).decode()},
    }
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def _heads(root: Path) -> dict[str, Any]:
    from freezer.registry import config
    from freezer.trust import checkpoint

    return {name: head.to_json() for name, head in checkpoint.heads(config.load(root)).items()}


def _graph(root: Path, **change: Any) -> dict[str, Any]:
    heads = _heads(root)
    heads["graph"] = {**heads["graph"], **change}
    return {"suites": heads, "at": AT}


def _payload_cases(root: Path) -> dict[str, tuple[Any, str, str]]:
    heads = _heads(root)
    without = {**heads, "graph": {k: v for k, v in heads["graph"].items() if k != "latest"}}
    return {
        "payload-a-list": ([heads], "$.payload", "must be an object"),
        "suites-a-list": ({"suites": [heads], "at": AT}, "$.payload.suites", "must be an object"),
        "suites-null": ({"suites": None, "at": AT}, "$.payload.suites", "must be an object"),
        "head-a-number": ({"suites": {**heads, "graph": 2}, "at": AT}, "$.payload.suites.graph", "must be an object"),
        "head-missing-latest": ({"suites": without, "at": AT}, "$.payload.suites.graph", "missing latest"),
        "suite-name-bad": ({"suites": {"../x": heads["graph"]}, "at": AT}, "$.payload.suites['../x']", "not a suite"),
        "at-missing": ({"suites": heads}, "$.payload", "exactly suites and at"),
        "at-a-number": ({"suites": heads, "at": 5}, "$.payload.at", "is not a UTC time"),
        "extra-top": ({"suites": heads, "at": AT, "x": 1}, "$.payload", "exactly suites and at"),
    }


def _expect_located(root: Path, where: str, says: str) -> None:
    for command in (["audit", "--no-code"], ["check", "--base", "HEAD"]):
        run = run_inprocess(*command, cwd=root)
        assert_clean_failure(run)
        line = next((text for text in run.out.splitlines() if "checkpoint.json" in text and where in text), None)
        assert line is not None, run.out
        assert says in line and "checkpoint.json:" in line, line


@pytest.mark.parametrize("case", sampled_corpus(BAD_HEADS, [c[0] for c in BAD_HEADS]))
def test_a_validly_signed_head_of_the_wrong_shape_is_a_located_problem(
    reg: tuple[Path, Path], case: tuple[str, dict[str, Any], str, str]
) -> None:
    root, key = reg
    _, change, where, says = case
    (root / "checkpoint.json").write_text(_signed_document(key, _graph(root, **change)))
    _expect_located(root, where, says)


@pytest.mark.parametrize(
    "case",
    sampled_corpus(
        [
            "payload-a-list",
            "suites-a-list",
            "suites-null",
            "head-a-number",
            "head-missing-latest",
            "suite-name-bad",
            "at-missing",
            "at-a-number",
            "extra-top",
        ]
    ),
)
def test_a_validly_signed_payload_of_the_wrong_shape_is_a_located_problem(reg: tuple[Path, Path], case: str) -> None:
    root, key = reg
    payload, where, says = _payload_cases(root)[case]
    (root / "checkpoint.json").write_text(_signed_document(key, payload))
    _expect_located(root, where, says)


@pytest.mark.parametrize("text, says", sampled_corpus(BAD_DOCUMENTS, unpack=True))
def test_a_malformed_checkpoint_document_is_a_clean_problem(reg: tuple[Path, Path], text: str, says: str) -> None:
    root, _ = reg
    (root / "checkpoint.json").write_text(text)
    for command in (["audit", "--no-code"], ["check", "--base", "HEAD"]):
        run = run_inprocess(*command, cwd=root)
        assert_clean_failure(run)
        assert says in run.out and "checkpoint.json" in run.out, run.out


def test_a_malformed_checkpoint_in_the_base_does_not_crash_check(reg: tuple[Path, Path]) -> None:
    root, key = reg
    (root / "checkpoint.json").write_text(_signed_document(key, _graph(root, versions="5")))
    commit_all(root, "a bad checkpoint in the base")
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0  # a good one replaces it
    checked = run_inprocess("check", "--base", "HEAD", cwd=root)
    assert checked.code == 0, checked.text


def _checkpoint_without(root: Path, key: Path, tmp_path: Path, *versions: str) -> bytes:
    """A checkpoint signed by alice when the registry did not yet hold ``versions``."""
    older = tmp_path / f"older-{len(list(tmp_path.iterdir()))}"
    shutil.copytree(root, older, symlinks=True)
    for name in versions:
        shutil.rmtree(older / "versions" / name)
    made = run_inprocess("checkpoint", "--key", str(key), cwd=older)
    assert made.code == 0, made.text
    return (older / "checkpoint.json").read_bytes()


def _replay(root: Path, old: bytes, *versions: str) -> None:
    for name in versions:
        shutil.rmtree(root / "versions" / name)
    (root / "checkpoint.json").write_bytes(old)


def test_a_replay_from_before_a_second_suite_existed_is_caught(reg: tuple[Path, Path], tmp_path: Path) -> None:
    """The issue's case: the record used to be keyed by the first suite (api) that has a version, so
    deleting api_v1 and graph_v2 with an old checkpoint changed the key and hid the replay."""
    root, key = reg
    old = _checkpoint_without(root, key, tmp_path, "graph_v2", "api_v1")
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0  # this machine saw graph 2, api 1
    _replay(root, old, "graph_v2", "api_v1")
    audited = run_inprocess("audit", "--no-code", cwd=root)
    assert_clean_failure(audited)
    assert "a replay" in audited.out and "went back from" in audited.out


def test_a_replay_that_drops_a_whole_suite_is_caught(reg: tuple[Path, Path], tmp_path: Path) -> None:
    """The old checkpoint agrees with graph; only the suite api, deleted with the replay, was seen higher."""
    root, key = reg
    old = _checkpoint_without(root, key, tmp_path, "api_v1")
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0
    _replay(root, old, "api_v1")
    audited = run_inprocess("audit", "--no-code", cwd=root)
    assert_clean_failure(audited)
    assert "suite api: the checkpoint went back from 1" in audited.out and "a replay" in audited.out


def test_a_suite_added_later_joins_the_record(reg: tuple[Path, Path], tmp_path: Path, state: Path) -> None:
    root, key = reg
    shutil.rmtree(root / "versions" / "api_v1")
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0
    subprocess.run(["git", "checkout", "-q", "--", "versions/api_v1"], cwd=root, check=True)
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0
    record = json.loads((state / "checkpoints.json").read_text())
    assert record["format"] == 2 and len(record["registries"]) == 1
    # The demo cuts tb, swe and bbh too (issue 26).
    assert sorted(record["registries"][0]["suites"]) == ["api", "bbh", "graph", "swe", "tb"]
    assert len(record["registries"][0]["anchors"]) == 5


def test_a_record_written_by_freezer_0_3_still_catches_a_replay(
    reg: tuple[Path, Path], tmp_path: Path, state: Path
) -> None:
    import hashlib

    from freezer.registry import config
    from freezer.registry.model import Suite

    root, key = reg
    old = _checkpoint_without(root, key, tmp_path, "graph_v2")
    cfg = config.load(root)
    first = Suite.of(cfg.suites["api"]).versions()[0].manifest_sha256()
    state.mkdir()
    identity = hashlib.sha256(f"api:{first}".encode()).hexdigest()  # 0.3's key: the first suite by name
    (state / "checkpoints.json").write_text(json.dumps({identity: {"suites": _heads(root)}}))
    _replay(root, old, "graph_v2")
    audited = run_inprocess("audit", "--no-code", cwd=root)
    assert_clean_failure(audited)
    assert "suite graph: the checkpoint went back from 2" in audited.out


def _audit_in_time(root: Path) -> Any:
    return run_inprocess(
        "audit", "--no-code", cwd=root, timeout=60, env={"FREEZER_STATE_DIR": os.environ["FREEZER_STATE_DIR"]}
    )


@pytest.mark.parametrize("kind", sampled_corpus(STATE_FILES))
def test_a_state_file_that_is_not_a_plain_record_is_reported_and_left_alone(
    reg: tuple[Path, Path], tmp_path: Path, state: Path, kind: str
) -> None:
    root, key = reg
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    state.mkdir()
    path = state / "checkpoints.json"
    victim = tmp_path / "victim.txt"
    victim.write_text("someone else's file\n")
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link-to-dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "link-to-a-file":
        path.symlink_to(victim)
    elif kind == "directory":
        path.mkdir()
    elif kind == "oversized":
        with path.open("wb") as out:
            out.truncate(1 << 30)
    elif kind == "damaged":
        path.write_text('{"format": 2, "registries": [')
    else:
        path.write_text(
            json.dumps(
                {
                    "format": 2,
                    "registries": [
                        {
                            "anchors": ["0" * 64],
                            "suites": {"graph": {"versions": "5", "latest": "graph_v5", "manifest_sha256": "0" * 64}},
                        }
                    ],
                }
            )
        )
    audited = _audit_in_time(root)
    assert_clean_failure(audited)
    assert "checkpoints.json" in audited.out and "remove it" in audited.out, audited.out
    assert victim.read_text() == "someone else's file\n"
    if kind.startswith("link"):
        assert path.is_symlink()


def test_the_state_file_is_written_0600_by_rename_and_never_through_a_link(
    reg: tuple[Path, Path], tmp_path: Path, state: Path
) -> None:
    from freezer.registry import config
    from freezer.trust import checkpoint
    from freezer.trust.checkpointstate import remember

    root, key = reg
    assert run_inprocess("checkpoint", "--key", str(key), cwd=root).code == 0
    previous = os.umask(0)
    try:
        assert run_inprocess("audit", "--no-code", cwd=root).code == 0
    finally:
        os.umask(previous)
    path = state / "checkpoints.json"
    assert stat.S_ISREG(path.lstat().st_mode) and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert not [p for p in state.iterdir() if p.name.endswith(".tmp")]
    # A link planted between audits is refused, and what it points at is left as it was.
    cfg = config.load(root)
    _, payload = checkpoint.verify(cfg)
    assert payload is not None
    victim = tmp_path / "victim"
    victim.write_text("keep")
    path.unlink()
    path.symlink_to(victim)
    assert "remove it" in str(remember(cfg, payload))
    assert victim.read_text() == "keep"
