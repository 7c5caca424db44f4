"""freezer's own records are typed objects made into JSON where they are written: the code verdict
of an audit, the rows of list and log, a status event, a checkpoint. The JSON they make keeps the
keys and the order 0.4 printed and signed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from freezer.domain import canonical
from freezer.registry.verdict import NO_CODE, CodeVerdict, VersionAudit, unreachable, verified_at
from freezer.trust.checkpointformat import ChainHead, CheckpointPayload, Malformed, check_payload, grew
from freezer.trust.lifecycle import LogEvent, StatusChange

from conftest import run_inprocess
from registry_helpers import demo_signed_by_alice

needs_ssh = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


def test_the_code_status_is_the_one_the_check_decided_not_read_from_its_sentence(tmp_path: Path) -> None:
    # A reason that begins with another status's word does not change the status.
    gone = unreachable("failed to read the pack: verified objects are missing")
    audit = VersionAudit("g_v1", tmp_path, code=gone)
    assert audit.code_status == "unreachable"
    detail = "unreachable: failed to read the pack: verified objects are missing"
    assert audit.to_json()["code"] == {"status": "unreachable", "detail": detail}
    assert VersionAudit("g_v1", tmp_path, code=NO_CODE).to_json()["code"] == {
        "status": "none",
        "detail": "no code under test",
    }
    assert str(verified_at("0123456789abcdef")) == "verified at 01234567"
    assert VersionAudit("g_v1", tmp_path).code == CodeVerdict("not checked", "not checked")


def test_a_status_event_signs_and_writes_the_keys_of_0_4() -> None:
    change = StatusChange("deprecate", "graph", "graph_v1", "superseded", "graph_v2")
    event = LogEvent(change, "2026-01-31T12:00:00Z", None, "c2ln")
    # What is signed: every field but sig, sorted and compact; a yank has no superseded_by key at all.
    assert canonical.compact(event.unsigned()) == (
        b'{"at":"2026-01-31T12:00:00Z","event":"deprecate","prev":null,"reason":"superseded",'
        b'"suite":"graph","superseded_by":"graph_v2","version":"graph_v1"}'
    )
    yank = LogEvent(StatusChange("yank", "graph", "graph_v1", None), "2026-01-31T12:00:00Z", "a" * 64, "c2ln")
    assert sorted(yank.to_json()) == ["at", "event", "prev", "reason", "sig", "suite", "version"]


def test_a_checkpoint_payload_reads_back_as_the_json_it_signed() -> None:
    heads = {"graph": ChainHead(2, "graph_v2", "b" * 64)}
    payload = CheckpointPayload(heads, "2026-01-31T12:00:00Z")
    assert check_payload(json.loads(canonical.compact(payload.to_json()))) == payload
    assert grew({"graph": ChainHead(3, "graph_v3", "c" * 64)}, heads) == (
        "suite graph: the checkpoint went back from 3 version(s); it may only grow"
    )
    assert grew(heads, {}) is not None and grew({}, heads) is None
    with pytest.raises(Malformed, match="must be an integer"):
        check_payload({"suites": {"graph": {**heads["graph"].to_json(), "versions": True}}, "at": payload.at})


@needs_ssh
def test_list_and_log_rows_keep_their_keys_and_say_a_yanked_version(demo_build: Path, tmp_path: Path) -> None:
    root, key = demo_signed_by_alice(tmp_path, demo_build)
    yanked = run_inprocess("yank", "graph_v1", "--reason", "oracle leaks", "--key", str(key), cwd=root)
    assert yanked.code == 0, yanked.text
    listed = json.loads(run_inprocess("list", "--format", "json", cwd=root).out)["result"]["versions"]
    row = next(r for r in listed if r["version"] == "graph_v1")
    assert list(row) == ["version", "hashes", "pinned_sha", "cut_at", "landed", "dropped", "classes", "status"]
    assert row["status"] == {"status": "yanked", "reason": "oracle leaks", "superseded_by": None}
    logged = json.loads(run_inprocess("log", "--format", "json", cwd=root).out)["result"]["versions"]
    first = next(r for r in logged if r["version"] == "graph_v1")
    assert list(first) == ["version", "cut_at", "pinned_sha", "landed", "dropped", "previous", "moved", "status"]
    assert first["previous"] is None and first["moved"] == []
    text = run_inprocess("list", cwd=root).out
    assert any(line.startswith("graph_v1 ") and line.rstrip().endswith("yanked") for line in text.splitlines())
    log_text = run_inprocess("log", cwd=root).out
    assert any(line.startswith("graph_v1 ") and "first version  [yanked]" in line for line in log_text.splitlines())
