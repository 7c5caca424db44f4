"""The hostile-input campaign: hundreds of bad inputs, each refused cleanly.

For every case: exit 1 or 2, a message naming the file and a location, no
traceback and no crash (signals included), bounded time and memory, and not
one byte written under versions/. Cases that reach libyaml or the file system
run in a process of their own (forked, tests/forkserver.py), so an interpreter dying in a C extension shows
up as a failure instead of taking the test run down.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hostile import corpus

from conftest import nobody_can_run_python, run_forked, run_inprocess
from registry_helpers import sample_repo, snapshot

# Slow (170 subprocess cases and the schema mutation corpus): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

CASES = corpus.subprocess_cases()
MEMORY_LIMIT = 1 << 30
TIME_LIMIT = 30.0


def _run(args: list[str], cwd: Path, as_nobody: bool) -> tuple[int, str, int]:
    """Run the CLI in a process of its own; return (exit status, output, that process's peak RSS in
    KiB). A run past TIME_LIMIT fails as a hang."""
    ran = run_forked(*args, cwd=cwd, memory_limit=MEMORY_LIMIT, as_nobody=as_nobody, timeout=TIME_LIMIT)
    return ran.code, ran.out + ran.err, ran.peak_kib


@pytest.fixture(scope="module")
def code_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sample_repo(tmp_path_factory.mktemp("hostile-cache"))


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_case(case: corpus.Case, code_repo: Path, tmp_path: Path) -> None:
    root = tmp_path / "registry"
    root.mkdir()
    corpus.base_registry(root, code_repo)
    case.build(root)
    if case.as_nobody:
        if not nobody_can_run_python():
            pytest.skip("needs root, and an interpreter that user nobody can run (root reads every file)")
        corpus.make_unreadable_dirs_traversable(root / "drafts/graph/fixtures")
        for path in root.rglob("*"):
            if not path.is_symlink() and path.name != "zz-hostile.yaml":
                path.chmod(path.stat().st_mode | 0o005)
    before = snapshot(root / "versions")
    code, output, peak_kib = _run(case.command, root, case.as_nobody)
    assert code in (1, 2), f"exit {code}: {output}"
    assert "Traceback" not in output and "internal error" not in output, output
    # YAML problems carry a line; a file-level problem is located at the file itself.
    location = re.escape(case.names) + (r":\d+:\d+: \$" if case.kind == "yaml" else r"(:\d+(:\d+)?)?: ")
    assert re.search(location, output), f"no message naming {case.names} with a location:\n{output}"
    assert snapshot(root / "versions") == before
    assert not (root / "versions").exists()
    assert peak_kib * 1024 < MEMORY_LIMIT


def test_schema_mutation_corpus(tmp_path: Path) -> None:
    """Every mutation of every example fixture is refused with a located message (in-process: plain data).

    The mutations are made here, not at import: making them takes most of a minute, which collection
    would pay in every worker even when this module is deselected."""
    schema_cases = list(corpus.schema_cases())
    failures = []
    for case_id, name, text in schema_cases:
        path = tmp_path / name
        path.write_bytes(text)
        result = run_inprocess("validate", str(path), fresh=False, cwd=tmp_path)
        located = re.search(re.escape(name) + r":\d+:\d+: \$", result.out)
        if result.code != 1 or not located or "Traceback" in result.text or "internal error" in result.text:
            failures.append(f"{case_id}: exit {result.code}\n{result.text[:400]}")
        path.unlink()
    assert len(schema_cases) > 1000
    assert failures == [], f"{len(failures)} of {len(schema_cases)} failed:\n" + "\n".join(failures[:10])


def test_corpus_size() -> None:
    assert len(CASES) + sum(1 for _ in corpus.schema_cases()) >= 300


def test_read_error_is_a_clean_problem() -> None:
    """Root reads every file, so an unreadable draft is simulated by a file whose read fails (EIO)."""
    from freezer.parse.yamlload import load_file

    mem = Path("/proc/self/mem")
    if not mem.exists():
        pytest.skip("no /proc/self/mem on this system")
    result = load_file(mem, "mem.yaml")
    assert result.document is None
    [problem] = result.problems
    assert problem.file == "mem.yaml"
    assert problem.message.startswith(("cannot read", "cannot open", "permission denied"))
