"""Issue 25, class 7: every reader sees a version's life through one verified view of status.jsonl and
checkpoint.json (freezer.trust.verified). An unsigned or unverifiable event is an error, never status;
a version the signed checkpoint contradicts does not load; a yanked version says so wherever it is read.
"""

from __future__ import annotations

import ast
import json
import shutil
import warnings
from pathlib import Path

import pytest
from hostile.status_lines import last_hash, line_of, sign_event, yank_of

import freezer
from freezer.api import CheckpointWarning, StatusLogWarning, YankedWarning
from freezer.domain.errors import IntegrityError

from conftest import REPO, run_inprocess
from registry_helpers import commit_all, demo_signed_by_alice, public_line, ssh_key

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")

# The modules that may read status.jsonl or checkpoint.json themselves: the module that names them (so
# that check sees neither is there without importing a parser), the two parsers, the view every
# reader goes through, the guard that compares them with the base (check) and reports them (audit),
# and the commands that write them (yank, deprecate, checkpoint) and then verify what they wrote.
OWNERS = {
    "freezer/trust/rootfiles.py",
    "freezer/trust/lifecycle.py",
    "freezer/trust/checkpoint.py",
    "freezer/trust/verified.py",
    "freezer/guard/check.py",
    "freezer/guard/auditreport.py",
    "freezer/cli/signing.py",
}
# What reading either file looks like: its name, its parser's entry points, its path constant.
_FILES = ("status.jsonl", "checkpoint.json")
_PARSERS = {
    "lifecycle": {"status_log", "verify_log", "statuses", "_read_log", "_verified"},
    "checkpoint": {"signed_payload", "parse", "verify", "_read"},
    "rootfiles": {"STATUS_LOG", "CHECKPOINT"},
}
_MODULES = {f"freezer.trust.{module}": names for module, names in _PARSERS.items()}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def readings(source: str) -> list[str]:
    """Every place in ``source`` that reads status.jsonl or checkpoint.json other than through the view."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            found += [f"line {node.lineno}: names {name}" for name in _FILES if name in node.value]
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = node.value.id.removesuffix("_mod")
            if node.attr in _PARSERS.get(module, ()):
                found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module in _MODULES:
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in _MODULES[node.module]]
    return found


def test_one_module_owns_the_reading_of_the_status_log_and_the_checkpoint() -> None:
    offenders = {}
    seen = set()
    for path in sorted((REPO / "freezer").rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        found = readings(path.read_text(encoding="utf-8"))
        if found:
            seen.add(rel)
        if found and rel not in OWNERS:
            offenders[rel] = found
    assert not offenders, f"read status.jsonl or checkpoint.json through freezer.trust.verified.view: {offenders}"
    # The scan sees the owners it lets through, so it is not blind.
    assert {"freezer/trust/lifecycle.py", "freezer/trust/checkpoint.py", "freezer/trust/verified.py"} <= seen


@pytest.mark.parametrize(
    "source",
    [
        "from freezer.trust import lifecycle\nknown = lifecycle.status_log(root)\n",
        "from freezer.trust.checkpoint import signed_payload\n",
        "from freezer.trust import checkpoint as checkpoint_mod\ncheckpoint_mod.verify(cfg)\n",
        "data = (root / 'status.jsonl').read_bytes()\n",
        "import json\njson.loads(open(root / 'checkpoint.json').read())\n",
    ],
)
def test_the_ownership_scan_catches_a_reader_of_its_own(source: str) -> None:
    assert readings(source), source


def test_every_reader_imports_the_view() -> None:
    for rel in ("freezer/api.py", "freezer/query/outcomes.py", "freezer/query/results.py", "freezer/site/site.py"):
        assert "verified" in (REPO / rel).read_text(encoding="utf-8"), rel


# --- an event nobody verified -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Path, Path]:
    """The demo, alice in allowed_signers, alice's key and mallory's (not allowed)."""
    base = tmp_path_factory.mktemp("verified-view")
    root, alice = demo_signed_by_alice(base, demo_build)
    return root, alice, ssh_key(base / "mallory")


@pytest.fixture
def reg(signed: tuple[Path, Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    monkeypatch.setenv("FREEZER_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "demo"
    shutil.copytree(signed[0], root, symlinks=True)
    return root, signed[1], signed[2]


def _hand_written(log: Path, version: str, mallory: Path) -> bytes:
    return line_of({**yank_of(version, None, "hand-written"), "sig": "AAAA"})


def _no_signature(log: Path, version: str, mallory: Path) -> bytes:
    return line_of(yank_of(version, None, "no signature at all"))


def _by_mallory(log: Path, version: str, mallory: Path) -> bytes:
    prev = last_hash(log) if log.exists() and log.read_bytes().strip() else None
    return line_of(sign_event(mallory, yank_of(version, prev, "signed by a key not allowed")))


UNVERIFIED = {"hand-written": _hand_written, "no-signature": _no_signature, "by-mallory": _by_mallory}
CASES = [(kind, version) for kind in UNVERIFIED for version in ("graph_v2", "api_v1")]


def _append(root: Path, line: bytes) -> None:
    with (root / "status.jsonl").open("ab") as out:
        out.write(line)


def _load(version: str, root: Path, suite: str) -> tuple[freezer.FrozenSet, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frozen = freezer.load(version, registry=root, suite=suite)
    return frozen, caught


def _json(*args: str, cwd: Path) -> dict:  # type: ignore[type-arg]
    ran = run_inprocess(*args, "--format", "json", cwd=cwd)
    return json.loads(ran.out)  # type: ignore[no-any-return]


@pytest.mark.parametrize(("kind", "version"), CASES, ids=[f"{k}-{v}" for k, v in CASES])
def test_an_unverified_yank_redirects_nothing_and_every_reader_says_so(
    reg: tuple[Path, Path, Path], kind: str, version: str
) -> None:
    root, _, mallory = reg
    _append(root, UNVERIFIED[kind](root / "status.jsonl", version, mallory))
    suite = version.rsplit("_v", 1)[0]
    latest, caught = _load("latest", root, suite)
    assert latest.name == version and latest.status.status == "current"  # not skipped: it is not yanked
    assert latest.unverified and "status.jsonl:1" in latest.unverified[0]
    assert any(w.category is StatusLogWarning for w in caught)
    assert not any(w.category is YankedWarning for w in caught)

    listed = run_inprocess("list", cwd=root)
    assert listed.code == 1
    [row] = [line for line in listed.out.splitlines() if line.startswith(version + " ")]
    assert "✗ unverified event" in row and "yanked" not in row
    as_json = _json("list", cwd=root)
    assert as_json["ok"] is False and as_json["result"]["status_log"]
    [entry] = [r for r in as_json["result"]["versions"] if r["version"] == version]
    assert entry["status"]["status"] == "current"
    assert [p["layer"] for p in entry["problems"]] == ["status"] and entry["problems"][0]["line"] == 1
    assert all("problems" not in r for r in as_json["result"]["versions"] if r["version"] != version)

    shown = run_inprocess("show", version, cwd=root)
    assert shown.code == 1 and f"✗ {version}: an unverified event at status.jsonl:1 is not its status" in shown.out
    assert "⚠ yanked" not in shown.out
    shown_json = _json("show", version, cwd=root)
    assert shown_json["result"]["status"]["status"] == "current" and shown_json["result"]["problems"]

    logged = run_inprocess("log", cwd=root)
    [line] = [line for line in logged.out.splitlines() if line.startswith(version + " ")]
    assert logged.code == 1 and "[✗ unverified event]" in line and "[yanked]" not in line


@pytest.mark.parametrize("version", ["graph_v2", "graph_v1"])
def test_the_site_and_results_check_name_the_unverified_event(
    reg: tuple[Path, Path, Path], tmp_path: Path, version: str
) -> None:
    root, _, mallory = reg
    _append(root, _by_mallory(root / "status.jsonl", version, mallory))
    built = run_inprocess("site", str(tmp_path / "site"), cwd=root)
    assert built.code == 1
    index = json.loads((tmp_path / "site" / "index.json").read_text())
    entries = {v["name"]: v for s in index["suites"] for v in s["versions"]}
    assert entries[version]["status"]["status"] == "current" and "allowed_signers" in entries[version]["problems"][0]
    page = (tmp_path / "site" / "graph" / version / "index.html").read_text()
    assert "✗ unverified" in page and "Status: current" in page
    frozen, _ = _load(version, root, "graph")
    rows = tmp_path / "runs.jsonl"
    task = frozen.landed[0]["task_id"]
    row = {"manifest_sha256": frozen.manifest_sha256, "task_id": task, "arm": "grep-only", "score": 1}
    rows.write_text(json.dumps(row) + "\n")
    checked = run_inprocess("results", "check", str(rows), cwd=root)
    assert checked.code == 1 and f"rows score {version}, named by an event the status log cannot verify" in checked.out


@pytest.mark.parametrize("version", ["graph_v2", "api_v1"])
def test_a_registry_without_allowed_signers_has_no_status_but_a_hand_written_line_is_still_an_error(
    demo_build: Path, tmp_path: Path, version: str
) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    suite = version.rsplit("_v", 1)[0]
    clean, caught = _load("latest", root, suite)  # the unsigned registry works as documented
    assert clean.name == version and not caught and not clean.unverified
    assert run_inprocess("list", cwd=root).code == 0
    _append(root, _hand_written(root / "status.jsonl", version, root))
    forged, caught = _load("latest", root, suite)
    assert forged.name == version and forged.unverified
    assert [w.category for w in caught] == [StatusLogWarning]
    listed = run_inprocess("list", cwd=root)
    assert listed.code == 1 and "✗ unverified event" in listed.out


# --- a version the signed checkpoint contradicts ---------------------------------------------------


def _recut(root: Path, version: str) -> str:
    """Delete ``version`` and cut it again from the drafts: the same name, another manifest."""
    suite, number = version.rsplit("_v", 1)
    before = freezer.load(version, registry=root, suite=suite).manifest_sha256
    shutil.rmtree(root / "versions" / version)
    cut = run_inprocess("cut", f"v{number}", "--suite", suite, cwd=root)
    assert cut.code == 0, cut.text
    return before


@pytest.mark.parametrize("version", ["graph_v2", "api_v1"])
def test_load_refuses_a_version_the_signed_checkpoint_contradicts(reg: tuple[Path, Path, Path], version: str) -> None:
    root, alice, _ = reg
    assert run_inprocess("checkpoint", "--key", str(alice), cwd=root).code == 0
    commit_all(root, "checkpoint")
    signed_sha = _recut(root, version)
    suite = version.rsplit("_v", 1)[0]
    for label in (version, "latest"):
        with pytest.raises(IntegrityError) as refused:
            freezer.load(label, registry=root, suite=suite)
        message = refused.value.message
        assert version in message and signed_sha in message and f"versions/{version} holds" in message
        held = message.split(" holds ")[1].split()[0]
        assert held != signed_sha and len(held) == 64
    listed = run_inprocess("list", cwd=root)
    assert listed.code == 1
    [row] = [line for line in listed.out.splitlines() if line.startswith(version + " ")]
    assert "✗ contradicts the signed checkpoint" in row
    as_json = _json("list", cwd=root)
    [entry] = [r for r in as_json["result"]["versions"] if r["version"] == version]
    assert entry["problems"][0]["layer"] == "checkpoint" and signed_sha in entry["problems"][0]["message"]
    assert as_json["result"]["checkpoint"]
    other = "graph_v1" if suite == "graph" else "graph_v2"
    _, caught = _load(other, root, other.rsplit("_v", 1)[0])  # other versions still load, and say why they warn
    assert [w.category for w in caught] == [CheckpointWarning]


@pytest.mark.parametrize("deleted", ["graph_v2", "api_v1"])
def test_latest_is_refused_after_a_rollback_below_the_checkpoint(reg: tuple[Path, Path, Path], deleted: str) -> None:
    root, alice, _ = reg
    assert run_inprocess("checkpoint", "--key", str(alice), cwd=root).code == 0
    shutil.rmtree(root / "versions" / deleted)
    suite = deleted.rsplit("_v", 1)[0]
    with pytest.raises(Exception) as refused:  # IntegrityError (rollback) or, for api, no version left
        freezer.load("latest", registry=root, suite=suite)
    assert "rollback" in str(refused.value) or "has no version" in str(refused.value)
    assert run_inprocess("list", cwd=root).code == 1
    if suite == "graph":
        assert "rollback" in str(refused.value) and deleted in str(refused.value)
        _, caught = _load("graph_v1", root, "graph")
        assert [w.category for w in caught] == [CheckpointWarning]


@pytest.mark.parametrize("signer", ["mallory", "alice-then-removed"])
def test_a_checkpoint_that_does_not_verify_proves_nothing_and_is_reported(
    reg: tuple[Path, Path, Path], signer: str
) -> None:
    root, alice, mallory = reg
    if signer == "mallory":
        shutil.copy(root / "allowed_signers", root / "allowed_signers.keep")
        (root / "allowed_signers").write_text(f"mallory@example.org {public_line(mallory)}\n")
        assert run_inprocess("checkpoint", "--key", str(mallory), cwd=root).code == 0
        shutil.move(root / "allowed_signers.keep", root / "allowed_signers")
    else:
        assert run_inprocess("checkpoint", "--key", str(alice), cwd=root).code == 0
        (root / "allowed_signers").write_text("")
    frozen, caught = _load("latest", root, "graph")
    assert frozen.name == "graph_v2" and frozen.checkpoint_problems
    assert [w.category for w in caught] == [CheckpointWarning]
    as_json = _json("list", cwd=root)
    assert as_json["ok"] is False and as_json["result"]["checkpoint"][0]["layer"] == "checkpoint"


# --- a yanked version -------------------------------------------------------------------------------


@pytest.mark.parametrize(("yanked", "other"), [("graph_v2", "graph_v1"), ("graph_v1", "graph_v2")])
def test_a_yanked_version_loads_by_name_with_a_warning_and_compare_says_so(
    reg: tuple[Path, Path, Path], yanked: str, other: str
) -> None:
    root, alice, _ = reg
    ran = run_inprocess("yank", yanked, "--reason", "the oracle leaks", "--key", str(alice), cwd=root)
    assert ran.code == 0, ran.text
    latest, _ = _load("latest", root, "graph")
    assert latest.name == ("graph_v1" if yanked == "graph_v2" else "graph_v2")
    by_name, caught = _load(yanked, root, "graph")
    assert by_name.status.status == "yanked" and by_name.status.reason == "the oracle leaks"
    assert [w.category for w in caught] == [YankedWarning] and "the oracle leaks" in str(caught[0].message)
    compared = run_inprocess("compare", "graph_v1", "graph_v2", cwd=root)
    assert compared.code == 0, compared.text
    assert f"⚠ {yanked} is yanked: the oracle leaks" in compared.out and f"⚠ {other} is" not in compared.out
    as_json = _json("compare", "graph_v1", "graph_v2", cwd=root)
    assert as_json["result"]["statuses"][yanked]["status"] == "yanked"
    assert as_json["result"]["statuses"][other]["status"] == "current"
