from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest
from forkserver import ForkServer, Ran

REPO = Path(__file__).resolve().parent.parent


def _memory_backed_temp() -> None:
    """Make the tests' temporary files (tmp_path, mkdtemp) on a memory-backed file system when the
    machine has one and TMPDIR names none: a cut syncs the file system it writes (syncfs), and on a
    disk shared by two busy test workers each sync waits for the other's writes, which took half the
    wall time of the cut-heavy tests. A tmpfs is a real file system: links, modes, FIFOs and
    renames behave as on disk."""
    if os.environ.get("TMPDIR"):
        return
    shm = Path("/dev/shm")
    try:
        usable = shm.is_dir() and os.access(shm, os.W_OK | os.X_OK) and shutil.disk_usage(shm).free > 4 << 30
    except OSError:
        return
    if usable:
        os.environ["TMPDIR"] = str(shm)
        tempfile.tempdir = None  # forget a directory chosen before this ran


_memory_backed_temp()
EXAMPLES = REPO / "examples"
V2 = EXAMPLES / "graph" / "v2"

# Inspect comes with the dev extra (it is optional for users). Looked up, not imported: importing
# inspect_ai takes about 1.5 s, which every xdist worker paid while collecting a module that skipped
# at import, even in a lane that deselects it; a test that needs Inspect imports it when it runs.
needs_inspect = pytest.mark.skipif(find_spec("inspect_ai") is None, reason="inspect_ai is not installed (dev extra)")

# The tests play a developer at a terminal. The CI machine that runs them sets CI (and may set
# GitHub's variables), which would switch freezer to its CI behaviour (a required base for
# check, GitHub annotations, colour rules). Tests that need those set them explicitly.
for _variable in (
    "CI",
    "GITHUB_ACTIONS",
    "GITHUB_BASE_REF",
    "GITHUB_HEAD_REF",
    "GITHUB_EVENT_NAME",
    "GITHUB_EVENT_PATH",
    "NO_COLOR",
    "FORCE_COLOR",
):
    os.environ.pop(_variable, None)


@dataclass
class Run:
    code: int
    out: str
    err: str
    peak_kib: int = 0  # run_forked: the process's largest resident size
    out_bytes: bytes = b""  # run_forked: stdout as written, for a command that prints bytes (attest --pae)

    @property
    def text(self) -> str:
        return self.out + self.err


NOBODY = 65534


def become_nobody() -> None:
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def nobody_can_run_python() -> bool:
    """Root reads every file, so unreadable files can only be tested as another user, if it can run us."""
    if os.geteuid() != 0:
        return False
    try:
        probe = subprocess.run(
            [sys.executable, "-c", "import freezer"],
            preexec_fn=become_nobody,
            capture_output=True,
            env={**os.environ, "PYTHONPATH": str(REPO)},
            check=False,
        )
    except OSError:
        return False
    return probe.returncode == 0


def make_traversable(root: Path) -> None:
    """Let user nobody reach and read ``root`` and everything in it (tmp_path folders are private)."""
    for path in [root, *root.parents]:
        if str(path) in ("/", "/tmp"):
            break
        path.chmod(path.stat().st_mode | 0o005)
    for path in root.rglob("*"):
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | 0o005)


def run_probe(code: str, cwd: Path) -> str:
    """What the Python ``code`` prints in a fresh interpreter that imports freezer from the tree under
    test: for a question only a new process can answer, such as what a command imported."""
    ran = subprocess.run(
        [sys.executable, "-c", code],
        cwd=cwd,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    return ran.stdout


def run_cli(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,
    as_nobody: bool = False,
) -> Run:
    """Run the real CLI in a subprocess, as a user would."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    full_env.pop("FREEZER_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "freezer", *args],
        cwd=cwd or REPO,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=become_nobody if as_nobody else None,
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


_FORK_SERVER = ForkServer()


def run_forked(
    *args: str,
    cwd: Path,
    env: dict[str, str] | None = None,
    memory_limit: int | None = None,
    as_nobody: bool = False,
    timeout: float = 120,
    kill_after: float | None = None,
) -> Run:
    """Run the real CLI in a process of its own, as run_cli does, forked from a server that imported
    freezer once (tests/forkserver.py): the limits bound that process alone. Not for what only an
    interpreter's start reads (START_UP_VARIABLES, checked against ``env``): use run_cli.

    ``kill_after``: SIGKILL the process after that many seconds, as ``kill -9`` would (its code is
    then -9 if it had not ended), instead of failing the test as a run past ``timeout`` does."""
    limit = timeout if kill_after is None else kill_after
    [ran] = _fork(args, cwd=cwd, env=env, memory_limit=memory_limit, as_nobody=as_nobody, timeout=limit)
    return _finished(args, ran, timeout) if kill_after is None else _run_of(ran)


def run_forked_together(
    *commands: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> list[Run]:
    """Each command as run_forked runs it, in a process of its own, all forked at once and then
    waited for: a race whose processes overlap in the commands themselves, not in an interpreter's start."""
    runs = _fork(*commands, cwd=cwd, env=env, memory_limit=None, as_nobody=False, timeout=timeout)
    return [_finished(args, ran, timeout) for args, ran in zip(commands, runs, strict=True)]


def _fork(
    *commands: Sequence[str],
    cwd: Path,
    env: dict[str, str] | None,
    memory_limit: int | None,
    as_nobody: bool,
    timeout: float,
) -> list[Ran]:
    changed = {k for k, v in (env or {}).items() if os.environ.get(k) != v}
    assert not START_UP_VARIABLES & changed - {"PYTHONPATH"}, f"{sorted(START_UP_VARIABLES & changed)}: use run_cli"
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    full_env.pop("FREEZER_DEBUG", None)
    return _FORK_SERVER.run_together([list(c) for c in commands], cwd, full_env, memory_limit, as_nobody, timeout)


def _finished(args: Sequence[str], ran: Ran, timeout: float) -> Run:
    if ran.timed_out:
        pytest.fail(f"freezer {' '.join(args)} ran past {timeout}s and was killed: {(ran.out + ran.err)[-500:]!r}")
    return _run_of(ran)


def _run_of(ran: Ran) -> Run:
    out, err = ran.out.decode("utf-8", errors="replace"), ran.err.decode("utf-8", errors="replace")
    return Run(ran.code, out, err, ran.peak_kib, ran.out)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto`` (pyproject.toml's addopts): one worker more than the cores this process may use. A
    worker waits on the processes its tests start (git, the CLI, ssh-keygen) for part of its time, and
    a third worker fills that on two cores: the default lane took 178-182 s against 187-193 s with
    two, in two pairs of runs one after the other, each order once (2026-12-03)."""
    return len(os.sched_getaffinity(0)) + 1


def pytest_sessionfinish(session: pytest.Session) -> None:
    _FORK_SERVER.close()


def sampled_corpus(cases: Sequence[Any], ids: Sequence[str] | None = None, unpack: bool = False) -> list[Any]:
    """A hostile-input corpus as ``pytest.mark.parametrize`` values: the first case runs in the default
    lane and the others are marked slow, as the README files the corpora, so the default lane still
    runs each test once and CI's slow lane runs every case. ``unpack``: each case holds the values of
    several arguments."""
    names: Sequence[str | None] = ids if ids is not None else [None] * len(cases)
    return [
        pytest.param(*(case if unpack else (case,)), id=name, marks=() if index == 0 else pytest.mark.slow)
        for index, (case, name) in enumerate(zip(cases, names, strict=True))
    ]


def assert_clean_failure(result: Run, code: int = 1) -> None:
    assert result.code == code, result.text
    assert "Traceback" not in result.text, result.text
    assert "internal error" not in result.text, result.text


# Debian's chromium, which the site's browser tests drive through Playwright (which downloads nothing).
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium for a test module (each test opens its own pages in it), or None where
    chromium is not installed (the browser tests skip; others run the checks that need none)."""
    if CHROMIUM is None:
        yield None
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture
def v2_copy(tmp_path: Path) -> Path:
    target = tmp_path / "v2"
    shutil.copytree(V2, target)
    return target


@pytest.fixture(scope="session")
def demo_build(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``freezer demo``'s registry, built once per test process: copy it (shutil.copytree with
    symlinks=True) rather than building it again. Nothing in it names its own folder."""
    from registry_helpers import pack_git_objects  # registry_helpers imports conftest

    root = tmp_path_factory.mktemp("demo-build") / "demo"
    result = run_inprocess("demo", str(root))
    assert result.code == 0, result.text
    pack_git_objects(root)
    return root


@pytest.fixture(scope="session")
def cache_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(scope="session")
def reg_build(tmp_path_factory: pytest.TempPathFactory, cache_root: Path) -> Path:
    """``reg``'s registry, built once per test process: a copy took 14 ms where a build (a copy of
    the sample repository, the drafts, ``git init`` and a commit) took 24, and ``reg`` is the most used
    fixture. The commit's dates are fixed, so every build is the same. Nothing in it names its own folder."""
    from registry_helpers import make_registry, pack_git_objects  # registry_helpers imports conftest

    root = make_registry(tmp_path_factory.mktemp("reg-build"), cache_root)
    pack_git_objects(root)
    return root


@pytest.fixture
def reg(tmp_path: Path, reg_build: Path) -> Path:
    """A git registry over a copy of the sample repository, with the v1 drafts: a copy of ``reg_build``."""
    root = tmp_path / "registry"
    shutil.copytree(reg_build, root, symlinks=True)
    return root


@pytest.fixture(scope="session")
def v2_frozen_build(tmp_path_factory: pytest.TempPathFactory, cache_root: Path) -> Path:
    """The tests' registry with graph_v1 and graph_v2 cut and committed, built once per test process:
    the two cuts were most of v2_frozen's cost. Nothing in it names its own folder."""
    from registry_helpers import commit_all, make_registry, pack_git_objects, set_drafts  # imports conftest

    root = make_registry(tmp_path_factory.mktemp("v2-frozen-build"), cache_root)
    for label in ("v1", "v2"):
        if label == "v2":
            set_drafts(root, "v2")
        result = run_inprocess("cut", label, cwd=root)
        assert result.code == 0, result.text
    commit_all(root, "freeze v1 and v2")
    pack_git_objects(root)
    return root


@pytest.fixture
def v2_frozen(tmp_path: Path, v2_frozen_build: Path) -> Path:
    """The tests' registry (in ``reg``'s folder) with graph_v1 and graph_v2 cut from the examples and
    committed: a copy of ``v2_frozen_build``. Not built on ``reg``, which it would only replace."""
    root = tmp_path / "registry"
    shutil.copytree(v2_frozen_build, root, symlinks=True)
    return root


@pytest.fixture
def api(reg: Path) -> Path:
    """The tests' registry with the generic example suite beside the graph suite."""
    from registry_helpers import API_SUITE, commit_all

    config = reg / "freezer.yaml"
    config.write_text(config.read_text() + API_SUITE)
    shutil.copytree(EXAMPLES / "generic" / "v1", reg / "drafts" / "api")
    commit_all(reg, "api drafts")
    return reg


# What only an interpreter's start reads (the streams' encoding, the locale, a module constant):
# a test that sets one of these is about start-up and needs run_cli's fresh process.
START_UP_VARIABLES = frozenset(
    {"PYTHONIOENCODING", "PYTHONUTF8", "PYTHONPATH", "LANG", "LC_ALL", "LC_CTYPE", "FREEZER_RENDER_SECONDS"}
)


# What huggingface_hub reads once, when it is imported (its module constants): freezer lock imports it
# in the first in-process run that locks a dataset, and a later run would not see a new value. A test
# that sets one runs lock in a fresh process (run_forked), as a user's lock is.
HUB_VARIABLES = frozenset({"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE", "HF_HOME", "HF_ENDPOINT", "HF_HUB_OFFLINE"})


# What freezer remembers that depends only on its arguments' content or on files the package ships
# (a compiled template, a shipped schema): a fresh process would compute the same answer,
# so the in-process runs keep it. Compiling them again on every run was about a third of the CPU of
# the tests that render or validate.
KEPT_CACHES = frozenset(
    {
        "freezer.render.render._shipped",
        "freezer.render.render._shipped_delta",
        "freezer.render.render._compiled",
        "freezer.render.render.environment",
        "freezer.runtime.resources.schema",
        "freezer.schema.suiteschema._meta_validator",
        "freezer.schema.suiteapply.refusing_registry",
        "freezer.validate.template.placement",
        "freezer.domain.taskid._prototypes",
    }
)


# Each freezer module's cache_clear functions, found once per module object: looking through every
# attribute of every module on each in-process run was about 4% of the default lane's CPU.
_CLEARERS: dict[str, tuple[object, list[Callable[[], None]]]] = {}


def _forget_cached_answers() -> None:
    """Drop what freezer's functions remember (a suite schema read by path, the ripgrep an
    environment variable named, the git found on a PATH): a fresh process would not know it."""
    for name, module in list(sys.modules.items()):
        if name != "freezer" and not name.startswith("freezer."):
            continue
        known = _CLEARERS.get(name)
        if known is None or known[0] is not module:
            known = module, _clearers_of(name, module)
            _CLEARERS[name] = known
        for clear in known[1]:
            clear()


def _clearers_of(name: str, module: object) -> list[Callable[[], None]]:
    found = []
    for key, value in list(vars(module).items()):
        clear = getattr(value, "cache_clear", None)
        if callable(clear) and getattr(value, "__module__", None) == name and f"{name}.{key}" not in KEPT_CACHES:
            found.append(clear)
    return found


def run_inprocess(
    *args: str,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    timeout: float = 120,  # run_cli's call shape: a hang fails through pytest's own timeout
    fresh: bool = True,
) -> Run:
    """Run the CLI in this process: the same ``freezer.cli.main`` the console script calls, with
    fresh UTF-8 streams, the working directory and the environment a subprocess would get, and
    nothing remembered from an earlier call. It skips only the interpreter's start (a few hundred
    milliseconds a call), so use run_cli when the start, signals or the process itself are the point.

    ``fresh=False`` keeps what freezer's functions remember (the compiled schemas above all, about
    40 ms a call): for a loop that runs one command on thousands of plain files, where nothing it
    remembers (a suite schema read by path, an environment variable) changes between calls."""
    from freezer.cli import main

    env = env or {}
    assert not START_UP_VARIABLES & env.keys(), f"{sorted(START_UP_VARIABLES & env.keys())}: use run_cli"
    assert not HUB_VARIABLES & env.keys(), f"{sorted(HUB_VARIABLES & env.keys())}: use run_forked"
    saved_env = dict(os.environ)
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    previous = Path.cwd()
    os.environ.update(env)
    os.environ.pop("FREEZER_DEBUG", None)
    if fresh:
        _forget_cached_answers()
    os.chdir(cwd or REPO)
    sys.stdin, sys.stdout, sys.stderr = io.StringIO(""), out, err
    try:
        try:
            code = main(list(args))
        except SystemExit as exc:  # as the interpreter would turn it into an exit status
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        out.flush()
        err.flush()
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(previous)
        os.environ.clear()
        os.environ.update(saved_env)
    return Run(code, _text(out), _text(err))


def _text(stream: io.TextIOWrapper) -> str:
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    # As run_cli reads a pipe (text=True): universal newlines.
    return buffer.getvalue().decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")


# FREEZER_TEST_COSTS=FILE appends one line per test: node id, wall seconds, the CPU seconds of this
# process and of the processes it waited for (git, ssh-keygen, the CLI, run_forked's children), then
# the xdist worker and when the test ended (Unix time). CPU does not grow when the machine is shared,
# so it shows which tests cost what even on a loaded machine; the worker and the end show a lane's
# idle tail.
_COSTS = os.environ.get("FREEZER_TEST_COSTS")


if _COSTS:
    import resource
    import time

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> object:
        wall = time.monotonic()
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        forked = _FORK_SERVER.children_cpu_seconds
        try:
            return (yield)
        finally:
            own_after = resource.getrusage(resource.RUSAGE_SELF)
            children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu_own = own_after.ru_utime + own_after.ru_stime - own.ru_utime - own.ru_stime
            cpu_children = children_after.ru_utime + children_after.ru_stime - children.ru_utime - children.ru_stime
            cpu_children += _FORK_SERVER.children_cpu_seconds - forked
            worker = os.environ.get("PYTEST_XDIST_WORKER", "-")
            line = (
                f"{item.nodeid}\t{time.monotonic() - wall:.3f}\t{cpu_own:.3f}\t{cpu_children:.3f}"
                f"\t{worker}\t{time.time():.3f}\n"
            )
            with open(os.environ["FREEZER_TEST_COSTS"], "a", encoding="utf-8") as sink:
                sink.write(line)
