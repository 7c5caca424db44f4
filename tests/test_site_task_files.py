"""A frozen file can be read on the site: file names on version and fixture pages link to the file's
own page, a folder task's instruction, test script and task.toml are read on its page, and a folder
task without a title field is named by its instruction's first heading in tables and search."""

from __future__ import annotations

import json
import re
import shutil
from html import unescape
from pathlib import Path
from urllib.parse import unquote

import pytest

from conftest import run_inprocess


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("task-files") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    built = run_inprocess("site", str(root.parent / "site"), cwd=root)
    assert built.code == 0, built.text
    return root, root.parent / "site"


def _links_to(page: Path, rel: str) -> Path:
    """The file a link whose text is ``<code>rel</code>`` leads to, from ``page``."""
    found = re.search(r'<a href="([^"]+)"><code>' + re.escape(rel) + "</code></a>", page.read_text())
    assert found, f"{rel} is a link on {page.name}"
    return (page.parent / unquote(found.group(1))).resolve()


def test_a_folder_tasks_files_are_read_on_its_page(demo_site: tuple[Path, Path]) -> None:
    root, out = demo_site
    page = out / "tb/fixtures/count-words.html"
    html = unescape(page.read_text())
    frozen = root / "versions/tb_v1/tasks/count-words"
    for name in ("instruction.md", "tests/test.sh", "task.toml"):
        text = (frozen / name).read_text()
        assert text.strip() in html, name  # the whole file, on the fixture's page
        target = _links_to(page, f"tasks/count-words/{name}")
        assert target.is_file(), target
        assert text.strip() in unescape(target.read_text()), name


def test_every_file_on_a_version_page_links_to_its_content(demo_site: tuple[Path, Path]) -> None:
    root, out = demo_site
    page = out / "graph/graph_v2/index.html"
    files = json.loads((root / "versions/graph_v2/manifest.json").read_text())["files"]
    assert files
    for rel in files:
        target = _links_to(page, rel)
        frozen = (root / "versions/graph_v2" / rel).read_text()
        shown = unescape(target.read_text())
        assert frozen.strip() in shown and files[rel] in shown, rel


def test_a_folder_task_is_titled_by_its_instruction(demo_site: tuple[Path, Path]) -> None:
    _root, out = demo_site
    version = (out / "tb/tb_v1/index.html").read_text()
    assert re.search(r"count-words</a></td>.*<td>Count the words</td></tr>", version), "title in the table"
    suite = (out / "tb/index.html").read_text()
    assert '"count-words","Count the words","fixture"' in suite  # the search index
    assert '<p class="lead">Count the words</p>' in (out / "tb/fixtures/count-words.html").read_text()
