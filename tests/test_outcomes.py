"""Issue 24, item 3: one typed outcome per command, with ``ok`` and ``to_json()``; the CLI prints
``to_json()`` as the JSON document's result and takes ``ok`` for its verdict."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from freezer.demo.registry import DemoResult
from freezer.domain.outcome import Outcome
from freezer.freeze.cutresult import CutResult
from freezer.freeze.nextdraft import NextResult
from freezer.freeze.scaffold import InitResult
from freezer.freeze.status import StatusReport
from freezer.guard.auditreport import AuditReport
from freezer.guard.check import CheckReport
from freezer.query.outcomes import Comparison, Diff, Shown, VersionRows
from freezer.query.results import ResultsReport
from freezer.site.site import Built
from freezer.trust.outcomes import Checkpointed, Signed, StatusEvent, Verified
from freezer.validate.validate import Report

from conftest import Run, run_inprocess

# Every command that prints a JSON document, and the type of its outcome.
OUTCOMES: dict[str, type] = {
    "init": InitResult,
    "validate": Report,
    "status": StatusReport,
    "next": NextResult,
    "cut": CutResult,
    "demo": DemoResult,
    "audit": AuditReport,
    "check": CheckReport,
    "list": VersionRows,
    "log": VersionRows,
    "show": Shown,
    "diff": Diff,
    "compare": Comparison,
    "site": Built,
    "results": ResultsReport,
    "sign": Signed,
    "verify": Verified,
    "yank": StatusEvent,
    "deprecate": StatusEvent,
    "checkpoint": Checkpointed,
}


@pytest.mark.parametrize("command", sorted(OUTCOMES))
def test_every_command_outcome_has_ok_and_to_json(command: str) -> None:
    kind = OUTCOMES[command]
    assert callable(getattr(kind, "to_json", None)), kind
    assert "ok" in {name for klass in kind.__mro__ for name in vars(klass)} | set(
        getattr(kind, "__dataclass_fields__", {})
    ), kind


@pytest.fixture
def demo(demo_build: Path, tmp_path: Path) -> Path:
    target = tmp_path / "demo"
    shutil.copytree(demo_build, target, symlinks=True)
    return target


def _result(run: Run, command: str) -> tuple[dict[str, Any], bool]:
    document = json.loads(run.out)
    assert document["command"] == command
    return document["result"], document["ok"]


def _same(run: Run, command: str, outcome: Outcome) -> None:
    assert isinstance(outcome, OUTCOMES[command])
    assert isinstance(outcome, Outcome)
    printed, ok = _result(run, command)
    assert json.loads(json.dumps(outcome.to_json())) == printed
    assert outcome.ok is ok


def test_to_json_is_what_the_cli_prints(demo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """For a real run of each read-only command: the outcome built by the core, printed by the CLI."""
    from freezer.freeze import status
    from freezer.guard import audit, auditreport, check
    from freezer.query import outcomes
    from freezer.registry import config as config_mod
    from freezer.validate import validate

    monkeypatch.chdir(demo)
    cfg = config_mod.load(None)
    graph, suites = cfg.suite("graph"), list(cfg.suites.values())
    cases: list[tuple[list[str], Outcome]] = [
        (["list"], outcomes.listing(cfg, suites)),
        (["log"], outcomes.history(cfg, suites)),
        (["show", "graph_v2"], outcomes.show(cfg, graph, "graph_v2")),
        (["diff", "graph_v1", "graph_v2"], outcomes.diff(graph, "graph_v1", "graph_v2")),
        (["compare", "graph_v1", "graph_v2"], outcomes.compare(cfg, graph, "graph_v1", "graph_v2", None)),
        (["status"], status.status_of(suites, cfg)),
        (["check"], check.check(cfg, None)),
    ]
    report = validate.Report()
    for one in suites:
        part = validate.validate_suite(one)
        report.files += part.files
        report.sets.extend(part.sets)
        report.problems.extend(part.problems)
    cases.append((["validate"], report))
    audited = audit.audit_suites([(one, None) for one in suites], code=False)
    cases.append((["audit", "--no-code"], auditreport.judge(cfg, audited, strict=False, require_signature=False)))
    for args, outcome in cases:
        _same(run_inprocess(*args, "--format", "json", cwd=demo), args[0], outcome)


def test_a_failing_outcome_says_so_in_ok_and_the_exit_code(demo: Path) -> None:
    from freezer.query import outcomes
    from freezer.registry import config as config_mod

    target = demo / "versions" / "graph_v1" / "manifest.json"
    target.chmod(0o644)
    target.write_bytes(target.read_bytes() + b" ")
    cfg = config_mod.load(demo)
    listed = outcomes.listing(cfg, list(cfg.suites.values()))
    run = run_inprocess("list", "--format", "json", cwd=demo)
    _same(run, "list", listed)
    assert not listed.ok and run.code == 1


def test_commands_that_write_print_their_outcome(demo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """next, cut --dry-run and init on two copies: the core's outcome and the CLI's document agree."""
    from freezer.freeze import cut, nextdraft, scaffold
    from freezer.registry import config as config_mod

    twin = tmp_path / "twin"
    shutil.copytree(demo, twin, symlinks=True)
    monkeypatch.chdir(twin)  # paths are shown relative to the working folder, as the CLI's are
    started = run_inprocess("next", "--suite", "api", "--format", "json", cwd=demo)
    cfg = config_mod.load(twin)
    _same(started, "next", nextdraft.start_next(cfg.root, cfg.suite("api")))

    # Both cuts record the same second as cut_at, so the manifests (and their sha256) agree.
    one_second = time.gmtime()
    monkeypatch.setattr(time, "gmtime", lambda *_: one_second)
    dry = run_inprocess("cut", "v2", "--suite", "graph", "--dry-run", "--format", "json", cwd=demo)
    cfg = config_mod.load(twin)
    outcome = cut.cut(cfg, cfg.suite("graph"), "v2", dry_run=True)
    printed, ok = _result(dry, "cut")
    expected = json.loads(json.dumps(outcome.to_json()))
    assert set(printed["timings"]) == set(expected["timings"])  # the seconds differ run to run
    printed["timings"] = expected["timings"]
    assert (printed, ok) == (expected, outcome.ok)
    assert printed["status"] == "dry-run" and "method" in printed

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    made = run_inprocess("init", "fresh", "--format", "json", cwd=tmp_path / "a")
    printed, ok = _result(made, "init")
    inited = scaffold.init_registry(tmp_path / "b" / "fresh", "bench", "generic", None)
    expected = json.loads(json.dumps(inited.to_json()))
    assert printed["root"] == "fresh" and expected["root"].endswith("fresh")
    assert {**printed, "root": None} == {**expected, "root": None}
    assert ok is inited.ok
