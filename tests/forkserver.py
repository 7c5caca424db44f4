"""A fresh freezer process for each command, without the interpreter's start.

A hostile-input case runs the CLI in a process of its own, under an address-space limit, a timeout
and sometimes as user nobody: the limits must bound freezer, not the test. Started with
``python -m freezer``, each such process spends most of its CPU starting the interpreter and
importing freezer before the command does anything. Here one server process per test process
imports freezer once and forks a child per command (as a zygote does): each child starts from the
same untouched state, in its own process, with the limits, working directory, environment and
streams the command would have had, and exits with the command's exit status. Several commands
can be forked together, before any is waited for: a race between processes that overlap in the
commands themselves rather than in their interpreters' start.

What a fork cannot give, the callers keep ``run_cli`` for: a variable the interpreter reads only at
its start (conftest.START_UP_VARIABLES), and the start-up itself.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pkgutil
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

NOBODY = 65534
_TESTS = Path(__file__).resolve().parent
_REPO = _TESTS.parent


@dataclass
class Ran:
    code: int  # the exit status, or -N: killed by signal N
    out: bytes
    err: bytes
    timed_out: bool
    peak_kib: int  # the child's largest resident size
    cpu_seconds: float  # the child's CPU, with that of the processes it waited for (git, ssh-keygen)


class ForkServer:
    """The test side: one server, started on first use, asked one command at a time."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        # The CPU of every child so far: the server, not this process, waits for them, so the tests'
        # cost log (conftest, FREEZER_TEST_COSTS) reads it here.
        self.children_cpu_seconds = 0.0

    def _server(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            env = {**os.environ, "PYTHONPATH": str(_REPO)}
            env.pop("FREEZER_DEBUG", None)
            self._proc = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--serve"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                cwd=_REPO,
                env=env,
            )
        return self._proc

    def run_together(
        self,
        commands: list[list[str]],
        cwd: Path,
        env: dict[str, str],
        memory_limit: int | None = None,
        as_nobody: bool = False,
        timeout: float = 120,
    ) -> list[Ran]:
        """Each command in a process of its own, all forked before any is waited for (a race); ``timeout``
        counts from the first fork, for them all."""
        server = self._server()
        assert server.stdin is not None and server.stdout is not None
        with tempfile.TemporaryDirectory() as scratch:
            outputs = [(Path(scratch) / f"out-{n}", Path(scratch) / f"err-{n}") for n in range(len(commands))]
            requests = [
                {
                    "args": args,
                    "cwd": str(cwd),
                    "env": env,
                    "memory_limit": memory_limit,
                    "as_nobody": as_nobody,
                    "out": str(out),
                    "err": str(err),
                }
                for args, (out, err) in zip(commands, outputs, strict=True)
            ]
            server.stdin.write(json.dumps({"together": requests, "timeout": timeout}).encode() + b"\n")
            server.stdin.flush()
            reply = server.stdout.readline()
            if not reply:
                raise RuntimeError(f"the fork server ended (exit {server.wait()})")
            answers = json.loads(reply)
            ran = [
                Ran(
                    answer["code"],
                    out.read_bytes(),
                    err.read_bytes(),
                    answer["timed_out"],
                    answer["peak_kib"],
                    answer["cpu_seconds"],
                )
                for answer, (out, err) in zip(answers, outputs, strict=True)
            ]
            self.children_cpu_seconds += sum(r.cpu_seconds for r in ran)
            return ran

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            self._proc.wait(timeout=30)
        if self._proc is not None and self._proc.stdout is not None:
            self._proc.stdout.close()


def _preload() -> None:
    """Import every module of freezer, so that no child pays for one (``__main__`` runs the CLI), and
    fill the caches a process fills on its first command whatever the command's input: each of the
    thousands of children would otherwise spend ~35 ms building the click command from typer's app,
    ~20 ms parsing the shipped METHOD.md template for where it places §Delta and ~3 ms building the
    table of Unicode's confusables that a task id is compared through."""
    import freezer

    for module in pkgutil.walk_packages(freezer.__path__, "freezer."):
        if not module.name.endswith("__main__"):
            __import__(module.name)
    from freezer.cli.app import root_command
    from freezer.domain.taskid import _prototypes
    from freezer.render.render import _shipped
    from freezer.validate.template import placement

    try:
        root = root_command()
        for name in root.list_commands(None):  # the root builds a command when it is first looked up
            root.get_command(None, name)
        _prototypes()
        placement(_shipped())
    except Exception:  # noqa: BLE001 - warming only saves time: a child that needs what failed meets it in its test
        pass


def _child(request: dict[str, object]) -> None:
    """In the forked child: become the process ``python -m freezer ARGS`` would have been."""
    code = 1
    try:
        # The output files are opened before the user changes, as a shell opens a redirection.
        stdin = os.open(os.devnull, os.O_RDONLY)
        os.dup2(stdin, 0)
        for fd, path in ((1, request["out"]), (2, request["err"])):
            target = os.open(str(path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(target, fd)
            os.close(target)
        limit = request["memory_limit"]
        if isinstance(limit, int):
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        if request["as_nobody"]:
            os.setgid(NOBODY)
            os.setuid(NOBODY)
        os.chdir(str(request["cwd"]))
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update(env)
        # As the interpreter opens them at its start: the same encoding and error handler, on the new files.
        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding=sys.stdin.encoding)
        sys.stdout = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
            encoding=sys.stdout.encoding,
            errors=sys.stdout.errors,
        )
        sys.stderr = io.TextIOWrapper(
            io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
            encoding=sys.stderr.encoding,
            errors=sys.stderr.errors,
            line_buffering=True,
        )
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)  # as the interpreter leaves it
        from freezer.cli import main

        args = request["args"]
        assert isinstance(args, list)
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(OSError):
                stream.flush()
    finally:
        os._exit(code)


def _wait(pid: int, deadline: float) -> tuple[int, bool, int, float]:
    """The child's exit status (or -signal), whether it was killed for running past ``deadline`` (on
    time.monotonic()), its peak resident size in KiB, and its CPU seconds (the processes it waited for
    included)."""
    handle = os.pidfd_open(pid)
    try:
        timed_out = not select.select([handle], [], [], max(0.0, deadline - time.monotonic()))[0]
        if timed_out:
            os.kill(pid, signal.SIGKILL)
    finally:
        os.close(handle)
    _, status, usage = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), timed_out, usage.ru_maxrss, usage.ru_utime + usage.ru_stime


def serve() -> None:
    _preload()
    requests = sys.stdin.buffer
    replies = sys.stdout.buffer
    for line in requests:
        batch = json.loads(line)
        deadline = time.monotonic() + float(batch["timeout"])
        sys.stdout.flush()
        sys.stderr.flush()
        pids = []
        for request in batch["together"]:
            pid = os.fork()
            if pid == 0:
                requests.close()
                _child(request)
            pids.append(pid)
        answers = []
        for pid in pids:
            code, timed_out, peak_kib, cpu_seconds = _wait(pid, deadline)
            answers.append({"code": code, "timed_out": timed_out, "peak_kib": peak_kib, "cpu_seconds": cpu_seconds})
        replies.write(json.dumps(answers).encode() + b"\n")
        replies.flush()


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    serve()
