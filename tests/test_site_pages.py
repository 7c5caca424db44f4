"""Issue 27: what each page of the site says, read from the files the real CLI writes.

The class column comes from what each version froze; a fixture's page shows the fixture, its files
and its history with line diffs; "latest" is the rule ``freezer.load("latest")`` follows; yanked and
deprecated versions are marked on every page that names them; the search index cannot close its
element whatever the data holds; and every kind of suite (graph, generic, folders, records, lm-eval)
gets its pages.
"""

from __future__ import annotations

import json
import re
import shutil
import warnings
from html import unescape
from pathlib import Path

import pytest
import yaml
from test_kind_lmeval import _cut_v1

import freezer
from freezer.site.site import SearchEntry, embedded

from conftest import run_inprocess
from registry_helpers import commit_all, demo_signed_by_alice, snapshot


def _site(root: Path, out: Path) -> dict[str, str]:
    built = run_inprocess("site", str(out), cwd=root)
    assert built.code == 0, built.text
    return {rel: data.decode("utf-8") for rel, data in snapshot(out).items() if rel.endswith((".html", ".json"))}


def _text(html: str) -> str:
    """What a reader reads: tags dropped, entities decoded, spaces collapsed."""
    inline = re.sub(r"</?(a|span|code|strong|em)\b[^>]*>", "", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", inline)).split())


@pytest.fixture(scope="module")
def graph_v3(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, dict[str, str]]:
    """The demo with graph_v3 cut: one fixture changed only in a cosmetic field (notes), one in its
    question (input: made multi-line), the rest untouched; and the site of it."""
    root = tmp_path_factory.mktemp("v3") / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    assert run_inprocess("next", "--suite", "graph", cwd=root).code == 0
    fixtures = root / "drafts/graph/fixtures"
    cosmetic = yaml.safe_load((fixtures / "locate-loopaudit-variants.yaml").read_text())
    cosmetic["notes"] = cosmetic["notes"] + " Re-read for v3."
    (fixtures / "locate-loopaudit-variants.yaml").write_text(yaml.safe_dump(cosmetic, sort_keys=False))
    changed = yaml.safe_load((fixtures / "impact-tool-context-struct-literals.yaml").read_text())
    changed["question"] = changed["question"] + "\nAlso name the crate of each site.\nOne per line."
    (fixtures / "impact-tool-context-struct-literals.yaml").write_text(yaml.safe_dump(changed, sort_keys=False))
    version = root / "drafts/graph/version.yaml"
    version.write_text(version.read_text().replace("# TODO(freezer next)", "# pinned as before:"))
    commit_all(root, "graph v3 drafts")
    cut = run_inprocess("cut", "v3", "--suite", "graph", cwd=root)
    assert cut.code == 0, cut.text
    return root, _site(root, root.parent / "site")


def _classes(version_page: str) -> dict[str, str]:
    rows = re.findall(
        r'<tr><td><a href="[^"]+">([^<]+)</a></td><td>[^<]*</td><td><span class="change change-(\w+)">', version_page
    )
    return dict(rows)


def test_the_class_column_is_what_each_version_froze(graph_v3: tuple[Path, dict[str, str]]) -> None:
    root, files = graph_v3
    v3 = _classes(files["graph/graph_v3/index.html"])
    assert v3["locate-loopaudit-variants"] == "cosmetic"
    assert v3["impact-tool-context-struct-literals"] == "changed"
    assert v3["callers-run-deterministic-containers"] == "unchanged"
    # The same classes as the version's frozen comparability record, for every landed fixture in it.
    record = json.loads((root / "versions/graph_v3/comparability.json").read_text())
    [against_v2] = [entry for entry in record["against"] if entry["version"] == "graph_v2"]
    for task, kind in against_v2["arms"][0]["classes"].items():
        if task in v3:
            assert v3[task] == kind, task
    # The dropped fixtures the record does not class are as the frozen delta says: in v2 added, in v3 unchanged.
    v2 = _classes(files["graph/graph_v2/index.html"])
    assert (
        v2["deps-orbit-common-reverse-consumers"] == "added"
        and v3["deps-orbit-common-reverse-consumers"] == "unchanged"
    )
    assert set(_classes(files["graph/graph_v1/index.html"]).values()) == {"added"}  # the first version
    assert "Removed since graph_v1" in files["graph/graph_v2/index.html"]
    assert "Removed since graph_v2" not in files["graph/graph_v3/index.html"]


def test_a_fixture_page_shows_the_fixture_its_files_and_its_history(graph_v3: tuple[Path, dict[str, str]]) -> None:
    root, files = graph_v3
    page = files["graph/fixtures/impact-tool-context-struct-literals.html"]
    text = _text(page)
    fixture = yaml.safe_load((root / "versions/graph_v3/fixtures/impact-tool-context-struct-literals.yaml").read_text())
    for key in fixture:
        assert f"<dt>{key} " in page or f"<dt>{key}</dt>" in page, key  # every field
    assert "One per line." in text and fixture["ground_truth"][0]["file"] in text  # nested values too
    assert re.search(r'<pre class="wrap">[^<]*Also name the crate', page)  # multi-line text in a wrapping pre
    digest = json.loads((root / "versions/graph_v3/manifest.json").read_text())["files"]
    rel = "fixtures/impact-tool-context-struct-literals.yaml"
    size = (root / "versions/graph_v3" / rel).stat().st_size
    assert f"<code>{rel}</code>" in page and digest[rel] in page and f"{size / 1024:.1f} KiB" in page
    # History newest first: the line diff of the question in v3, "first appears" in v2.
    assert text.index("graph_v3: changed") < text.index("graph_v2: added")
    assert '<span class="l-add">+Also name the crate of each site.</span>' in page
    assert '<span class="l-hunk">@@' in page
    cosmetic = files["graph/fixtures/locate-loopaudit-variants.html"]
    assert "graph_v3: cosmetic" in _text(cosmetic) and "Re-read for v3." in cosmetic
    # A folders fixture lists the files of its folder, each with its size.
    tb = files["tb/fixtures/count-words.html"]
    for name in ("task.toml", "instruction.md", "environment/Dockerfile", "tests/test.sh"):
        assert f"tasks/count-words/{name}</code>" in tb, name
    assert tb.count(" B</td>") + tb.count(" KiB</td>") >= 4


def test_the_diff_page_is_structured(graph_v3: tuple[Path, dict[str, str]]) -> None:
    _, files = graph_v3
    page = files["graph/diff/graph_v2..graph_v3.html"]
    assert "<pre>" not in page  # no wall of CLI text
    headings = re.findall(r"<h2>([^<]+)</h2>", page)
    assert headings == ["What moved", "Fixtures by class", "Field diffs"]
    text = _text(page)
    assert text.index("cosmetic 1") < text.index("unchanged") and "changed 1" in text
    assert '<span class="l-add">+One per line.</span>' in page
    first = files["graph/diff/graph_v1..graph_v2.html"]
    assert "Moved: fixture set" in _text(first) and "added 6" in _text(first) and "removed 5" in _text(first)


@pytest.fixture(scope="module")
def lifecycle_site(tmp_path_factory: pytest.TempPathFactory, demo_build: Path) -> tuple[Path, dict[str, str]]:
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen is not installed")
    root, key = demo_signed_by_alice(tmp_path_factory.mktemp("life"), demo_build)
    assert run_inprocess("yank", "graph_v2", "--reason", "the oracle leaks", "--key", str(key), cwd=root).code == 0
    deprecated = ["deprecate", "graph_v1", "--superseded-by", "graph_v2", "--reason", "asks worse questions"]
    assert run_inprocess(*deprecated, "--key", str(key), cwd=root).code == 0
    return root, _site(root, root.parent / "site")


def test_latest_skips_yanked_versions_as_load_does(lifecycle_site: tuple[Path, dict[str, str]]) -> None:
    root, files = lifecycle_site
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loaded = freezer.load("latest", registry=root, suite="graph")
    index = json.loads(files["index.json"])
    latest = {s["name"]: s["latest"] for s in index["suites"]}
    assert latest["graph"] == loaded.name == "graph_v1"  # graph_v2 is yanked
    assert latest["api"] == "api_v1"
    root_text = _text(files["index.html"])
    assert "latest: graph_v1" in root_text and "latest: graph_v2" not in root_text
    assert re.search(
        r'graph_v1</a> <span class="badge badge-latest">latest</span><span class="badge badge-deprecated"',
        files["index.html"],
    )
    assert "Latest: graph_v1" in _text(files["graph/index.html"])


def test_yanked_and_deprecated_versions_are_marked_everywhere(lifecycle_site: tuple[Path, dict[str, str]]) -> None:
    _, files = lifecycle_site
    for rel in ("index.html", "graph/index.html"):
        text = _text(files[rel])
        assert "yanked: the oracle leaks" in text and "deprecated: asks worse questions" in text, rel
    assert "This version is yanked: the oracle leaks" in _text(files["graph/graph_v2/index.html"])
    assert "This version is deprecated: asks worse questions. Use graph_v2" in _text(files["graph/graph_v1/index.html"])
    # A fixture's history marks the version it was frozen in.
    history = files["graph/fixtures/locate-loopaudit-variants.html"]
    assert re.search(
        r'graph_v2</a>: changed \(landed\) <span class="badge badge-yanked" title="the oracle leaks">', history
    )
    assert 'badge-deprecated" title="asks worse questions"' in history
    diff = files["graph/diff/graph_v1..graph_v2.html"]
    assert "graph_v1 → graph_v2" in _text(diff) and "graph_v2 is yanked: the oracle leaks" in _text(diff)
    assert "graph_v1 is deprecated: asks worse questions (use graph_v2)" in _text(diff)
    assert "badge-yanked" not in files["api/api_v1/index.html"]


@pytest.mark.parametrize(
    "hostile",
    ["</script><script>window.__x = 1</script>", "<!-- <script>", "</SCRIPT >", "a & b > c", "\u2028\u2029"],
    ids=repr,
)
def test_the_search_index_cannot_close_its_element(hostile: str) -> None:
    entries = [SearchEntry(hostile, f"title {hostile}", "fixture", "s", f"s/fixtures/{hostile}.html")]
    text = embedded(entries, "../")
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == [[hostile, f"title {hostile}", "fixture", "s", f"../s/fixtures/{hostile}.html"]]


def test_every_kind_of_suite_gets_its_pages(reg: Path, tmp_path: Path) -> None:
    """lm-eval, beside the registry's graph suite: task pages with their files, and the class column."""
    drafts = _cut_v1(reg)
    task = drafts / "tasks/logic-or.yaml"
    task.write_text(task.read_text() + "description: a second look\n")
    commit_all(reg, "bbh v2 drafts")
    cut = run_inprocess("cut", "bbh_v2", cwd=reg)
    assert cut.code == 0, cut.text
    files = _site(reg, tmp_path / "site")
    v2 = _classes(files["bbh/bbh_v2/index.html"])
    assert v2["logic-or"] in ("changed", "cosmetic") and v2["arith-add"] == "unchanged"
    page = files["bbh/fixtures/arith-add.html"]
    assert "tasks/arith-add.yaml</code>" in page and "tasks/_template.yaml</code>" in page
    assert "bbh_v2: unchanged" in _text(page)
    assert "bbh/diff/bbh_v1..bbh_v2.html" in files and "bbh_v2" in files["index.html"]
    for rel, html in files.items():
        if rel.endswith(".html"):
            assert "&lt;h" not in html and "&lt;td" not in html, rel


def test_the_diff_page_names_the_tasks_changed_through_their_files(tmp_path: Path, demo_build: Path) -> None:
    """bbh_v2 changes only tasks/utils.py under three tasks: the diff page says which, through which file."""
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    recorded = json.loads((root / "versions/bbh_v2/delta.json").read_text())["fixtures"]["changed_through_files"]
    assert recorded, "the demo's bbh_v2 changes tasks through their files"
    page = _text(_site(root, tmp_path / "site")["bbh/diff/bbh_v1..bbh_v2.html"])
    assert "Changed through their files only:" in page, page
    for change in recorded:
        assert f"{change['task_id']} ({', '.join(change['files'])})" in page, page
