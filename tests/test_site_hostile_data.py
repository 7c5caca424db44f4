"""Issue 23, classes 2, 10 and 12: data never names a file of the site, never becomes a link or an
image, and any fixture that validates renders, whatever fields it lacks.

Real registries with a suite under its own schema (task_id and status only), cut by the real CLI;
the site read back from disk; METHOD.md read by two Markdown engines, CommonMark (markdown-it-py,
as the site) and GitHub's (cmark-gfm, as a Markdown viewer).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cmarkgfm  # type: ignore[import-untyped]
import pytest
import yaml
from hostile.site_data import (
    CASE_COLLIDING_PATHS,
    MARKDOWN,
    NORMALISATION_COLLIDING_PATHS,
    TASK_IDS,
    UNSAFE_PAGE_PATHS,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from freezer.domain.errors import FreezerError, IntegrityError, LockBusy, UsageError
from freezer.domain.taskid import safe_file_name
from freezer.render import render
from freezer.site.site import markdown_html
from freezer.site.sitewriter import MARKER, UnsafeSitePath, write_site

from conftest import CHROMIUM, EXAMPLES, assert_clean_failure, run_inprocess
from registry_helpers import API_SUITE, commit_all, snapshot

MINIMAL_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "required": ["task_id", "status"],
    "properties": {"task_id": {"type": "string"}, "status": {"enum": ["landed", "dropped"]}},
}


def _own_suite(reg: Path, fixtures: list[dict[str, Any]], version: dict[str, Any] | None = None) -> Path:
    """The tests' registry with suite ``api`` under a schema that needs only task_id and status."""
    (reg / "suite.schema.json").write_text(json.dumps(MINIMAL_SCHEMA))
    config = reg / "freezer.yaml"
    config.write_text(config.read_text() + API_SUITE.replace("kind: generic", "schema: suite.schema.json"))
    drafts = reg / "drafts/api"
    (drafts / "fixtures").mkdir(parents=True)
    record = yaml.safe_load((EXAMPLES / "generic/v1/version.yaml").read_text())
    record["acceptance"]["min_landed"] = 1
    record.update(version or {})
    (drafts / "version.yaml").write_text(yaml.safe_dump(record, sort_keys=False, allow_unicode=True))
    for index, fixture in enumerate(fixtures):
        text = yaml.safe_dump(fixture, sort_keys=False, allow_unicode=True)
        (drafts / f"fixtures/f{index:03}.yaml").write_text(text)
    commit_all(reg, "own-schema suite")
    cut = run_inprocess("cut", "api_v1", cwd=reg)
    assert cut.code == 0, cut.text
    return reg


def _site(reg: Path, out: Path) -> dict[str, bytes]:
    result = run_inprocess("site", str(out), cwd=reg)
    assert result.code == 0, result.text
    return snapshot(out)


_SEARCH_DATA = re.compile(r'<script type="application/json" id="search-data">[^<]*</script>')
_SEARCH_SCRIPT = re.compile(r"<script>\n\(function \(\) \{\n.*?\n\}\)\(\);\n</script>", re.DOTALL)


def without_search(html: str) -> str:
    """A page less its search box's index (JSON holding no ``<`` at all, so no data can close it) and
    the site's own search script: what is left must hold no script."""
    return _SEARCH_SCRIPT.sub("", _SEARCH_DATA.sub("", html, count=1), count=1)


def _links(html: str) -> list[str]:
    return re.findall(r'(?:href|src)="([^"]*)"', html)


# Class 2: data names files.


def test_task_ids_never_choose_where_the_site_writes(reg: Path, tmp_path: Path) -> None:
    root = _own_suite(reg, [{"task_id": task, "status": "landed"} for task in TASK_IDS])
    registry_before = snapshot(root)
    out = tmp_path / "out" / "site"
    files = _site(root, out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "registry"]
    assert list((tmp_path / "out").iterdir()) == [out]
    assert snapshot(root) == registry_before
    pages = [rel for rel in files if rel.startswith("api/fixtures/")]
    assert len(pages) == len(TASK_IDS)  # one page each: no two ids collide, none lands elsewhere
    assert len({rel.casefold() for rel in files}) == len(files)  # not even on a case-insensitive disk
    assert all(re.fullmatch(r"api/fixtures/[a-z0-9._~-]+\.html", rel) for rel in pages), pages
    assert all(len(rel.rsplit("/", 1)[1]) <= 120 for rel in pages)
    index = json.loads(files["index.json"])
    api = next(s for s in index["suites"] if s["name"] == "api")
    assert sorted(api["fixtures"]) == sorted(TASK_IDS)
    for task in TASK_IDS:
        page = files[api["fixtures"][task]].decode()
        assert f"History of {_escaped(task)}" in page  # the page of that id, named by the mapping
        assert api["fixtures"][task] == f"api/fixtures/{safe_file_name(task)}.html"
    # The other suite's page and the registry's index were not replaced by a fixture's history.
    assert b"Suite graph" in files["graph/index.html"] and b"Benchmark registry" in files["index.html"]
    assert b"Suite api" in files["api/index.html"]
    for rel, data in files.items():
        if rel.endswith(".html"):
            for link in _links(data.decode()):
                target = (out / rel).parent / link.split("#", 1)[0]  # index.html#main: a place in that page
                assert target.resolve().is_file() and out.resolve() in target.resolve().parents, (rel, link)


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&#34;")


@pytest.mark.parametrize("rel", UNSAFE_PAGE_PATHS, ids=repr)
def test_the_site_writer_refuses_a_path_that_could_leave_it(rel: str, tmp_path: Path) -> None:
    out = tmp_path / "parent" / "site"
    files = {"index.html": b"ok", MARKER: b"", rel: b"pwned"}
    with pytest.raises(UnsafeSitePath):
        write_site(out, files)
    assert not (tmp_path / "parent").exists() or list((tmp_path / "parent").iterdir()) == []
    assert not (tmp_path / "escape.html").exists()


@pytest.mark.parametrize(
    "paths",
    [CASE_COLLIDING_PATHS, NORMALISATION_COLLIDING_PATHS, ["a/b.html", "a"], ["a", "a/b.html"], ["A/b.html", "a"]],
    ids=["case", "normalisation", "file-then-folder", "folder-then-file", "case-folder"],
)
def test_the_site_writer_refuses_paths_that_clash(paths: list[str], tmp_path: Path) -> None:
    out = tmp_path / "site"
    with pytest.raises(UnsafeSitePath):
        write_site(out, dict.fromkeys(paths, b"x"))
    assert list(tmp_path.iterdir()) == []


def test_the_site_writer_refuses_links_and_folders_it_did_not_make(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    link = tmp_path / "link"
    link.symlink_to(elsewhere)
    with pytest.raises(UsageError, match="is not a folder"):
        write_site(link, {"index.html": b"x"})
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "keep.txt").write_text("keep")
    with pytest.raises(UsageError, match="holds no site built by freezer"):
        write_site(mine, {"index.html": b"x"})
    # A marker that is a link does not make a folder a site.
    (mine / MARKER).symlink_to(tmp_path / "nowhere")
    with pytest.raises(UsageError, match="holds no site built by freezer"):
        write_site(mine, {"index.html": b"x"})
    assert sorted(p.name for p in mine.iterdir()) == [MARKER, "keep.txt"] and list(elsewhere.iterdir()) == []


def test_the_site_replaces_its_folder_whole_with_an_ordinary_mode(tmp_path: Path) -> None:
    out = tmp_path / "site"
    write_site(out, {MARKER: b"", "index.html": b"one", "a/old.html": b"old"})
    inode = os.stat(out).st_ino
    write_site(out, {MARKER: b"", "index.html": b"two"})
    assert snapshot(out) == {MARKER: b"", "index.html": b"two"} and os.stat(out).st_ino != inode
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no staging or retired folder left
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o777 & ~umask  # not mkdtemp's private 0700
    assert stat.S_IMODE(os.stat(out / "index.html").st_mode) == 0o666 & ~umask


_READER = """
import os, sys
page, stop = sys.argv[1], sys.argv[2]
missing = 0
while not os.path.exists(stop):
    missing += not os.path.exists(page)
print(missing)
"""


CONTROL_ROUNDS = 20  # rounds of 200 rebuilds the two-rename control may take to see its first miss


def _misses_while_replacing(out: Path) -> int:
    """How often a reader in another process found the site missing during 200 rebuilds."""
    import subprocess
    import sys
    import time

    write_site(out, {MARKER: b"", "index.html": b"0"})
    stop = out.parent / "stop"
    reader = subprocess.Popen(
        [sys.executable, "-c", _READER, str(out / "index.html"), str(stop)], stdout=subprocess.PIPE, text=True
    )
    try:
        time.sleep(0.2)
        for number in range(1, 200):
            write_site(out, {MARKER: b"", "index.html": str(number).encode()})
    finally:
        stop.write_text("")
        printed, _ = reader.communicate(timeout=60)
    assert (out / "index.html").read_bytes() == b"199"
    return int(printed)


def test_a_reader_never_finds_the_site_missing_while_it_is_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from freezer.site import sitewriter

    if sitewriter._EXCHANGE is None:
        pytest.skip("this platform has no atomic exchange; the site is replaced by two renames")
    assert _misses_while_replacing(tmp_path / "one" / "site") == 0
    # The check can see a gap: replaced by two renames (macOS), a reader does find the site missing.
    # On a busy machine the reader may not be scheduled inside the gap during one round of 200
    # rebuilds, so rounds are repeated (each a fresh site) until one sees a miss, up to a bound.
    monkeypatch.setattr(sitewriter, "_EXCHANGE", None)
    misses = [_misses_while_replacing(tmp_path / "two-0" / "site")]
    while misses[-1] == 0 and len(misses) < CONTROL_ROUNDS:
        misses.append(_misses_while_replacing(tmp_path / f"two-{len(misses)}" / "site"))
    assert misses[-1] > 0, f"no reader saw the gap of two renames in {len(misses)} rounds of 200 rebuilds"


def test_without_an_atomic_exchange_the_site_is_still_replaced_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from freezer.site import sitewriter

    monkeypatch.setattr(sitewriter, "_EXCHANGE", None)  # as on macOS: two renames
    out = tmp_path / "site"
    write_site(out, {MARKER: b"", "index.html": b"one", "old.html": b"old"})
    write_site(out, {MARKER: b"", "index.html": b"two"})
    assert snapshot(out) == {MARKER: b"", "index.html": b"two"}
    assert [p.name for p in tmp_path.iterdir()] == ["site"]


@contextmanager
def _lock_held_elsewhere(root: Path) -> Iterator[None]:
    """The registry lock held by another process (a cut, a sign) for the block."""
    import subprocess
    import sys

    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from freezer.runtime.lock import registry_lock\n"
            "with registry_lock(Path(sys.argv[1])):\n    print('held', flush=True); sys.stdin.read()",
            str(root),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        yield
    finally:
        holder.communicate(timeout=60)


def test_a_site_inside_the_registry_takes_the_lock_and_the_path_guard(reg: Path, tmp_path: Path) -> None:
    before = snapshot(reg / "drafts")
    for inside in ("drafts/graph/site", "versions/graph_v9", ".git/site", ".freezer/site", "."):
        result = run_inprocess("site", inside, cwd=reg)
        assert_clean_failure(result, code=2)
        assert "where freezer keeps its own files" in result.text, result.text
    assert snapshot(reg / "drafts") == before and not (reg / "versions/graph_v9").exists()
    outside = tmp_path / "outside"
    outside.mkdir()
    (reg / "linked").symlink_to(outside)
    result = run_inprocess("site", "linked/site", cwd=reg)
    assert_clean_failure(result)
    assert "symbolic link" in result.text and list(outside.iterdir()) == []
    from freezer.registry import config as config_mod
    from freezer.site import site

    files = site.build(config_mod.load(reg))
    with _lock_held_elsewhere(reg), pytest.raises(LockBusy):
        site.write(reg / "site", files)
    assert not (reg / "site").exists()
    site.write(reg / "site", files)
    assert (reg / "site/index.html").is_file()


# Class 10: any fixture that validates renders.


def test_a_site_of_fixtures_with_nothing_but_task_id_and_status(reg: Path, tmp_path: Path) -> None:
    fixtures: list[dict[str, Any]] = [
        {"task_id": "bare-landed", "status": "landed"},
        {"task_id": "bare-other", "status": "landed"},
        {"task_id": "own-fields", "status": "landed", "instruction": "Print hello.", "timeout_s": 30},
        {"task_id": "bare-dropped", "status": "dropped", "dropped": {"stage": "drafting", "reason": "why"}},
    ]
    root = _own_suite(reg, fixtures)
    files = _site(root, tmp_path / "site")
    version = files["api/api_v1/index.html"].decode()
    for fixture in fixtures:
        task, status = fixture["task_id"], fixture["status"]
        title = fixture.get("instruction", "")
        row = f'<tr><td><a href="../fixtures/{task}.html">{task}</a></td><td></td>'
        row += f'<td><span class="change change-added">added</span></td><td>{status}</td><td>{title}</td></tr>'
        assert row in version
        assert f"History of {task}" in files[f"api/fixtures/{task}.html"].decode()
    assert b"bare-landed" in files["api/index.html"]
    assert run_inprocess("audit", "--no-code", cwd=root).code == 0


# Class 12: fixture text never becomes a link or an image.

_LINKING = re.compile(r"<(a|img|script|iframe|input|sup|section|del|em|math)\b", re.IGNORECASE)


def _commonmark(markdown: str) -> str:
    return str(MarkdownIt("commonmark").enable("table").render(markdown))  # raw HTML on: the strictest


def _github(markdown: str) -> str:
    """GitHub's rendering, less the one link no escape can stop: cmark-gfm finds a bare e-mail address
    after joining the escaped text, and links it as mailto: (it loads nothing; it opens a mail client)."""
    html = str(cmarkgfm.github_flavored_markdown_to_html(markdown))
    return re.sub(r'<a href="mailto:[^"<>]*@[^"<>]*">([^<]*)</a>', r"\1", html)


def _cell_table(cell: str) -> str:
    return f"| head |\n|---|\n| {cell} |\n"


@pytest.mark.parametrize("payload", MARKDOWN, ids=repr)
@pytest.mark.parametrize("engine", [_commonmark, _github], ids=["commonmark", "github"])
def test_prose_and_cells_open_no_inline_markup(payload: str, engine: Any) -> None:
    for markdown in (render.text_v3(payload), _cell_table(render.cell_v3(payload))):
        html = engine(markdown)
        assert not _LINKING.search(html), (markdown, html)
        assert "<strong>" not in html and "<code>" not in html and "<h" not in html.replace("<hr", "")
        assert "://127.0.0.1" not in re.sub(r">[^<]*<", "><", html)  # in text only, never in a tag


@pytest.mark.parametrize("payload", MARKDOWN, ids=repr)
def test_the_text_reads_as_typed(payload: str) -> None:
    """Escaping changes no character a reader sees: the rendered text is the payload."""
    for markdown in (render.text_v3(payload), _cell_table(render.cell_v3(payload))):
        tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
        shown = " ".join(t.content for t in tokens if t.type == "inline" for t in (t.children or []))
        assert " ".join(shown.split()).removeprefix("head ") == " ".join(payload.split())


def test_escaping_leaves_ordinary_text_readable() -> None:
    """Only what could open markup is escaped: identifiers, parentheses and plain punctuation stay."""
    assert render.text_v3("graph_v1 run_deterministic (see 3.2), a-b: ok! 50%") == (
        "graph_v1 run_deterministic (see 3.2), a-b: ok! 50%"
    )
    assert (
        render.cell_v3("__init__ _x_ a*b ![i](u) $5 ~x~") == "\\_\\_init\\_\\_ \\_x\\_ a\\*b \\!\\[i\\](u) \\$5 \\~x\\~"
    )
    assert render.cell_v3("see https://a.test and WWW.b.test") == "see https\\://a.test and WWW\\.b.test"


_ALPHABET = st.characters(codec="ascii", exclude_categories=["Cc"]) | st.sampled_from(["\n", "é", "ü", "\t"])


@settings(max_examples=400, deadline=None)
@given(st.text(_ALPHABET, max_size=40))
def test_any_text_stays_plain_text(text: str) -> None:
    for markdown in (render.text_v3(text), _cell_table(render.cell_v3(text))):
        tokens = MarkdownIt("commonmark").enable("table").parse(markdown)
        kinds = {t.type.removesuffix("_open").removesuffix("_close") for t in tokens}
        assert kinds <= {"paragraph", "inline", "table", "thead", "tbody", "tr", "th", "td"}, (text, markdown)
        children = {c.type for t in tokens if t.type == "inline" for c in t.children or []}
        assert children <= {"text", "softbreak", "hardbreak"}, (text, markdown, children)
        github = _github(markdown)
        assert not _LINKING.search(github), (text, markdown, github)


def _cells(count: int) -> list[str]:
    """``count`` table-cell payloads of at most 200 characters, together holding every payload."""
    flat = [" ".join(p.split()) for p in MARKDOWN]
    return [" ".join(flat[i::count])[:200] for i in range(count)]


def test_cells_and_prose_of_a_whole_method_md_stay_text(reg: Path, tmp_path: Path) -> None:
    prose = "\n".join(MARKDOWN)
    cell = _cells(16)
    fixture = {
        "task_id": "hostile-prose",
        "status": "landed",
        # freezer reads class itself and bounds it at 40 characters; the whole cell goes in metadata.
        "class": cell[0][:40],
        "difficulty": cell[1],
        "question": prose,
        "prompt": prose,
        "why_grep_fails": prose,
        "notes": prose,
        "graph_tool_path": {"tools": ["x"], "resolution": prose},
        "oracle": {"must_include": [cell[2]], "must_not_include": [cell[3]]},
        "metadata": {"key": cell[4], cell[5][:40]: "value", "class-cell": cell[0]},
        "gate_c": [
            {
                "provider": cell[6][:100],
                "model": cell[7],
                "seed": 1,
                "budget": None,
                "verdict": "pass",
                "cost_usd": None,
                "cost_note": cell[8],
            }
        ],
    }
    dropped = {"task_id": "hostile-dropped", "status": "dropped", "dropped": {"stage": "drafting", "reason": prose}}
    version = {
        "title": cell[9],
        "purpose": prose,
        "rationale": prose,
        "known_caveats": [prose, cell[10]],
        "sweep_notes": [{"title": cell[11], "body": prose}],
        "binary": {
            "name": "orbit-harness",
            "build_sha": "7df885db",
            "consumers": [{"provider": cell[12], "mechanism": cell[13], "via": cell[14]}],
        },
    }
    root = _own_suite(reg, [fixture, dropped], version)
    manifest = json.loads((root / "versions/api_v1/manifest.json").read_text())
    assert manifest["checks"]["markdown_rules"] == render.MARKDOWN_RULES == 4  # issue 27: rules 4
    method = (root / "versions/api_v1/METHOD.md").read_text()
    assert method.count("beacon") >= 20  # every field above is shown
    for engine in (_commonmark, _github):
        html = engine(method)
        assert not re.search(r"<(img|script|iframe|input|sup|section|del|em)\b", html), engine
        assert re.findall(r"<a\b[^>]*>", html) == [], engine
    audited = run_inprocess("audit", "--no-code", cwd=root)
    assert audited.code == 0, audited.text  # audit re-renders with the rules the manifest records
    files = _site(root, tmp_path / "site")
    for rel, data in files.items():
        if rel.endswith(".html"):
            html = data.decode()
            assert "<img" not in html and "<script" not in without_search(html), rel
            assert all("://" not in link for link in _links(html)), rel


def test_the_site_renders_no_link_or_image_from_an_old_method_md() -> None:
    """Versions cut before rules 3 hold the payloads as typed; the site still shows them as text."""
    old = "\n\n".join(MARKDOWN)
    html = markdown_html(old)
    assert not re.search(r"<(a|img|script|input|sup)\b", html), html
    assert "![beacon](http://127.0.0.1:9/beacon.png)" in html
    assert "[ref]: http://127.0.0.1:9/definition" in html  # a definition is not swallowed either
    assert "<table>" in markdown_html("| a |\n|---|\n| b |\n")  # METHOD.md's own tables still render


def test_old_versions_keep_their_rules_and_a_template_cannot_lower_them() -> None:
    payload = "_em_ ![x](http://127.0.0.1:9/x.png) a|b"
    template = "{{ p | text }}\n{{ p | cell }}\n"
    rendered = {rules: render.render_method(template, {"p": payload, "markdown_rules": rules}) for rules in (1, 2, 3)}
    assert rendered[1] == f"{render.text(payload)}\n{render.cell(payload)}\n"
    assert rendered[2] == f"{render.text_v2(payload)}\n{render.cell(payload)}\n"
    assert rendered[3] == f"{render.text_v3(payload)}\n{render.cell_v3(payload)}\n"
    assert "![x]" in rendered[2] and "\\!\\[x\\]" in rendered[3]
    lowered = render.render_method("{% set markdown_rules = 1 %}" + template, {"p": payload, "markdown_rules": 3})
    assert lowered == rendered[3]


@pytest.mark.parametrize("recorded", [5, "3", True, None, [3]], ids=repr)  # 4: known since issue 27
def test_rules_this_freezer_does_not_know_are_refused(recorded: Any) -> None:
    from freezer.render.method import markdown_rules

    if recorded is None:
        assert markdown_rules(recorded, 3) == 2
        return
    with pytest.raises(IntegrityError, match="markdown_rules"):
        markdown_rules(recorded, 3)


# The read side: a manifest names files only inside its version.


@pytest.mark.parametrize("listed", ["../../../secret.yaml", "/tmp/secret.yaml", "fixtures/../../../secret.yaml"])
def test_an_unverified_manifest_cannot_make_freezer_read_outside(reg: Path, tmp_path: Path, listed: str) -> None:
    from freezer.domain.manifest import Manifest
    from freezer.registry import registry
    from freezer.registry.record import load_frozen_drafts

    root = _own_suite(reg, [{"task_id": "one", "status": "landed"}])
    secret = tmp_path / "secret.yaml"
    secret.write_text("task_id: the-secret-content\nstatus: landed\n")
    frozen = registry.FrozenVersion("api", 1, root / "versions/api_v1")
    manifest = json.loads((frozen.path / "manifest.json").read_text())
    manifest["files"][listed.replace("/tmp/", f"{tmp_path}/")] = "0" * 64
    with pytest.raises(IntegrityError, match="it lists") as raised:
        load_frozen_drafts(frozen, Manifest.from_data(manifest))
    assert "the-secret-content" not in str(raised.value)


def test_a_linked_folder_in_a_version_is_not_read_through(reg: Path, tmp_path: Path) -> None:
    from freezer.registry import registry
    from freezer.registry.record import load_frozen_drafts

    root = _own_suite(reg, [{"task_id": "one", "status": "landed"}])
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(root / "versions/api_v1/fixtures", elsewhere)
    shutil.rmtree(root / "versions/api_v1/fixtures")
    (root / "versions/api_v1/fixtures").symlink_to(elsewhere)
    frozen = registry.FrozenVersion("api", 1, root / "versions/api_v1")
    with pytest.raises(FreezerError, match="symbolic link"):
        load_frozen_drafts(frozen, frozen.manifest_model())


# In a real browser: nothing the site or a Markdown viewer shows sends a request anywhere.


class _Recorder:
    """An HTTP server on 127.0.0.1 that records every request it is sent."""

    def __init__(self) -> None:
        import http.server
        import threading

        self.requests: list[str] = []
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                recorder.requests.append(self.path)
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        # stop()'s shutdown() waits for the loop's next poll: 0.5 s by default
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
def test_no_page_and_no_markdown_view_sends_a_request(reg: Path, tmp_path: Path, browser: Any) -> None:
    recorder = _Recorder()
    try:
        payloads = [p.replace("127.0.0.1:9", f"127.0.0.1:{recorder.port}") for p in MARKDOWN]
        prose = "\n".join(payloads)
        fixture: dict[str, Any] = {"task_id": "beacon", "status": "landed", "question": prose, "notes": prose}
        fixture["oracle"] = {"must_include": [" ".join(payloads[:3])], "must_not_include": []}
        root = _own_suite(reg, [fixture], {"purpose": prose, "title": " ".join(payloads[:2])})
        out = tmp_path / "site"
        _site(root, out)
        viewer = tmp_path / "METHOD.html"  # METHOD.md as GitHub's Markdown shows it
        method = (root / "versions/api_v1/METHOD.md").read_text()
        viewer.write_text(f"<!DOCTYPE html><title>METHOD</title>{cmarkgfm.github_flavored_markdown_to_html(method)}")
        control = tmp_path / "control.html"
        control.write_text(f'<!DOCTYPE html><title>c</title><img alt="" src="http://127.0.0.1:{recorder.port}/ctl">')
        pages = [*sorted(out.rglob("*.html")), viewer]
        tab = browser.new_page()
        for page in pages:
            tab.goto(page.as_uri(), wait_until="networkidle")
            for link in tab.eval_on_selector_all("a[href]", "as => as.map(a => a.href)"):
                # GitHub links a bare e-mail address (see _github): mailto: only, in the viewer only.
                assert link.startswith("file://") or (page == viewer and link.startswith("mailto:")), link
        assert recorder.requests == [], recorder.requests
        tab.goto(control.as_uri(), wait_until="networkidle")  # the harness does see a request
        assert recorder.requests == ["/ctl"]
        tab.close()
        assert len(pages) >= 6
    finally:
        recorder.stop()


def _reseal(version: Path, rel: str, text: str) -> None:
    """Rewrite one frozen file and every hash that covers it, as a hand-made pull request could:
    the version passes the integrity check that the site runs."""
    import hashlib

    from freezer.freeze.assemble import sha256sums

    for path in [version, *version.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    (version / rel).write_text(text, encoding="utf-8")
    manifest = json.loads((version / "manifest.json").read_text())
    manifest["files"][rel] = hashlib.sha256((version / rel).read_bytes()).hexdigest()
    (version / "manifest.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    files = {p.relative_to(version).as_posix(): p.read_bytes() for p in version.rglob("*") if p.is_file()}
    del files["SHA256SUMS"]
    (version / "SHA256SUMS").write_bytes(sha256sums(files))


@pytest.mark.parametrize(
    ("task_id", "readable"),
    [
        ("\x1b[31mred", False),
        ("a\u202eb", False),
        ("nul\x00x", False),
        ("../../\x1b]8;;http://x\x07index", False),
        ("tab\there", True),
        ("../line\nbreak", True),
    ],
    ids=repr,
)
def test_a_hand_made_version_with_control_characters_in_an_id(
    reg: Path, tmp_path: Path, task_id: str, readable: bool
) -> None:
    """Validation refuses these ids, but a pull request can commit a frozen version holding one, its
    hashes made to match: freezer's reader refuses the controls it refuses in drafts (the site stops
    with the file named, writing nothing), and tab and newline, which data may hold, get a mapped page."""
    root = _own_suite(reg, [{"task_id": "one", "status": "landed"}])
    _reseal(root / "versions/api_v1", "fixtures/f000.yaml", f"task_id: {json.dumps(task_id)}\nstatus: landed\n")
    out = tmp_path / "site"
    result = run_inprocess("site", str(out), cwd=root)
    if not readable:
        assert_clean_failure(result)
        assert "f000.yaml: frozen file cannot be read" in result.text and not out.exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["registry"]
        return
    assert result.code == 0, result.text
    files = snapshot(out)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["registry", "site"]
    [page] = [rel for rel in files if rel.startswith("api/fixtures/")]
    assert page == f"api/fixtures/{safe_file_name(task_id)}.html"
    assert re.fullmatch(r"api/fixtures/[a-z0-9._-]*~[0-9a-f]{16}\.html", page)


@pytest.mark.parametrize(
    "schema",
    [
        {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"},
        {"oneOf": [True]},
        {"$ref": "http://127.0.0.1:9/x.json"},
    ],
    ids=["ref-cycle", "boolean-branch", "remote-ref"],
)
def test_a_frozen_schema_is_vetted_as_a_suite_schema_is(reg: Path, schema: dict[str, Any]) -> None:
    """A hand-made version in a pull request carries its own fixture.schema.json: it must not loop,
    crash or reach out when audit, list or the site read it."""
    root = _own_suite(reg, [{"task_id": "one", "status": "landed"}])
    _reseal(root / "versions/api_v1", "fixture.schema.json", json.dumps(schema))
    for command in (["audit", "--no-code", "api_v1"], ["site", str(reg / "out")]):
        result = run_inprocess(*command, cwd=root, timeout=60)
        assert_clean_failure(result)
        assert "fixture.schema.json" in result.text, (command, result.text)
    # show checks hashes only and never reads the schema; a fixture without class shows as "-".
    shown = run_inprocess("show", "api_v1", cwd=root, timeout=60)
    assert shown.code == 0 and "internal error" not in shown.text, shown.text
