"""What the pre-commit hooks import: `freezer validate` and `freezer check` on a clean registry.

A hook pays freezer's start-up on every commit, so neither command may import what it does not
use: the command line's typer, the audit of a new version (METHOD.md, the delta, comparability),
the site, the frozen-version records, or the parsers of kinds the registry does not have. Each
command runs for real, as a subprocess, and the modules it loaded are read from ``sys.modules``
when it exits. How long the imports take is bench/run.py's to measure.
"""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO

# Never on either hook path. fastjsonschema and decimal: the compiled schemas raise freezer's own
# refusal (freezer.schema.fastrefusal); the bounded children (pickle, selectors) serve a suite's own schema.
NEITHER = (
    "fastjsonschema",
    "decimal",
    "_decimal",
    "pickle",
    "freezer.runtime.bounded",
    # Signatures and writes: a registry without a status log or a checkpoint (freezer demo's) checks
    # no signature, and neither hook writes a file.
    "freezer.trust.sshsig",
    "freezer.trust.allowed_signers",
    "freezer.trust.sshkeygen",
    "freezer.runtime.writing",
    "secrets",
    "tempfile",
    # freezer finds its data files beside the package, without importlib.resources (and its zipfile).
    "importlib.resources",
    "zipfile",
    "typer",
    "click",
    "rich",
    "jinja2",
    "jsonschema",
    "cryptography",
    "multiprocessing",
    # The records on both hook paths are NamedTuples and plain classes, not dataclasses: the module
    # (with the inspect it imports) and the classes it builds took 40-45 ms of check's start-up.
    "dataclasses",
    "inspect",
    # freezer lock's reader of the hub cache (the hub extra), with its HTTP stack: lock's alone.
    "huggingface_hub",
    "freezer.api",
    "freezer.compare",
    "freezer.freeze",
    "freezer.guard.audit",
    "freezer.guard.rederive",
    "freezer.query",
    "freezer.render.render",
    "freezer.render.method",
    "freezer.site",
)
# check on a clean registry (freezer demo's: no status log, no checkpoint, no signatures, and stored
# results that the base already holds) reads nothing signed: the status log's and the checkpoint's
# readers serve a registry that has one. The config drift of the latest version is read from
# the few manifest fields it compares (domain.manifestfields), not through the typed manifest; the
# frozen-version records serve the stored results and a new version's audit.
NOT_IN_CHECK = (
    *NEITHER,
    "freezer.trust.lifecycle",
    "freezer.trust.checkpoint",
    "freezer.trust.checkpointformat",
    # (the strict JSON parser stays: the demo has a records suite, whose kind reads JSON Lines strictly)
    "freezer.parse.jsonlines",
    "freezer.render.attest",
    "freezer.domain.manifest",
    "freezer.domain.manifestparts",
    "freezer.domain.model",
    "freezer.domain.scan",
    "freezer.registry.record",
    # An audit's verdict and the steps it records: a new version's (the audit), never a clean check's.
    "freezer.registry.verdict",
    "freezer.domain.steps",
    # The row schema of stored results: check reads the rows of a run its change adds, and the
    # demo's runs are all in the base.
    "freezer.schema.resultrow",
    # copy: only the shape of a suite with its own schema is deep-copied.
    "copy",
    # shlex: only the hint of a check whose base is not fetched quotes a command with it.
    "shlex",
)
# validate reads drafts, never a frozen version, and a graph suite is freezer's own YAML kind; the
# typed domain (domain.model) and a manifest's parts serve a cut or an audit.
NOT_IN_VALIDATE = (
    *NEITHER,
    "freezer.domain.model",
    "freezer.domain.manifestparts",
    "freezer.domain.scan",
    # The steps a command records: validate records none, it only reports progress.
    "freezer.domain.steps",
    # The other kinds are imported when a suite names one (kinds.catalog.KINDS).
    "freezer.kinds.folders",
    "freezer.kinds.records",
    "freezer.kinds.lmeval",
    "freezer.kinds.closure",
    "freezer.parse.pyimports",
    "freezer.guard",
    "freezer.trust",
    "freezer.domain.manifest",
    "freezer.registry.record",
    "freezer.registry.integrity",
    "freezer.parse.lmeval",
    "freezer.parse.strictjson",
    "freezer.parse.tomlload",
    "tomllib",
    # hashlib loads OpenSSL: validate hashes nothing unless a fixture set has assets or a suite its own schema.
    "hashlib",
    "_hashlib",
    "freezer.runtime.hashing",
    # Gate B's rg runner (its shlex and sysconfig): validate checks a fixture's rg flags (resolve.rgflags), runs no rg.
    "freezer.resolve.grep",
    "shlex",
    "sysconfig",
)


# Runs freezer as ``python -m freezer`` does and lists sys.modules when it exits: ``-X importtime``
# logs only the import statement's path, not what importlib.import_module loads (the compiled
# templates still load that way), so a forbidden module loaded that way would pass unseen.
_RUN_AND_LIST = """
import atexit, runpy, sys
atexit.register(lambda: print("\\n".join(["MODULES LOADED", *sorted(sys.modules)]), file=sys.stderr))
sys.argv = ["freezer", *sys.argv[1:]]
runpy.run_module("freezer", run_name="__main__", alter_sys=True)
"""


def imported(command: list[str], cwd: Path) -> set[str]:
    """Every module ``freezer COMMAND`` loaded (it must succeed)."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FREEZER_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-c", _RUN_AND_LIST, *command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    _, marker, listed = proc.stderr.partition("MODULES LOADED\n")
    assert marker, proc.stderr[-2000:]
    names = set(listed.split())
    assert "freezer.cli" in names, proc.stderr[-2000:]
    return names


def loaded(names: set[str], forbidden: tuple[str, ...]) -> list[str]:
    """The modules of ``names`` that are, or are inside, one of ``forbidden``."""
    return sorted(name for name in names if any(name == bad or name.startswith(bad + ".") for bad in forbidden))


def test_validate_of_a_graph_suite_imports_neither_the_audit_nor_frozen_records(reg: Path) -> None:
    names = imported(["validate"], reg)
    assert "freezer.validate.validate" in names  # it did validate
    assert loaded(names, NOT_IN_VALIDATE) == []


def test_check_on_a_clean_registry_imports_no_audit_of_a_new_version(demo_build: Path, tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    names = imported(["check"], root)
    assert "freezer.guard.check" in names  # it did check
    assert "freezer.guard.drift" in names  # it compared the config with the latest versions
    assert loaded(names, NOT_IN_CHECK) == []


def test_check_with_a_new_version_still_audits_it(demo_build: Path, tmp_path: Path) -> None:
    """The audit is imported when there is a new version: a copy of graph_v2 as graph_v3 is audited
    as a new version (and refused: its manifest says it is v2), not waved through."""
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    shutil.copytree(root / "versions" / "graph_v2", root / "versions" / "graph_v3", symlinks=True)
    proc = subprocess.run(
        [sys.executable, "-m", "freezer", "check", "--no-code"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "graph_v3" in proc.stdout, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def test_check_of_a_registry_without_stored_results_imports_not_their_guard(
    v2_frozen_build: Path, tmp_path: Path
) -> None:
    """The stored results' guard (its row schema and records) serves a registry that has a
    results/ folder (the demo's has); graph_v1 and graph_v2 alone have none."""
    root = tmp_path / "reg"
    shutil.copytree(v2_frozen_build, root, symlinks=True)
    assert not (root / "results").exists()
    names = imported(["check"], root)
    assert "freezer.guard.check" in names  # it did check
    assert loaded(names, ("freezer.guard.storedresults", "freezer.schema.resultrow", "shutil")) == []


def test_a_cut_and_an_audit_of_a_small_suite_import_no_multiprocessing(reg: Path) -> None:
    """Whether to fork workers is decided without multiprocessing, which takes 15-30 ms to import:
    a cut and an audit of a small suite, which hash its files in this process, never load it."""
    for command in (["cut", "v1"], ["audit"]):
        names = imported(command, reg)
        assert "freezer.runtime.hashing" in names  # it did hash the version's files
        assert loaded(names, ("multiprocessing", "concurrent.futures.process")) == [], command


def test_a_module_that_defines_a_named_tuple_evaluates_its_annotations() -> None:
    # typing.NamedTuple compiles every field annotation it is given as a string (a ForwardRef) when
    # the class is built: with postponed annotations the hooks' 34 record classes spent 2.8 ms of
    # each start on it (docs/benchmarks.md, "Start-up of the hooks").
    postponing = []
    for path in sorted((REPO / "freezer").rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if "NamedTuple" not in source or "__future__" not in source:
            continue  # parsed only where both could be: parsing every module took 1.6 s of CPU
        tree = ast.parse(source)
        defines = any(
            isinstance(node, ast.ClassDef) and any(ast.unparse(base).endswith("NamedTuple") for base in node.bases)
            for node in ast.walk(tree)
        )
        postpones = any(
            isinstance(node, ast.ImportFrom)
            and node.module == "__future__"
            and any(a.name == "annotations" for a in node.names)
            for node in tree.body
        )
        if defines and postpones:
            postponing.append(path.relative_to(REPO).as_posix())
    assert postponing == []
