"""``freezer site OUT``: the registry as a static site anyone can archive.

Pages are built from the same engines as METHOD.md, ``diff`` and ``compare`` (no second copy of the
delta logic), rendered by one sandboxed, autoescaping Jinja2 environment (:mod:`freezer.site.html`),
and METHOD.md is turned into HTML by markdown-it-py with raw HTML, links, images, autolinks and link
reference definitions all disabled, so no fixture text can inject markup or script, or make a page
load or link anything. Every name that comes from data becomes a file name in
:mod:`freezer.site.names`, and every link is built from those same names, URL-escaped;
:mod:`freezer.site.sitewriter` refuses any path that would leave the site's folder. Every link is
relative but a ground-truth site's link to its code host (:mod:`freezer.site.codelinks`), the only
script is the search box's own (the pages read fine without it), the stylesheet is
the site's own file, and the same registry gives byte-identical files (no clock, everything sorted).
The build returns the files; the CLI writes them.

One module per page kind: :mod:`~freezer.site.indexpage` (the root index and a suite's page),
:mod:`~freezer.site.versionpage`, :mod:`~freezer.site.fixturepage`, :mod:`~freezer.site.diffpage`;
the search box's index (:func:`embedded`) and ``freezer site``'s outcome (:class:`Built`) are here;
:mod:`~freezer.site.sitewriter` writes the files.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freezer.compare.delta import compute as compute_delta
from freezer.domain import canonical
from freezer.domain.jsontypes import JsonObject, json_list
from freezer.domain.problems import display_path
from freezer.domain.release import __version__
from freezer.domain.taskid import safe_file_name
from freezer.query import table
from freezer.query.outcomes import with_log
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.record import dimensions_of, groups_of, read
from freezer.runtime import resources, work
from freezer.runtime.reading import read_whole
from freezer.site import diffpage, filepage, fixturepage, indexpage, plot, versionpage
from freezer.site.archive import version_archive
from freezer.site.citation import Citation
from freezer.site.html import environment, inert, markdown_html, markup
from freezer.site.names import (
    RESULTS_FILE,
    archive_file,
    citation_files,
    diff_file,
    excluded_anchor,
    fixture_file,
    frozen_file_page,
    version_file,
)
from freezer.site.sitewriter import MARKER, write_site
from freezer.site.versionpage import VersionPage, title_in
from freezer.trust import signing, verified

__all__ = ["MARKER", "SiteFiles", "build", "inert", "markdown_html", "write"]

STYLESHEET = "site.css"
# Below this much METHOD.md text (characters), rendering it in this process is as fast as forking
# workers for it, and cheaper: the demo's 7 METHOD.md (61 KB) took 57-68 ms here against 51-55 ms
# on two forked workers and 30 ms more CPU; 14 (123 KB) took 89-92 ms against 71-87 ms, and 28
# (247 KB) 179-290 ms against 142-161 ms.
MARKDOWN_PARALLEL_FROM = 128 * 1024


def _suite_pages(
    config: RegistryConfig, suite: SuiteConfig, env: Any, known: verified.VerifiedView
) -> tuple[dict[str, str], dict[str, bytes], JsonObject, list[indexpage.VersionRow], list[SearchEntry]]:
    """Every page of one suite (paths relative to the suite's folder), the files it offers as they
    are (each version's archive), its index.json entry, its versions as the root index lists them,
    and its search entries."""
    versions = [
        VersionPage(
            frozen,
            read(frozen),
            known.of(frozen.name),
            signing.verify(config, suite, frozen),
            tuple(str(p) for p in known.version_problems(frozen.name)),
            groups_of(frozen, frozen.manifest_model()),
        )
        for frozen in Suite.of(suite).versions()
    ]
    names = [v.frozen.name for v in versions]
    previous: list[str | None] = [None, *names][: len(names)]
    classes = [versionpage.frozen_classes(page, before) for page, before in zip(versions, previous, strict=True)]
    log = {page.frozen.name: versionpage.log_row(page) for page in versions}
    latest = indexpage.latest_name(versions, known)
    statuses = {v.frozen.name: v.status for v in versions}
    common = {"suite": suite.name, "statuses": statuses, "latest": latest, "stylesheet": STYLESHEET}
    sides = [page.data.side() for page in versions]
    pages: dict[str, str] = {}
    # Each version was read (and hash-checked) once above; the diffs reuse those reads.
    for index, pair in enumerate(itertools.pairwise(sides), start=1):
        delta = compute_delta(list(pair), dimensions_of(pair[1].manifest), full=True)
        diff = diffpage.diff_context(delta.to_json(), classes[index])
        rel = diff_file(names[index - 1], names[index])
        pages[rel] = env.get_template("diff.html.j2").render(root="../../", here=_here(rel), **common, **diff)
    methods = _methods_html([page.frozen.path / registry.METHOD for page in versions])
    offered: dict[str, bytes] = {}
    for index, page in enumerate(versions):
        context = versionpage.version_context(page, previous[index], sides[: index + 1], markup(methods[index]))
        rel = version_file(page.frozen.name)
        archive = version_archive(page.frozen.path, page.data.manifest.cut_at)
        offered[archive_file(page.frozen.name)] = archive
        download = {"name": _here(archive_file(page.frozen.name)), "sha256": hashlib.sha256(archive).hexdigest()}
        cite = Citation(
            suite.name,
            page.frozen.name,
            context["title"],
            page.data.manifest.cut_at,
            context["manifest_sha256"],
            download["sha256"],
            config.license,
            config.maintainer,
        )
        cff, bib = citation_files(page.frozen.name)
        offered[cff], offered[bib] = cite.cff().encode("utf-8"), cite.bibtex().encode("utf-8")
        pages[rel] = env.get_template("version.html.j2").render(
            root="../../",
            here=_here(rel),
            **common,
            **context,
            download=download,
            download_size=len(archive),
            citation=cite,
            citation_paths=(_here(cff), _here(bib)),
        )
        pages.update(_file_pages(env, page, common, download["name"]))
    histories = fixturepage.histories(versions, classes)
    for task_id, history in sorted(histories.items()):
        shown = fixturepage.fixture_context(task_id, history, versions)
        rel = fixture_file(task_id)
        pages[rel] = env.get_template("fixture.html.j2").render(root="../../", here=_here(rel), **common, **shown)
    diffs = indexpage.diff_rows(versions)
    search = _search_entries(suite.name, versions, histories)
    [board] = table.table(config, suite.name).suites
    has_results = bool(board.versions or board.problems)
    if has_results:
        pages[RESULTS_FILE] = _results_page(env, board, common)
    pages["index.html"] = env.get_template("suite.html.j2").render(
        root="../",
        here="index.html",
        **common,
        versions=indexpage.version_rows(versions, log, latest, ""),
        diffs=diffs,
        fixtures=[
            {"task_id": task, "path": fixture_file(task), "title": _title(histories[task], versions, task)}
            for task in sorted(histories)
        ],
        search=embedded(search, "../"),
        results=RESULTS_FILE if has_results else None,
    )
    entry = indexpage.index_entry(suite.name, versions, diffs, sorted(histories), latest)
    listed = indexpage.version_rows(versions, log, latest, f"{safe_file_name(suite.name)}/")
    return pages, offered, entry, listed, search


def _file_pages(env: Any, page: VersionPage, common: Mapping[str, object], archive: str) -> dict[str, str]:
    """A page for each file the version's manifest lists: the file's text, read on the site."""
    out: dict[str, str] = {}
    for rel, digest in sorted(page.data.manifest.files.items()):
        up = "../" * (1 + rel.count("/"))
        shown = filepage.file_context(
            page.frozen.path, page.frozen.name, rel, digest, fixturepage.frozen_size(page, rel)
        )
        target = frozen_file_page(page.frozen.name, rel)
        out[target] = env.get_template("file.html.j2").render(
            root="../" + up + "../",
            here=_here(target),
            **common,
            **shown,
            version_path=up + "index.html",
            archive_path=up + archive,
            archive_name=archive,
        )
    return out


def _results_page(env: Any, board: table.SuiteTable, common: Mapping[str, object]) -> str:
    """The suite's leaderboard: the tables of ``freezer results table`` and the plot, each excluded
    fixture's reason at its own anchor, linked from the count above its table."""
    excluded = {task for cross in board.cross for task in cross.excluded}
    return str(
        env.get_template("results.html.j2").render(
            root="../",
            here=RESULTS_FILE,
            **common,
            problems=[str(p) for p in board.problems],
            plot=markup(plot.svg(board)) if not board.problems else "",
            steps=board.steps,
            cross_tables=board.cross,
            version_tables=board.versions,
            anchors={task: excluded_anchor(task) for task in excluded},
            fixture_paths={task: fixture_file(task) for task in excluded},
        )
    )


def _here(rel: str) -> str:
    """A page's own file name, for links within it: every link of the site names a file."""
    return rel.rsplit("/", 1)[-1]


def _title(rows: list[fixturepage.HistoryRow], versions: list[VersionPage], task: str) -> str:
    newest = next(v for v in reversed(versions) if v.frozen.name == rows[-1]["version"])
    return title_in(newest, next(f for f in newest.data.fixtures if str(f["task_id"]) == task))


def _search_entries(
    suite: str, versions: list[VersionPage], histories: dict[str, list[fixturepage.HistoryRow]]
) -> list[SearchEntry]:
    folder = safe_file_name(suite)
    found = [
        SearchEntry(
            v.frozen.name,
            str(v.data.version.get("title") or ""),
            "version",
            suite,
            f"{folder}/{version_file(v.frozen.name)}",
        )
        for v in reversed(versions)
    ]
    found += [
        SearchEntry(task, _title(histories[task], versions, task), "fixture", suite, f"{folder}/{fixture_file(task)}")
        for task in sorted(histories)
    ]
    return found


def _methods_html(paths: list[Path]) -> list[str]:
    """Each METHOD.md as HTML, on every core once there is enough of it: Markdown is most of a large
    site's build time, and each version's is independent of the others'."""
    texts = [read_whole(path).decode("utf-8") for path in paths]
    workers = work.cores(len(texts)) if sum(map(len, texts)) >= MARKDOWN_PARALLEL_FROM else 1
    return work.map_on_cores(markdown_html, texts, workers=workers)


class SiteFiles(dict[str, bytes]):
    """Every file of the site by relative path, and where the registry is (so writing it there
    takes the registry lock, and never lands in a folder freezer keeps for its own files)."""

    registry_root: Path | None = None
    protected: tuple[Path, ...] = ()
    # The verified view the pages were built from: the command reports the lines it ignored.
    verified_view: verified.VerifiedView = verified.VerifiedView()


def _root_common() -> dict[str, str]:
    return {"stylesheet": STYLESHEET, "here": "index.html"}


def build(config: RegistryConfig) -> SiteFiles:
    """Every file of the site, by relative path."""
    env = environment()
    files = SiteFiles()
    files.registry_root = config.root
    files.protected = tuple(folder for suite in config.suites.values() for folder in (suite.drafts, suite.versions))
    known = files.verified_view = verified.view(config)
    suites: list[JsonObject] = []
    rows: list[list[indexpage.VersionRow]] = []
    search: list[SearchEntry] = []
    for name in sorted(config.suites):
        pages, offered, entry, suite_rows, found = _suite_pages(config, config.suites[name], env, known)
        folder = safe_file_name(name)
        files.update({f"{folder}/{rel}": text.encode("utf-8") for rel, text in pages.items()})
        files.update({f"{folder}/{rel}": data for rel, data in offered.items()})
        suites.append(entry)
        rows.append(suite_rows)
        search += found
    files["index.html"] = (
        env.get_template("index.html.j2")
        .render(
            root="",
            suites=[{**s, "rows": r} for s, r in zip(suites, rows, strict=True)],
            **_root_common(),
            search=embedded(search, ""),
        )
        .encode("utf-8")
    )
    index: JsonObject = {"generator": f"freezer {__version__}", "site_format": 1, "suites": json_list(suites)}
    files["index.json"] = canonical.frozen_file(index)
    files[STYLESHEET] = (resources.data_dir("templates") / "site" / STYLESHEET).read_bytes()
    files[MARKER] = b"Built by freezer site; freezer replaces this folder as a whole.\n"
    return files


def write(out: Path, files: dict[str, bytes]) -> None:
    """Write the site to ``out``: a new or empty folder, or a site freezer built before (replaced
    as a whole, so a reader never sees half of it). Any other folder is refused, never emptied;
    a path that would leave ``out`` refuses the whole site before anything is written."""
    registry_root = files.registry_root if isinstance(files, SiteFiles) else None
    protected = files.protected if isinstance(files, SiteFiles) else ()
    write_site(out, files, registry_root=registry_root, protected=protected)


@dataclass
class Built:
    """``freezer site``'s outcome: where the site was written, how many pages and files."""

    out: Path
    files: SiteFiles

    @property
    def pages(self) -> int:
        return sum(1 for rel in self.files if rel.endswith(".html"))

    @property
    def ok(self) -> bool:
        return not self.files.verified_view.problems

    def to_json(self) -> dict[str, object]:
        built: dict[str, object] = {"out": display_path(self.out), "pages": self.pages, "files": len(self.files)}
        return with_log(built, self.files.verified_view)


@dataclass(frozen=True)
class SearchEntry:
    """One entry of the search box's index (task ids, version names and titles, embedded in the page as JSON).

    The site works from file:// with no server, where a page cannot fetch another file, so the index travels
    inside the page in a <script type="application/json">, read by the page's own small script. Its
    text comes from data: every <, > and & is written as a JSON escape, so no </script> or <!-- can
    close the element or open a comment, and the JSON reads the same."""

    label: str  # what is matched and shown first: a task id or a version name
    title: str  # the fixture's first line of prose, or the version's title
    kind: str  # "fixture" or "version"
    suite: str
    path: str  # relative to the site's root

    def to_json(self, prefix: str) -> list[str]:
        return [self.label, self.title, self.kind, self.suite, prefix + self.path]


def embedded(entries: list[SearchEntry], prefix: str) -> str:
    """The index as the text of a ``<script type="application/json">``, links relative to the page
    (``prefix`` leads from the page to the site's root)."""
    rows = [[inert(part) for part in e.to_json(prefix)] for e in entries]
    text = json.dumps(rows, ensure_ascii=False, separators=(",", ":"))
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
