"""Fault injection and the security review of every boundary (the tamper matrix: tests/test_audit.py)."""

from __future__ import annotations

import errno
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from freezer.domain.errors import FreezerError
from freezer.freeze.cut import cut
from freezer.freeze.snapshot import FsOps
from freezer.registry import config as config_mod

from conftest import REPO, assert_clean_failure, run_forked
from registry_helpers import commit_all, make_registry, set_drafts, snapshot

# Slow (every filesystem step failing): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow


class FailAt(FsOps):
    """Real filesystem steps, except that step number ``fail_at`` raises EIO."""

    def __init__(self, fail_at: int) -> None:
        self.fail_at = fail_at
        self.count = 0
        self.failed: str | None = None

    def _tick(self, what: str) -> None:
        self.count += 1
        if self.count == self.fail_at:
            self.failed = what
            raise OSError(errno.EIO, f"injected failure in {what}")

    def mkdir(self, path: Path) -> None:
        self._tick("mkdir")
        super().mkdir(path)

    def write(self, path: Path, data: bytes) -> None:
        self._tick("write")
        super().write(path, data)

    def fsync_fd(self, fd: int) -> None:
        self._tick("fsync")
        super().fsync_fd(fd)

    def chmod(self, path: Path, mode: int) -> None:
        self._tick("chmod")
        super().chmod(path, mode)

    def syncfs(self, folder: Path) -> bool:
        self._tick("syncfs")
        return super().syncfs(folder)

    def rename(self, source: Path, target: Path) -> None:
        self._tick("rename")
        super().rename(source, target)


def _reset(version: Path) -> None:
    """Test-only: remove a version so the next injection starts from the same registry."""
    for path in version.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(version)


def test_every_filesystem_step_failing_leaves_the_registry_as_it_was(reg: Path) -> None:
    assert run_forked("cut", "v1", cwd=reg).code == 0
    commit_all(reg, "freeze v1")
    set_drafts(reg, "v2")
    config = config_mod.load_config(reg / "freezer.yaml")
    suite = config.suite("graph")
    before = snapshot(reg / "versions")
    points: dict[str, int] = {}
    step = 0
    while True:
        step += 1
        fs = FailAt(step)
        try:
            cut(config, suite, "v2", fs=fs)
        except FreezerError as exc:
            assert fs.failed is not None, exc
            assert "nothing was written" in exc.message
            points[fs.failed] = points.get(fs.failed, 0) + 1
            assert snapshot(reg / "versions") == before, f"step {step} ({fs.failed}) changed the registry"
            assert not any((reg / ".freezer" / "staging").iterdir())
            follow_up = cut(config, suite, "v2")  # the next cut must succeed
            assert follow_up.status == "cut"
            _reset(reg / "versions" / "graph_v2")
            continue
        assert fs.failed is None
        break
    total = sum(points.values())
    print(f"\nfault injection: {total} failure points {points}, 0 registry changes")
    assert total >= 25 and set(points) >= {"mkdir", "write", "chmod", "rename", "fsync"}


@pytest.fixture
def frozen_pair(v2_frozen: Path) -> Path:
    return v2_frozen


def test_fresh_clone_has_no_read_only_bits_and_audits(frozen_pair: Path, tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "-c", "core.autocrlf=true", str(frozen_pair), str(clone)], check=True)
    assert all(p.stat().st_mode & 0o200 for p in (clone / "versions").rglob("*") if p.is_file())
    result = run_forked("audit", "--no-code", cwd=clone)
    assert result.code == 0, result.text


def test_gitattributes_keep_versions_byte_exact() -> None:
    out = subprocess.run(
        ["git", "check-attr", "text", "--", "versions/graph_v2/METHOD.md"], cwd=REPO, capture_output=True, text=True
    ).stdout
    assert out.strip().endswith("text: unset"), out


def test_gitpython_is_pinned_past_every_advisory() -> None:
    from importlib.metadata import version

    pyproject = (REPO / "pyproject.toml").read_text()
    floor = re.search(r'"gitpython>=([0-9.]+)', pyproject)
    assert floor is not None
    as_tuple = tuple(int(x) for x in floor.group(1).split("."))
    assert as_tuple >= (3, 1, 41)  # CVE-2024-22190 (3.1.41) is the latest published GitPython advisory
    installed = tuple(int(x) for x in version("gitpython").split(".")[:3])
    assert installed >= as_tuple


def test_option_like_refs_are_refused_everywhere(frozen_pair: Path, tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    for args in (
        ["audit", "--against", f"--output={marker}"],
        ["check", "--base", f"--output={marker}"],
        ["check", "--base", "-c core.pager=touch"],
    ):
        result = run_forked(*args, cwd=frozen_pair)
        assert result.code in (1, 2) and "looks like an option" in result.text, result.text
    assert not marker.exists()


def _structure(markdown: str) -> list[tuple[str, int]]:
    """Headings, and the column count of every table row, in order."""
    shape = []
    for line in markdown.splitlines():
        if line.startswith("#"):
            shape.append(("heading", len(line) - len(line.lstrip("#"))))
        elif line.startswith("|"):
            shape.append(("row", len(re.findall(r"(?<!\\)\|", line))))
    return shape


def test_markdown_injection_cannot_change_method_structure(reg: Path) -> None:
    assert run_forked("cut", "v1", "--dry-run", cwd=reg).code == 0
    baseline = run_forked("cut", "v1", "--dry-run", cwd=reg).out
    evil = "a | b\n\n## Injected heading\n| x | y |\n|---|---|\n<script>alert(1)</script> ``` `code` ~~~ {{ 7*7 }}"
    import yaml

    for path in (reg / "drafts/graph/fixtures").glob("*.yaml"):
        data = yaml.safe_load(path.read_text())
        data["question"] = data["why_grep_fails"] = data["graph_tool_path"]["resolution"] = evil
        data["ground_truth"][0]["note"] = evil
        data["oracle"]["must_not_include"] = [evil]
        path.write_text(yaml.safe_dump(data, allow_unicode=True))
    version = reg / "drafts/graph/version.yaml"
    draft = yaml.safe_load(version.read_text())
    draft["known_caveats"].append(evil)
    draft["purpose"] = evil
    draft["binary"]["consumers"][0]["via"] = evil
    version.write_text(yaml.safe_dump(draft, allow_unicode=True))
    injected = run_forked("cut", "v1", "--dry-run", cwd=reg)
    assert injected.code == 0, injected.text
    assert evil.splitlines()[2] not in injected.out.splitlines()
    # Markdown rules 4 escape a `<` that would open a tag with a backslash (`\<script>`), which a
    # CommonMark reader shows as text; no unescaped tag is left, even for a renderer that lets raw
    # HTML through.
    assert re.search(r"(?<!\\)<script>", injected.out) is None
    import cmarkgfm  # type: ignore[import-untyped]  # the dev extra's cmark-gfm, as GitHub renders it
    from cmarkgfm.cmark import Options  # type: ignore[import-untyped]

    assert "<script>" not in cmarkgfm.markdown_to_html(injected.out, options=Options.CMARK_OPT_UNSAFE)
    assert _structure(injected.out) == _structure(baseline)


def test_links_and_dotdot_cannot_pull_outside_files_into_a_version(reg: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.yaml"
    secret.write_text(
        (reg / "drafts/graph/fixtures/locate-register-tools.yaml")
        .read_text()
        .replace("locate-register-tools", "stolen")
    )
    (reg / "drafts/graph/fixtures/stolen.yaml").symlink_to(secret)
    result = run_forked("cut", "v1", cwd=reg)
    assert_clean_failure(result)
    assert "is a symbolic link" in result.text
    assert not (reg / "versions").exists()
    (reg / "drafts/graph/fixtures/stolen.yaml").unlink()
    outside = tmp_path / "outside-drafts"
    shutil.copytree(reg / "drafts/graph", outside)
    os.symlink(outside, reg / "linked-drafts")
    config = reg / "freezer.yaml"
    config.write_text(config.read_text().replace("drafts: drafts/graph", "drafts: linked-drafts"))
    escaped = run_forked("cut", "v1", cwd=reg)
    assert_clean_failure(escaped)
    assert "points outside the registry root" in escaped.text
    assert not (reg / "versions").exists()


def test_cut_refuses_to_chain_onto_a_damaged_version(reg: Path) -> None:
    assert run_forked("cut", "v1", cwd=reg).code == 0
    target = reg / "versions/graph_v1/fixtures/locate-register-tools.yaml"
    target.chmod(0o644)
    target.write_text(target.read_text() + "# edited\n")
    set_drafts(reg, "v2")
    result = run_forked("cut", "v2", cwd=reg)
    assert_clean_failure(result)
    assert "previous version graph_v1 fails its integrity check" in result.err
    assert not (reg / "versions/graph_v2").exists()


def test_two_registries_do_not_share_state(tmp_path: Path, cache_root: Path) -> None:
    first = make_registry(tmp_path / "a", cache_root)
    second = make_registry(tmp_path / "b", cache_root)
    assert run_forked("cut", "v1", cwd=first).code == 0
    assert not (second / "versions").exists()
