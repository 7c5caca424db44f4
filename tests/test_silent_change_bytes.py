"""Issue 25, the lead's held-out list, cases 3 (an asset's file mode), 4 (text that looks the same)
and 5 (a fixture file's bytes without its fields): each got through when first written here (as
a strict xfail) and holds now. The other cases are in test_silent_change_cases.py."""

from __future__ import annotations

import json
import stat
import unicodedata
from pathlib import Path

import pytest
from test_silent_change_cases import (
    _cut,
    _delta,
    _draft_v3,
    _edit,
)

from conftest import run_inprocess

ASSET = "assets/add-timeout-flag/expected.patch"


def _fixture_lines(delta: str, task_id: str) -> list[str]:
    """The §Delta lines under ``- `task_id`:`` in the Changed list."""
    lines = delta.splitlines()
    start = lines.index(f"- `{task_id}`:")
    found = []
    for line in lines[start + 1 :]:
        if not line.startswith("  "):
            break
        found.append(line)
    return found


def _as_seen(text: str) -> str:
    """What a reader sees: composed characters, no format characters, any blank as one space."""
    visible = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf")
    return " ".join(visible.split())


# 3. An asset's execute bit, bytes unchanged.
@pytest.mark.parametrize("gains", [True, False])
def test_case3_an_asset_whose_execute_bit_flips_is_a_changed_asset(api: Path, gains: bool) -> None:
    asset = api / "drafts/api" / ASSET
    asset.chmod(0o644 if gains else 0o755)
    _cut(api, "v1", "--suite", "api")
    asset.chmod(0o755 if gains else 0o644)
    _edit(api / "drafts/api/version.yaml", "version: 1\n", "version: 2\n")
    _cut(api, "v2", "--suite", "api")
    recorded = json.loads((api / "versions/api_v2/delta.json").read_text())
    # Delta format 5: add-timeout-flag names the asset, so its mode moves that fixture (and the
    # fixture set), not the suite's assets dimension.
    assert "fixture set" in recorded["moved"] and "assets" not in recorded["moved"], recorded["moved"]
    assert recorded["assets"]["claimed"] == {ASSET: ["add-timeout-flag"]}
    assert recorded["fixtures"]["changed_through_files"] == [{"task_id": "add-timeout-flag", "files": [ASSET]}]
    assert ASSET in json.dumps(recorded["assets"]["changed"])
    delta = _delta(api, "api_v2")
    assert ASSET in delta and "mode" in delta


def test_case3_the_frozen_copy_of_an_executable_asset_keeps_its_execute_bit(api: Path) -> None:
    (api / "drafts/api" / ASSET).chmod(0o755)
    _cut(api, "v1", "--suite", "api")
    frozen = (api / "versions/api_v1" / ASSET).stat().st_mode
    assert frozen & stat.S_IXUSR, oct(frozen)
    assert not frozen & stat.S_IWUSR, oct(frozen)


# 4. Text that looks the same and is not: §Delta must make the difference visible.
@pytest.mark.parametrize(
    ("old", "new"),
    [
        (unicodedata.normalize("NFC", "Café"), unicodedata.normalize("NFD", "Café")),
        ("the runtime pipeline", "the runtime\u00a0pipeline"),
        ("ToolContext", "Tool\u200bContext"),
    ],
)
def test_case4_an_invisible_text_change_is_visible_in_delta(api: Path, old: str, new: str) -> None:
    fixture = api / "drafts/api/fixtures/explain-pipeline.yaml"
    _edit(fixture, "Where does", f"{unicodedata.normalize('NFC', 'Café')}: where does")
    _cut(api, "v1", "--suite", "api")
    _edit(fixture, old, new)
    _edit(api / "drafts/api/version.yaml", "version: 1\n", "version: 2\n")
    _cut(api, "v2", "--suite", "api")
    delta = _delta(api, "api_v2")
    assert "these dimensions moved: **fixture set**" in delta  # it is called changed today
    entry = " ".join(_fixture_lines(delta, "explain-pipeline"))
    assert "`$.question`" in entry, entry
    shown = entry.split("`$.question`:", 1)[1]
    before, arrow, after = shown.partition(" → ")
    assert arrow and _as_seen(before) != _as_seen(after), entry


# 5. Bytes moved, parsed data did not: §Delta names the file whose bytes changed, while what the
# fixture says stays unchanged (and its scores comparable).
@pytest.mark.parametrize("change", ["crlf", "comment"])
def test_case5_a_bytes_only_fixture_change_is_named(v2_frozen: Path, change: str) -> None:
    _draft_v3(v2_frozen)
    rel = "fixtures/locate-loopaudit-variants.yaml"
    fixture = v2_frozen / "drafts/graph" / rel
    data = fixture.read_bytes()
    fixture.write_bytes(data.replace(b"\n", b"\r\n") if change == "crlf" else data + b"# reviewed\n")
    _cut(v2_frozen, "v3")
    manifests = [json.loads((v2_frozen / f"versions/graph_v{n}/manifest.json").read_text()) for n in (2, 3)]
    assert json.dumps(manifests[0]["files"][rel]) != json.dumps(manifests[1]["files"][rel])  # the bytes moved
    recorded = json.loads((v2_frozen / "versions/graph_v3/delta.json").read_text())
    assert recorded["fixtures"]["files_changed_in_bytes"] == [rel]
    assert "locate-loopaudit-variants" in recorded["fixtures"]["unchanged"]  # what it says did not change
    assert "fixture set" in recorded["moved"] and "fixture set" not in recorded["unmoved"]
    delta = _delta(v2_frozen, "graph_v3")
    assert "No fixture present in both versions changed." not in delta
    assert f"- `{rel}`" in delta and "Fixture files whose bytes changed (1)" in delta, delta
    diff = run_inprocess("diff", "graph_v2", "graph_v3", cwd=v2_frozen)
    assert f"fixture file {rel}: its bytes changed" in diff.out, diff.text
    compare = run_inprocess("compare", "graph_v2", "graph_v3", "--format", "json", cwd=v2_frozen)
    arms = json.loads(compare.out)["result"]["arms"]
    excluded = {a["arm"]: a["excluded"].get("locate-loopaudit-variants") or "" for a in arms}
    assert excluded["grep-only"] == "", excluded  # the same fixture: its scores pool
    assert "changed what the agent sees" not in excluded["graph-tools"], excluded  # (only the build is unknown)
    audit = run_inprocess("audit", "v3", cwd=v2_frozen)
    assert audit.code == 0, audit.text
