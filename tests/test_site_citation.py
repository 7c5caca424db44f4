"""Each version can be cited: a CITATION.cff and a BibTeX entry beside its page and on it, with the
license and maintainer freezer.yaml gives, and none invented when it gives none."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path

import yaml

from conftest import run_inprocess
from registry_helpers import commit_all


def _demo(tmp_path: Path, demo_build: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    return root


def test_a_version_is_cited_with_the_configs_license_and_maintainer(tmp_path: Path, demo_build: Path) -> None:
    root = _demo(tmp_path, demo_build)
    config = root / "freezer.yaml"
    config.write_text(config.read_text() + "license: CC-BY-4.0\nmaintainer: Ada Lovelace <ada@example.org>\n")
    commit_all(root, "license and maintainer")
    built = run_inprocess("site", str(tmp_path / "site"), cwd=root)
    assert built.code == 0, built.text
    folder = tmp_path / "site/graph/graph_v2"
    cff = yaml.safe_load((folder / "CITATION.cff").read_text())
    assert cff["cff-version"] == "1.2.0" and cff["version"] == "graph_v2" and cff["license"] == "CC-BY-4.0"
    assert cff["authors"] == [{"name": "Ada Lovelace", "email": "ada@example.org"}]
    cut_at = json.loads((root / "versions/graph_v2/manifest.json").read_text())["cut_at"]
    assert cff["date-released"] == cut_at[:10]
    page = unescape((folder / "index.html").read_text())
    archive_sha = re.search(r"graph_v2\.tar\.gz</a> \([^)]*\), sha256 <code class=\"hash\">(\w+)", page)
    assert (
        archive_sha
        and {"type": "other", "value": f"sha256:{archive_sha.group(1)}", "description": "sha256 of graph_v2.tar.gz"}
        in cff["identifiers"]
    )
    bib = (folder / "graph_v2.bib").read_text()
    assert bib.startswith("@misc{graph_v2,") and "author = {Ada Lovelace}" in bib and "license CC-BY-4.0" in bib
    assert bib in page  # the same entry, on the page
    assert 'href="CITATION.cff"' in page and 'href="graph_v2.bib"' in page


def test_nothing_is_invented_when_the_config_gives_no_license_or_maintainer(tmp_path: Path, demo_build: Path) -> None:
    root = _demo(tmp_path, demo_build)
    built = run_inprocess("site", str(tmp_path / "site"), cwd=root)
    assert built.code == 0, built.text
    folder = tmp_path / "site/tb/tb_v1"
    cff = yaml.safe_load((folder / "CITATION.cff").read_text())
    assert "authors" not in cff and "license" not in cff
    assert "set maintainer: in freezer.yaml" in (folder / "CITATION.cff").read_text()
    bib = (folder / "tb_v1.bib").read_text()
    assert "author =" not in bib and "license" not in bib
    assert "no maintainer or license given in freezer.yaml" in (folder / "index.html").read_text()


def test_a_config_with_a_license_that_is_not_text_is_refused(tmp_path: Path, demo_build: Path) -> None:
    root = _demo(tmp_path, demo_build)
    config = root / "freezer.yaml"
    config.write_text(config.read_text() + "license: [1]\n")
    built = run_inprocess("site", str(tmp_path / "site"), cwd=root)
    assert built.code == 1 and "freezer.yaml" in built.text and "license" in built.text, built.text
    assert not (tmp_path / "site").exists()
