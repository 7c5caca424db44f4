"""A ``__pycache__`` folder in a suite's drafts (Python writes one beside any module it imports:
lm-eval running a task folder, pip byte-compiling freezer's shipped examples) is left out of the
version and said in a note, never frozen; the demo, run from an installed layout whose examples
pip byte-compiled, freezes none either. Real files, real git, real byte-compilation, the real CLI
in a subprocess."""

from __future__ import annotations

import compileall
import json
import shutil
from pathlib import Path

from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import REPO, run_cli, run_forked
from registry_helpers import BBH_LMEVAL_CONFIG, commit_all

CONFIG = BBH_LMEVAL_CONFIG


def _lm_eval_registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    root.mkdir()
    (root / "freezer.yaml").write_text(CONFIG, encoding="utf-8")
    shutil.copytree(REPO / "examples/bbh/v1", root / "drafts/bbh")
    # As running lm-eval on the folder leaves it: a byte-compiled utils.py, and one deeper.
    assert compileall.compile_dir(root / "drafts/bbh", quiet=1)
    (root / "drafts/bbh/tasks/helpers").mkdir()
    (root / "drafts/bbh/tasks/helpers/more.py").write_text("X = 1\n", encoding="utf-8")
    assert compileall.compile_dir(root / "drafts/bbh/tasks/helpers", quiet=1)
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "drafts")
    return root


def test_a_python_cache_in_the_drafts_is_left_out_of_the_version_with_a_note(tmp_path: Path) -> None:
    root = _lm_eval_registry(tmp_path)
    caches = sorted(p.relative_to(root).as_posix() for p in root.rglob("__pycache__"))
    assert caches == ["drafts/bbh/tasks/__pycache__", "drafts/bbh/tasks/helpers/__pycache__"]
    # The note is said whether the drafts are named or the whole registry is validated.
    for named in (["drafts/bbh"], []):
        validated = run_forked("validate", *named, "--format", "json", cwd=root)
        assert validated.code == 0, validated.text
        notes = json.loads(validated.out)["result"]["notes"]
        assert any("drafts/bbh/tasks/__pycache__" in note and "byte-compiled" in note for note in notes), notes
        assert any("helpers/__pycache__" in note for note in notes), notes
    assert "byte-compiled" in run_forked("validate", cwd=root).text
    cut = run_forked("cut", "v1", cwd=root)
    assert cut.code == 0, cut.text
    frozen = root / "versions/bbh_v1"
    assert not list(frozen.rglob("__pycache__")) and not list(frozen.rglob("*.pyc"))
    assert (frozen / "tasks/utils.py").read_bytes() == (REPO / "examples/bbh/v1/tasks/utils.py").read_bytes()
    assert ".pyc" not in (frozen / "manifest.json").read_text(encoding="utf-8")
    assert ".pyc" not in (frozen / "SHA256SUMS").read_text(encoding="utf-8")
    commit_all(root, "bbh_v1")
    assert run_forked("audit", cwd=root).code == 0


def _installed_layout(tmp_path: Path) -> Path:
    """freezer as a wheel installs it: the package with its data under freezer/_data, and the
    examples' .py files byte-compiled where they lie, as pip does on install."""
    site = tmp_path / "site-packages"
    shutil.copytree(REPO / "freezer", site / "freezer", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("examples", "schemas", "templates"):
        shutil.copytree(REPO / name, site / "freezer/_data" / name, ignore=shutil.ignore_patterns("__pycache__"))
    assert compileall.compile_dir(site / "freezer/_data/examples", quiet=1)
    assert list((site / "freezer/_data/examples").rglob("*.pyc"))
    return site


def test_the_demo_from_an_installed_layout_freezes_no_python_cache(tmp_path: Path) -> None:
    site = _installed_layout(tmp_path)
    demo = tmp_path / "demo"
    result = run_cli("demo", str(demo), cwd=tmp_path, env={"PYTHONPATH": str(site)}, timeout=600)
    assert result.code == 0, result.text
    assert (demo / "versions/bbh_v1/tasks/utils.py").is_file()  # the demo ran from the installed copy
    assert not list(demo.rglob("__pycache__")) and not list(demo.rglob("*.pyc"))
    # As the README says: the two tasks tasks/utils.py does not reach stay comparable.
    compared = run_cli("compare", "bbh_v1", "bbh_v2", "--format", "json", cwd=demo, env={"PYTHONPATH": str(site)})
    assert compared.code == 0, compared.text
    [arm] = json.loads(compared.out)["result"]["arms"]
    assert arm["comparable"] == ["bbh_slice_boolean_logic", "bbh_slice_calendar_steps"], arm
