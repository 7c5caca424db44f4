"""Issue 23, class 11: output that cannot be written as asked never crashes freezer.

Every case runs the real CLI as a subprocess, since the point is what the
interpreter does with a real file descriptor: an encoding that cannot hold a
mark or a character of data (PYTHONIOENCODING=ascii), a device that is full
(/dev/full), a pipe whose reader has gone, a descriptor that is closed. The
output must degrade (marks spelt in ASCII, other characters as \\uXXXX, JSON
still valid), and a write that fails gives one message on stderr (none for a
closed pipe, exit 141), never a traceback nor Python's "Exception ignored" at
exit.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

# (command, whether it takes --format json): every read-only command, and one that writes (site).
COMMANDS = [
    (["--version"], False),
    (["--help"], False),
    (["list"], True),
    (["show", "v2", "-s", "graph"], True),
    (["diff", "v1", "v2", "-s", "graph"], True),
    (["compare", "v1", "v2", "-s", "graph"], True),
    (["log"], True),
    (["schema", "results"], False),
    (["validate"], True),
    (["status"], True),
    (["attest", "v2", "-s", "graph"], False),
    (["verify"], True),
    (["audit", "--no-code"], True),
    (["check"], True),
    (["results", "check", "RESULTS"], True),
    (["show", "v9", "-s", "graph"], True),  # a usage error: its message goes to stderr, and JSON to stdout
]
FULL = "freezer: error: writing the output: No space left on device"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> Path:
    root = tmp_path_factory.mktemp("r3output") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    import freezer

    manifest = freezer.load("graph_v2", registry=root).manifest_sha256
    row = {"manifest_sha256": manifest, "task_id": "locate-loopaudit-variants", "arm": "grep-only", "score": 1}
    # Data beyond ASCII: a run named with an accent and an emoji.
    rows = [{**row, "run": "modèle-😀"}, {**row, "run": "m2", "score": 0.5}]
    (root / "results.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    return root


def _args(command: list[str], root: Path, fmt: str | None) -> list[str]:
    args = [str(root / "results.jsonl") if arg == "RESULTS" else arg for arg in command]
    return [*args, "--format", fmt] if fmt else args


# The default run covers these; the rest of the matrix is slow-marked (about a minute of subprocesses).
FAST = (["--version"], ["validate"], ["results", "check", "RESULTS"], ["show", "v9", "-s", "graph"])


def _cases() -> list[object]:
    return [
        pytest.param(
            command,
            fmt,
            id=" ".join(command) + (f" -f {fmt}" if fmt else ""),
            marks=() if tuple(command) in {tuple(c) for c in FAST} else pytest.mark.slow,
        )
        for command, takes_json in COMMANDS
        for fmt in ([None, "json"] if takes_json else [None])
    ]


def _run(
    args: list[str], cwd: Path, *, stdout: int | object = subprocess.PIPE, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    full_env.pop("FREEZER_DEBUG", None)
    full_env.pop("PYTHONIOENCODING", None)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "freezer", *args],
        cwd=cwd,
        stdout=stdout,  # type: ignore[arg-type]
        stderr=subprocess.PIPE,
        env=full_env,
        timeout=120,
    )


def _assert_no_crash(stderr: str) -> None:
    for sign in ("Traceback", "Exception ignored", "internal error", "UnicodeEncodeError"):
        assert sign not in stderr, stderr


@pytest.mark.parametrize(("command", "fmt"), _cases())
def test_an_ascii_only_output_degrades_and_never_crashes(demo: Path, command: list[str], fmt: str | None) -> None:
    args = _args(command, demo, fmt)
    utf8 = _run(args, demo, env={"PYTHONIOENCODING": "utf-8"})
    ascii_run = _run(args, demo, env={"PYTHONIOENCODING": "ascii"})
    stderr = ascii_run.stderr.decode("ascii")  # raises if a byte beyond ASCII was written
    _assert_no_crash(stderr)
    assert ascii_run.returncode == utf8.returncode, stderr
    out = ascii_run.stdout.decode("ascii")
    if fmt == "json" or command[0] in ("schema", "attest"):
        # Still the same JSON document: characters beyond ASCII are \\uXXXX escapes inside its strings.
        assert json.loads(out) == json.loads(utf8.stdout.decode("utf-8"))
    else:
        for mark in ("✓", "✗", "⚠", "→", "…"):
            assert mark not in out
        if "✓" in utf8.stdout.decode("utf-8"):
            assert "\nOK " in "\n" + out or "  OK " in out


def test_ascii_marks_and_escaped_data_read_sensibly(demo: Path) -> None:
    result = _run(["results", "check", str(demo / "results.jsonl")], demo, env={"PYTHONIOENCODING": "ascii"})
    out = result.stdout.decode("ascii")
    assert result.returncode == 0
    assert "  graph_v2  mod\\u00e8le-\\ud83d\\ude00: 1/1 passed, mean score 1.000" in out
    assert out.endswith("OK 2 row(s) can be compared as they are\n")
    latin = _run(["results", "check", str(demo / "results.jsonl")], demo, env={"PYTHONIOENCODING": "latin-1"})
    text = latin.stdout.decode("latin-1")
    assert "modèle-\\ud83d\\ude00" in text  # what Latin-1 holds is kept
    compare = _run(["compare", "v1", "v2", "-s", "graph"], demo, env={"PYTHONIOENCODING": "ascii"})
    assert "graph_v1 -> graph_v2" in compare.stdout.decode("ascii") or "->" in compare.stdout.decode("ascii")
    assert "FAIL " in compare.stdout.decode("ascii")


@pytest.mark.parametrize(("command", "fmt"), _cases())
def test_a_full_device_gets_one_message(demo: Path, command: list[str], fmt: str | None) -> None:
    with open("/dev/full", "wb") as full:
        result = _run(_args(command, demo, fmt), demo, stdout=full)
    stderr = result.stderr.decode()
    _assert_no_crash(stderr)
    lines = stderr.splitlines()
    if command[1:2] == ["v9"]:
        # The usage error is said first; in text nothing goes to stdout, so that is all (exit 2),
        # while its JSON could not be written (exit 1, and a second line says so).
        assert lines[0].startswith("freezer: error: graph_v9 is not frozen in ")
        assert (result.returncode, lines[1:]) == ((1, [FULL]) if fmt == "json" else (2, [])), stderr
    else:
        assert (result.returncode, lines) == (1, [FULL]), stderr


@pytest.mark.parametrize(("command", "fmt"), _cases())
def test_a_reader_gone_is_exit_141_in_silence(demo: Path, command: list[str], fmt: str | None) -> None:
    read, write = os.pipe()
    os.close(read)  # the reader went away before the first byte
    try:
        result = _run(_args(command, demo, fmt), demo, stdout=write)
    finally:
        os.close(write)
    stderr = result.stderr.decode()
    _assert_no_crash(stderr)
    if command[1:2] == ["v9"] and fmt is None:  # a usage error in text writes to stderr only
        assert result.returncode == 2, stderr
    else:
        assert result.returncode == 141, stderr
    if command[1:2] != ["v9"]:
        assert stderr == ""


@pytest.mark.parametrize("command", [["--version"], ["validate"], ["validate", "-f", "json"], ["show", "v9"]])
def test_closed_descriptors(demo: Path, command: list[str]) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    line = " ".join([sys.executable, "-m", "freezer", *command])
    closed_out = subprocess.run(["sh", "-c", f"exec {line} >&-"], cwd=demo, capture_output=True, text=True, env=env)
    assert closed_out.returncode == 2
    assert closed_out.stderr == "freezer: error: standard output is closed; redirect it (e.g. >/dev/null) instead\n"
    closed_err = subprocess.run(["sh", "-c", f"exec {line} 2>&-"], cwd=demo, capture_output=True, text=True, env=env)
    assert "Traceback" not in closed_err.stdout and "internal error" not in closed_err.stdout
    assert closed_err.returncode == (2 if command == ["show", "v9"] else 0)
    both = subprocess.run(["sh", "-c", f"exec {line} >/dev/full 2>/dev/full"], cwd=demo, env=env, timeout=120)
    assert both.returncode == 1  # nothing could be said anywhere; still no exit 120 from the interpreter
