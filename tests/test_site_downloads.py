"""A version page offers its frozen folder as a download: a tar.gz whose sha256 the page states,
rebuilt byte for byte by the next ``freezer site``, holding exactly the version's files."""

from __future__ import annotations

import re
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from conftest import run_inprocess


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("downloads") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    built = run_inprocess("site", str(root.parent / "site"), cwd=root)
    assert built.code == 0, built.text
    return root, root.parent / "site"


def test_the_version_page_states_the_sha256_that_sha256sum_computes(demo_site: tuple[Path, Path]) -> None:
    _root, out = demo_site
    page = (out / "graph/graph_v2/index.html").read_text()
    link = re.search(r'<a href="([^"]+\.tar\.gz)" download>', page)
    assert link, "the version page links its archive"
    archive = out / "graph/graph_v2" / link.group(1)
    stated = re.search(r'sha256 <code class="hash">([0-9a-f]{64})</code>', page[link.start() :])
    assert stated, "the sha256 follows the link"
    computed = subprocess.run(["sha256sum", str(archive)], capture_output=True, text=True, check=True).stdout.split()[0]
    assert stated.group(1) == computed


def test_the_archive_holds_exactly_the_versions_files(demo_site: tuple[Path, Path]) -> None:
    root, out = demo_site
    frozen = root / "versions/tb_v1"
    expected = sorted(str(p.relative_to(frozen.parent)) for p in frozen.rglob("*") if p.is_file())
    with tarfile.open(out / "tb/tb_v1/tb_v1.tar.gz") as archive:
        members = archive.getmembers()
        names = [m.name for m in members if m.isfile()]
        assert names == expected  # sorted, rooted at the version's own folder name
        for member in members:
            assert (member.uid, member.gid, member.uname, member.gname) == (0, 0, "", "")
            extracted = archive.extractfile(member) if member.isfile() else None
            if extracted is not None:
                assert extracted.read() == (frozen.parent / member.name).read_bytes(), member.name
        assert len({m.mtime for m in members}) == 1


def test_a_rebuilt_site_has_a_byte_identical_archive(demo_site: tuple[Path, Path], tmp_path: Path) -> None:
    root, out = demo_site
    first = (out / "graph/graph_v1/graph_v1.tar.gz").read_bytes()
    # Touching the files changes their mtimes on disk, never the archive.
    for path in (root / "versions/graph_v1").rglob("*"):
        if path.is_file():
            path.touch()
    again = run_inprocess("site", str(tmp_path / "again"), cwd=root)
    assert again.code == 0, again.text
    assert (tmp_path / "again/graph/graph_v1/graph_v1.tar.gz").read_bytes() == first
    assert first[4:8] == b"\0\0\0\0"  # gzip's own mtime is zero
