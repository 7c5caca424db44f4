"""The exit codes of every run of freezer, and who decides them.

0 ok, 1 invalid input, 2 usage, 3 freezer's own fault, 130 interrupted, 141 the reader went away:
one function in :mod:`freezer.cli.exits` decides each of them. A fault inside a command is made here
the way a bug would make it, by replacing one of freezer's own functions in this process with one
that raises; nothing outside freezer is replaced.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest

from freezer.domain.release import REPOSITORY

from conftest import REPO, run_inprocess

ISSUES = f"https://github.com/{REPOSITORY}/issues"
OUTPUT_SCHEMA = json.loads((REPO / "schemas" / "output.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A registry as freezer init leaves it: one suite, valid drafts, nothing frozen."""
    root = tmp_path_factory.mktemp("exit-codes") / "registry"
    result = run_inprocess("init", str(root))
    assert result.code == 0, result.text
    return root


def _boom(*_args: object, **_kwargs: object) -> object:
    raise ValueError("a value freezer never expected")


def _interrupt(*_args: object, **_kwargs: object) -> object:
    raise KeyboardInterrupt


@pytest.fixture
def broken_listing(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``freezer list`` (a typer command) fails inside freezer, as a bug in it would."""
    from freezer.query import outcomes

    monkeypatch.setattr(outcomes, "listing", _boom)
    yield


@pytest.fixture
def broken_validate(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``freezer validate`` (answered without typer, for the hooks) fails inside freezer."""
    from freezer.validate import validate

    monkeypatch.setattr(validate, "validate_suite", _boom)
    yield


def _assert_internal(err: str) -> None:
    lines = err.splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("freezer: internal error (ValueError: a value freezer never expected)"), line
    assert "bug in freezer, not in your input" in line and ISSUES in line, line
    assert "Traceback" not in err


@pytest.mark.parametrize("command", ["list", "validate"])
def test_a_fault_inside_a_command_exits_3_with_one_line_that_blames_freezer(
    started: Path, broken_listing: None, broken_validate: None, command: str
) -> None:
    result = run_inprocess(command, cwd=started)
    assert result.code == 3, result.text
    assert result.out == ""
    _assert_internal(result.err)


@pytest.mark.parametrize("command", ["list", "validate"])
def test_a_fault_asked_for_in_json_still_answers_in_json(
    started: Path, broken_listing: None, broken_validate: None, command: str
) -> None:
    result = run_inprocess(command, "--format", "json", cwd=started)
    assert result.code == 3, result.text
    _assert_internal(result.err)
    document = json.loads(result.out)
    jsonschema.Draft202012Validator(OUTPUT_SCHEMA).validate(document)
    assert (document["command"], document["ok"], document["exit_code"]) == (command, False, 3)
    assert document["result"] is None and "bug in freezer" in document["error"]["message"]


def test_freezer_debug_shows_the_traceback_and_still_exits_3(started: Path) -> None:
    # A real process: run_inprocess keeps FREEZER_DEBUG out, as a user's shell normally would.
    script = (
        "import sys\n"
        "from freezer.query import outcomes\n"
        "def boom(*a, **k): raise ValueError('a value freezer never expected')\n"
        "outcomes.listing = boom\n"
        "from freezer.cli import main\n"
        "sys.exit(main(['list']))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=started,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO), "FREEZER_DEBUG": "1", "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 3, done.stderr
    assert done.stderr.startswith("Traceback (most recent call last):"), done.stderr
    assert "in boom" in done.stderr
    assert done.stderr.splitlines()[-1].startswith("freezer: internal error (ValueError:")


@pytest.mark.parametrize("command", ["list", "validate"])
def test_an_interrupt_exits_130(started: Path, monkeypatch: pytest.MonkeyPatch, command: str) -> None:
    from freezer.query import outcomes
    from freezer.validate import validate

    monkeypatch.setattr(outcomes, "listing", _interrupt)
    monkeypatch.setattr(validate, "validate_suite", _interrupt)
    result = run_inprocess(command, cwd=started)
    assert (result.code, result.out, result.err.strip()) == (130, "", "freezer: interrupted"), result.text


def test_invalid_input_exits_1(started: Path, tmp_path: Path) -> None:
    (tmp_path / "freezer.yaml").write_text("suites: 3\n", encoding="utf-8")
    misconfigured = run_inprocess("list", cwd=tmp_path)
    assert misconfigured.code == 1, misconfigured.text
    assert misconfigured.err.startswith("freezer: error: ") and "internal error" not in misconfigured.err
    broken = tmp_path / "broken.yaml"
    broken.write_text("task_id: [unclosed\n", encoding="utf-8")
    invalid = run_inprocess("validate", str(broken), cwd=started)
    assert invalid.code == 1, invalid.text
    assert "broken.yaml" in invalid.out and "internal error" not in invalid.text


@pytest.mark.parametrize(
    "args",
    [
        ["show", "v9"],  # freezer's own usage error: no such version
        ["list", "--no-such-option"],  # click's
        ["no-such-command"],
        ["validate", "missing.yaml"],  # a path that does not exist
        ["--format", "json"],  # an option without a command
    ],
)
def test_usage_errors_exit_2(started: Path, args: list[str]) -> None:
    result = run_inprocess(*args, cwd=started)
    assert result.code == 2, result.text
    assert "freezer: error: " in result.err and "internal error" not in result.text


def test_ok_exits_0(started: Path) -> None:
    assert run_inprocess("schema", "fixture", cwd=started).code == 0
    assert run_inprocess("list", cwd=started).code == 0
    assert run_inprocess("--help", cwd=started).code == 0


# -- one function decides: nothing else in freezer names an exit code ------------------------------

PACKAGE = REPO / "freezer"
HANDLER = PACKAGE / "cli" / "exits.py"
# Programs of their own, run as ``python -m``, not the freezer command: their exit is theirs.
OWN_PROGRAMS = {PACKAGE / "schema" / "compile_schemas.py", PACKAGE / "demo" / "build.py"}


def _exits_in(path: Path, root: Path = REPO) -> list[str]:
    """Every place in ``path`` that picks an exit code: sys.exit/os._exit's parent-side twin
    SystemExit, a typer or click Exit with a code, an EXIT_ constant, and (in freezer/cli) a
    command returning a number."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[tuple[int, str]] = []
    in_cli = path.parent.name == "cli"
    shown = path.relative_to(root)  # once per file: per node, it was most of this test's time
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        where = f"{shown}:{line}"
        if isinstance(node, ast.Call):
            called = ast.unparse(node.func)
            if called in ("sys.exit", "exit", "quit", "SystemExit") and not _passes_main_on(node):
                found.append((line, f"{where}: {ast.unparse(node)}"))
            if called.endswith("Exit") and called != "SystemExit" and (node.args or node.keywords):
                found.append((line, f"{where}: {ast.unparse(node)}"))
        elif _names_an_exit_constant(node) or (in_cli and isinstance(node, ast.Return) and _is_number(node.value)):
            found.append((line, f"{where}: {ast.unparse(node)}"))
    return [place for _, place in sorted(found)]


def _names_an_exit_constant(node: ast.AST) -> bool:
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return name.startswith("EXIT_")


def _passes_main_on(call: ast.Call) -> bool:
    """``raise SystemExit(main())``: the entry point handing on the code the handler chose."""
    return len(call.args) == 1 and isinstance(call.args[0], ast.Call) and ast.unparse(call.args[0].func) == "main"


def _is_number(value: ast.expr | None) -> bool:
    if isinstance(value, ast.UnaryOp):
        value = value.operand
    if isinstance(value, ast.IfExp):
        return _is_number(value.body) or _is_number(value.orelse)
    return isinstance(value, ast.Constant) and isinstance(value.value, int) and not isinstance(value.value, bool)


def test_no_module_but_the_handler_picks_an_exit_code() -> None:
    modules = sorted(p for p in PACKAGE.rglob("*.py") if p != HANDLER and p not in OWN_PROGRAMS)
    assert len(modules) > 100
    found = [place for path in modules for place in _exits_in(path)]
    assert found == []


def test_the_structural_check_sees_what_it_forbids(tmp_path: Path) -> None:
    cli = tmp_path / "cli"
    cli.mkdir()
    sample = cli / "sample.py"
    sample.write_text(
        "import sys, typer\n"
        "def a():\n    sys.exit(2)\n"
        "def b():\n    raise typer.Exit(code=1)\n"
        "def c():\n    return EXIT_INVALID\n"
        "def d(ok):\n    return 0 if ok else 1\n"
        "def e():\n    raise SystemExit(main())\n",
        encoding="utf-8",
    )
    found = _exits_in(sample, tmp_path)
    assert [place.split(": ", 1)[1] for place in found] == [
        "sys.exit(2)",
        "typer.Exit(code=1)",
        "EXIT_INVALID",
        "return 0 if ok else 1",
    ]
