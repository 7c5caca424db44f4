"""freezer audit: tampering of every kind is caught and the file is named."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO, assert_clean_failure, make_traversable, nobody_can_run_python, run_cli, run_inprocess
from registry_helpers import code_commit, make_registry


@pytest.fixture
def frozen(v2_frozen: Path) -> Path:
    """A registry with graph_v1 and graph_v2 frozen and committed."""
    for path in (v2_frozen / "versions").rglob("*"):
        if path.is_file():
            path.chmod(0o644)  # as in a fresh clone: permission bits are not content
    return v2_frozen


def version_files(reg: Path) -> list[str]:
    return sorted(p.relative_to(reg).as_posix() for p in (reg / "versions").rglob("*") if p.is_file())


def test_clean_registry_audits(frozen: Path) -> None:
    result = run_inprocess("audit", cwd=frozen)
    assert result.code == 0, result.text
    assert (
        "✓ graph_v2: 13 data files hashed; chain to graph_v1 intact; delta.json recomputed; comparability recomputed"
        in result.out
    )
    assert "code: verified at 7df885db" in result.out


TAMPERS = ["flip", "truncate", "delete", "stray", "rename", "symlink", "emptydir"]


def _tamper(path: Path, how: str) -> Path:
    """Apply one tamper to the frozen file ``path``; return the path the audit must name."""
    original = path.read_bytes()
    if how == "flip":
        data = bytearray(original)
        data[len(data) // 2] ^= 0x01
        path.write_bytes(bytes(data))
    elif how == "truncate":
        path.write_bytes(original[: len(original) // 2])
    elif how == "delete":
        path.unlink()
    elif how == "rename":
        path.rename(path.with_name(path.name + ".renamed"))
    elif how == "symlink":  # the same bytes, through a link to a file outside the version's tree
        twin = path.parent.parent / f".twin-{path.name}"
        twin.write_bytes(original)
        path.unlink()
        path.symlink_to(twin)
    elif how == "stray":
        (path.parent / "stray.yaml").write_text("x: 1\n")
        return path.parent / "stray.yaml"
    elif how == "emptydir":
        (path.parent / "empty").mkdir()
        return path.parent / "empty"
    return path


def _untamper(path: Path, how: str, original: bytes) -> None:
    if how == "stray":
        (path.parent / "stray.yaml").unlink()
    elif how == "emptydir":
        (path.parent / "empty").rmdir()
    elif how == "rename":
        path.with_name(path.name + ".renamed").unlink()
    elif how == "symlink":
        path.unlink()
        (path.parent.parent / f".twin-{path.name}").unlink()
    path.write_bytes(original)


@pytest.mark.parametrize("tamper", TAMPERS)
def test_every_file_every_tamper(frozen: Path, tamper: str) -> None:
    """Each tamper of each frozen file of two chained versions fails the audit, naming the file."""
    files = version_files(frozen)
    assert len(files) > 20
    for rel in files:
        path = frozen / rel
        original = path.read_bytes()
        named = _tamper(path, tamper)
        result = run_inprocess("audit", "--no-code", fresh=False, cwd=frozen)
        assert_clean_failure(result)
        assert named.relative_to(frozen).as_posix() in result.out, (rel, tamper, result.out)
        _untamper(path, tamper, original)
    assert run_inprocess("audit", "--no-code", cwd=frozen).code == 0


def _rewrite_consistently(version: Path, rel: str, old: str, new: str) -> None:
    """Change a data file and rewrite delta.json, comparability.json, manifest.json, METHOD.md and
    SHA256SUMS to match, as a careful forger with freezer's own code would."""
    import hashlib

    from freezer.compare import comparerecord
    from freezer.compare.delta import compute
    from freezer.domain.canonical import frozen_file
    from freezer.freeze.assemble import sha256sums
    from freezer.registry import config as config_mod
    from freezer.registry import record as record_mod
    from freezer.registry import registry
    from freezer.registry.dimensions import DEFAULT_DIMENSIONS
    from freezer.render.attest import statement_bytes
    from freezer.render.method import method_from_files

    target = version / rel
    target.write_text(target.read_text().replace(old, new))
    manifest = json.loads((version / "manifest.json").read_text())
    manifest["files"][rel] = hashlib.sha256(target.read_bytes()).hexdigest()
    number = manifest["version"]
    (version / "manifest.json").write_bytes(frozen_file(manifest))
    after = record_mod.read(registry.FrozenVersion("graph", number, version), verify=False)
    chain = [after.side()]
    if manifest["previous"]:
        chain.insert(
            0,
            record_mod.read(
                registry.FrozenVersion("graph", number - 1, version.parent / f"graph_v{number - 1}")
            ).side(),
        )
    (version / "delta.json").write_bytes(frozen_file(compute(chain, DEFAULT_DIMENSIONS).to_json()))
    manifest["files"]["delta.json"] = hashlib.sha256((version / "delta.json").read_bytes()).hexdigest()
    suite = config_mod.load(version.parent.parent).suite("graph")
    entry, record = comparerecord.recompute(suite, after.side())
    manifest["comparability"] = entry.to_json()
    (version / "comparability.json").write_bytes(frozen_file(record))
    manifest["files"]["comparability.json"] = hashlib.sha256((version / "comparability.json").read_bytes()).hexdigest()
    manifest_bytes = frozen_file(manifest)
    (version / "manifest.json").write_bytes(manifest_bytes)
    files = {r: (version / r).read_bytes() for r in manifest["files"]}
    (version / "METHOD.md").write_text(method_from_files(files, manifest_bytes))
    files.update({"manifest.json": manifest_bytes, "METHOD.md": (version / "METHOD.md").read_bytes()})
    (version / "provenance.json").write_bytes(statement_bytes(manifest_bytes, files["METHOD.md"]))
    files["provenance.json"] = (version / "provenance.json").read_bytes()
    (version / "SHA256SUMS").write_bytes(sha256sums(files))


@pytest.mark.parametrize("rel", ["fixtures/callers-run-deterministic-containers.yaml", "manifest.json"])
def test_unreadable_frozen_file_is_named_not_a_traceback(frozen: Path, rel: str) -> None:
    if not nobody_can_run_python():
        pytest.skip("needs root, and an interpreter that user nobody can run (root reads every file)")
    make_traversable(frozen)
    version = frozen / "versions" / "graph_v2"
    target = version / rel
    assert target.is_file(), sorted(p.name for p in (version / "fixtures").iterdir())
    target.chmod(0)
    result = run_cli("audit", "--no-code", cwd=frozen, as_nobody=True)
    assert_clean_failure(result)
    assert f"graph_v2/{rel}: cannot be read: Permission denied" in result.text


def test_consistent_rewrite_of_earlier_version_is_caught_by_the_chain(frozen: Path) -> None:
    _rewrite_consistently(frozen / "versions/graph_v1", "fixtures/locate-register-tools.yaml", "line: 15", "line: 16")
    result = run_inprocess("audit", "--no-code", cwd=frozen)
    assert_clean_failure(result)
    assert "✓ graph_v1" in result.out  # alone, the rewritten version is self-consistent
    assert "versions/graph_v1/manifest.json: chain broken: graph_v1 was replaced or rewritten" in result.out


def test_consistent_rewrite_of_latest_version_is_caught_by_check(frozen: Path) -> None:
    _rewrite_consistently(frozen / "versions/graph_v2", "fixtures/locate-loopaudit-variants.yaml", "NullSink", "NoSink")
    assert run_inprocess("audit", "--no-code", cwd=frozen).code == 0  # nothing left inside the registry to compare with
    result = run_inprocess("check", "--base", "HEAD", cwd=frozen)
    assert_clean_failure(result)
    assert "versions/graph_v2/manifest.json:1: $: frozen file modified" in result.out
    assert "versions/graph_v2/fixtures/locate-loopaudit-variants.yaml:1" in result.out


@pytest.mark.parametrize("how", ["remove", "replace"])
def test_removing_or_replacing_v1_breaks_v2(frozen: Path, how: str, tmp_path: Path, cache_root: Path) -> None:
    v1 = frozen / "versions/graph_v1"
    original_manifest = (v1 / "manifest.json").read_bytes()
    shutil.rmtree(v1)
    if how == "replace":
        # freezer itself refuses to cut v1 again here, so the replacement is cut in another registry.
        # It must differ from the original: two cuts of the same drafts within one second are byte-identical.
        other = make_registry(tmp_path / "other", cache_root)
        question = other / "drafts/graph/fixtures/locate-register-tools.yaml"
        question.write_text(question.read_text().replace("registered?", "registered, and by whom?"))
        assert run_inprocess("cut", "v1", cwd=other).code == 0
        shutil.copytree(other / "versions/graph_v1", v1)
        assert (v1 / "manifest.json").read_bytes() != original_manifest
        assert run_inprocess("audit", "graph_v1", "--no-code", cwd=frozen).code == 0
    result = run_inprocess("audit", "--no-code", cwd=frozen)
    assert_clean_failure(result)
    assert "✗ graph_v2" in result.out
    assert "chain broken" in result.out


def test_code_checks_and_strict(frozen: Path) -> None:
    shutil.rmtree(frozen / "sample-code")
    result = run_inprocess("audit", cwd=frozen)
    assert result.code == 0, result.text
    assert "code: unreachable: freezer.yaml:7: code_repo sample-code does not exist" in result.out
    assert_clean_failure(run_inprocess("audit", "--strict", cwd=frozen))


def test_against_reports_stale_fixture(frozen: Path) -> None:
    groundhog = frozen / "sample-code/crates/orbit-engine/src/activity_job/groundhog.rs"
    text = groundhog.read_text()
    sha = code_commit(frozen, {groundhog.relative_to(frozen / "sample-code").as_posix(): "// moved\n" + text}, "move")
    result = run_inprocess("audit", "graph_v2", "--against", sha, cwd=frozen)
    assert result.code == 0, result.text
    assert f"stale at {sha[:8]}: 1 fixture(s)" in result.out
    assert "✗ callers-run-deterministic-containers" in result.out
    assert "groundhog.rs:486" in result.out
    assert "impact-tool-context" not in result.out.split("stale at")[1]
    data = json.loads(run_inprocess("audit", "graph_v2", "--against", sha, "--format", "json", cwd=frozen).out)
    assert list(data["result"]["versions"][0]["stale"]) == ["callers-run-deterministic-containers"]
    assert_clean_failure(run_inprocess("audit", "graph_v2", "--against", sha, "--strict", cwd=frozen))
    # A ref that is no ref is a usage error (issue 27: exit 2, as every --against ref that names nothing).
    assert_clean_failure(run_inprocess("audit", "--against", "--output=/tmp/x", cwd=frozen), code=2)


def test_repository_versions_are_intact() -> None:
    """This repository is a registry too: its frozen versions must audit clean."""
    result = run_inprocess("audit", "--no-code", cwd=REPO)
    assert result.code == 0, result.text
    assert "✓ graph_v1" in result.out and "✓ graph_v2" in result.out


@pytest.mark.parametrize("code", [False, True], ids=["integrity", "with-code"])
def test_several_suites_are_audited_in_order_with_a_count_per_suite(
    demo_build: Path, tmp_path: Path, code: bool
) -> None:
    """The versions of every suite go to one pool (with the code checks, where this process may fork):
    the results still come suite by suite, each suite's impostors first, a suite with nothing to audit
    is passed over, and the counts are each suite's own."""
    from freezer.guard.audit import audit_suites
    from freezer.registry import config as config_mod

    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    (root / "versions" / "swe_v9").symlink_to(root / "versions" / "swe_v1")  # an impostor, in the third suite
    cfg = config_mod.load(root)
    selection = [
        (cfg.suite("graph"), None),
        (cfg.suite("api"), ["api_v7"]),  # nothing of it to audit
        (cfg.suite("swe"), None),
        (cfg.suite("bbh"), ["bbh_v2"]),
    ]
    seen: list[tuple[int, int, int]] = []
    results = audit_suites(selection, code=code, progress=lambda *count: seen.append(count))
    assert [r.name for r in results] == ["graph_v1", "graph_v2", "swe_v9", "swe_v1", "bbh_v2"]
    assert [r.ok for r in results] == [True, True, False, True, True], [str(f) for r in results for f in r.failures]
    assert seen == [(0, 0, 2), (0, 1, 2), (0, 2, 2), (2, 0, 1), (2, 1, 1), (3, 0, 1), (3, 1, 1)]
