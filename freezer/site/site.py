"""``freezer site OUT``: the registry as a static site anyone can archive.

Pages are built from the same engines as METHOD.md, ``diff`` and ``compare``
(no second copy of the delta logic), rendered by Jinja2 with autoescaping, and
METHOD.md is turned into HTML by markdown-it-py with raw HTML, links, images,
autolinks and link reference definitions all disabled, so no fixture text can
inject markup or script, or make a page load or link anything. Every name that
comes from data (suite, version, task id) becomes a file name through
:func:`freezer.runtime.filenames.safe_file_name`, and every link is built from those
same names, URL-escaped; :mod:`freezer.site.sitewriter` refuses any path that would
leave the site's folder. Every link is relative, nothing needs JavaScript, and
the same registry gives byte-identical files (no clock, everything sorted). The
build returns the files; the CLI writes them.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from freezer.compare import fieldtext
from freezer.compare.comparability import compare, fixture_class, fixture_digests
from freezer.compare.delta import compute as compute_delta
from freezer.compare.delta import field_changes, file_fields_of
from freezer.domain import canonical, taskid
from freezer.domain.release import __version__
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.record import VersionData, arms_of, dimensions_of, groups_of, read
from freezer.render.deltatext import delta_lines
from freezer.runtime import resources, work
from freezer.runtime.filenames import safe_file_name
from freezer.runtime.reading import read_whole
from freezer.site.sitewriter import MARKER as MARKER
from freezer.site.sitewriter import write_site
from freezer.trust import lifecycle, signing, verified
from freezer.validate.namedfiles import AssetFiles


@dataclass
class VersionPage:
    frozen: registry.FrozenVersion
    data: VersionData
    status: lifecycle.VersionStatus
    signature: signing.SignatureStatus
    # Unverified events that name the version and a checkpoint that contradicts it: the page says so.
    against: tuple[str, ...] = ()


def _environment() -> Any:
    from jinja2 import Environment, FunctionLoader, StrictUndefined  # start-up time: ~40 ms, only the site

    def load(name: str) -> str:
        text: str = (resources.data_dir("templates") / "site" / name).read_text(encoding="utf-8")
        return text

    environment = Environment(
        loader=FunctionLoader(load),
        undefined=StrictUndefined,
        autoescape=True,
        keep_trailing_newline=True,
        finalize=lambda value: inert(value) if isinstance(value, str) else value,
    )
    environment.filters["short"] = lambda sha: str(sha)[:8]
    environment.filters["url"] = url
    return environment


def _template(environment: Any, name: str) -> Any:
    return environment.get_template(name)


# Characters that reorder how text is displayed (the "Trojan Source" class): shown by name instead.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def inert(text: str) -> str:
    """``text`` with every bidirectional control shown as ``[U+202E]``, so none can reorder a page."""
    return _BIDI.sub(lambda match: f"[U+{ord(match.group()):04X}]", text)


# Markdown that could make a page load or link anything: METHOD.md quotes fixture text, and a
# version frozen before the filters escaped [, ! and ( holds it as it was typed.
_REFUSED_RULES = ["link", "image", "autolink", "linkify", "reference", "html_block", "html_inline"]
_REFUSED_TOKENS = frozenset({"link_open", "link_close", "image", "html_inline", "html_block"})


def markdown_html(text: str) -> str:
    """CommonMark to HTML with raw HTML, links, images, autolinks and reference definitions shown as
    text (METHOD.md quotes fixture text verbatim), its headings one level down so they nest under the
    page's own title."""
    from markdown_it import MarkdownIt  # start-up time: ~30 ms, only the site renders Markdown

    parser = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table").disable(_REFUSED_RULES)
    tokens = parser.parse(inert(text))
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
        if token.children:
            token.children = _inline_without_links(token.children)
    return str(parser.renderer.render([t for t in tokens if t.type not in _REFUSED_TOKENS], parser.options, {}))


def _inline_without_links(children: Sequence[Any]) -> list[Any]:
    """Defence behind the disabled rules: no link, image or raw HTML token reaches the renderer."""
    kept = []
    for child in children:
        if child.type in ("image", "html_inline"):
            child.type, child.tag, child.attrs, child.children = "text", "", {}, None
        elif child.type in ("link_open", "link_close"):
            continue
        kept.append(child)
    return kept


def url(rel: Any) -> str:
    """A relative link as an href: every part URL-escaped (the parts are already safe file names)."""
    return quote(str(rel), safe="/")


def _fixture_file(task_id: Any) -> str:
    return f"fixtures/{taskid.page_stem(str(task_id))}.html"


def _version_folder(name: str) -> str:
    return safe_file_name(name)


def _diff_file(before: str, after: str) -> str:
    return f"diff/{safe_file_name(before)}..{safe_file_name(after)}.html"


def _suite_pages(
    config: RegistryConfig, suite: SuiteConfig, environment: Any, known: verified.VerifiedView
) -> tuple[dict[str, str], dict[str, Any]]:
    """Every page of one suite (paths relative to the suite's folder) and its index.json entry."""
    versions = [
        VersionPage(
            frozen,
            read(frozen),
            known.of(frozen.name),
            signing.verify(config, suite, frozen),
            tuple(str(p) for p in known.version_problems(frozen.name)),
        )
        for frozen in Suite.of(suite).versions()
    ]
    log = {page.frozen.name: _log_row(page) for page in versions}
    sides = [page.data.side() for page in versions]
    pages: dict[str, str] = {}
    diffs = []
    # Each version was read (and hash-checked) once above; the diffs reuse those reads.
    for (before, after), pair in zip(itertools.pairwise(versions), itertools.pairwise(sides), strict=True):
        meanings = dimensions_of(pair[1].manifest)
        delta = compute_delta(list(pair), meanings, full=True)
        name = _diff_file(before.frozen.name, after.frozen.name)
        diffs.append({"from": before.frozen.name, "to": after.frozen.name, "path": name})
        pages[name] = _template(environment, "diff.html.j2").render(
            root="../../",
            suite=suite.name,
            delta=delta.to_json(),
            text="\n".join(delta_lines(delta)),
            before_page=f"../{_version_folder(before.frozen.name)}/index.html",
            after_page=f"../{_version_folder(after.frozen.name)}/index.html",
        )
    histories = _histories(versions)
    methods = _methods_html([page.frozen.path / registry.METHOD for page in versions])
    for index, page in enumerate(versions):
        comparisons = _comparisons(suite, page, sides[: index + 1])
        statement = (
            read_whole(page.frozen.path / "provenance.json").decode("utf-8")
            if (page.frozen.path / "provenance.json").is_file()
            else None
        )
        pages[f"{_version_folder(page.frozen.name)}/index.html"] = _template(environment, "version.html.j2").render(
            root="../../",
            suite=suite.name,
            page=page,
            manifest=page.data.manifest_json,
            manifest_sha256=page.frozen.manifest_sha256(),
            method_html=methods[index],
            statement=statement,
            comparisons=comparisons,
            fixtures=[_fixture_row(f) for f in page.data.fixtures],
        )
    for task_id, rows in sorted(histories.items()):
        pages[_fixture_file(task_id)] = _template(environment, "fixture.html.j2").render(
            root="../../", suite=suite.name, task_id=task_id, rows=rows
        )
    pages["index.html"] = _template(environment, "suite.html.j2").render(
        root="../",
        suite=suite.name,
        versions=[{"page": v, "path": f"{_version_folder(v.frozen.name)}/index.html"} for v in versions],
        log=log,
        diffs=diffs,
        fixtures=[{"task_id": task, "path": _fixture_file(task)} for task in sorted(histories)],
    )
    folder = safe_file_name(suite.name)
    entry = {
        "name": suite.name,
        "path": f"{folder}/index.html",
        "versions": [
            {
                "name": v.frozen.name,
                "path": f"{folder}/{_version_folder(v.frozen.name)}/index.html",
                "manifest_sha256": v.frozen.manifest_sha256(),
                "pinned_sha": v.data.manifest.pinned_full,
                "status": v.status.to_json(),
                "signature": v.signature.status,
                "fixtures": sorted(f["task_id"] for f in v.data.fixtures),
                **({"problems": list(v.against)} if v.against else {}),
            }
            for v in versions
        ],
        "fixtures": {task: f"{folder}/{_fixture_file(task)}" for task in sorted(histories)},
        "diffs": [{**d, "path": f"{folder}/{d['path']}"} for d in diffs],
    }
    return pages, entry


def _fixture_row(fixture: dict[str, Any]) -> dict[str, Any]:
    """What a version page shows of a fixture: freezer needs only task_id and status, whatever the
    suite's schema, so every other field may be absent."""
    return {
        "task_id": fixture["task_id"],
        "path": f"../{_fixture_file(fixture['task_id'])}",
        "class": fixture.get("class"),
        "status": fixture["status"],
    }


def _methods_html(paths: list[Path]) -> list[str]:
    """Each METHOD.md as HTML, on every core: Markdown is most of a site's build time, and each
    version's is independent of the others'."""
    texts = [read_whole(path).decode("utf-8") for path in paths]
    return work.map_on_cores(markdown_html, texts)


def _log_row(page: VersionPage) -> dict[str, Any]:
    """What the timeline shows of a version, from its manifest and its frozen delta."""
    delta = json.loads(read_whole(page.frozen.path / registry.DELTA))
    landed = sum(1 for f in page.data.fixtures if f["status"] == "landed")
    return {
        "cut_at": page.data.manifest.cut_at,
        "pinned_sha": page.data.manifest.pinned_full,
        "landed": landed,
        "dropped": len(page.data.fixtures) - landed,
        "previous": delta.get("from"),
        "moved": list(delta.get("moved") or []),
    }


def _comparisons(suite: SuiteConfig, page: VersionPage, chain: list[Any]) -> list[dict[str, Any]]:
    """The version against every earlier one, newest first: its frozen, audited record when it has
    one (manifest format 3), else computed by the same engine from the sides already read."""
    record = page.frozen.path / registry.COMPARABILITY
    if record.is_file():
        frozen = json.loads(read_whole(record))
        return [{"other": entry["version"], "arms": entry["arms"]} for entry in frozen["against"]]
    # No record (before manifest format 3): the arms, dimensions and groups the version was cut with.
    meanings = dimensions_of(chain[-1].manifest)
    arms = arms_of(chain[-1].manifest)
    groups = groups_of(page.frozen, chain[-1].manifest)
    return [
        {"other": chain[start].name, "arms": [r.to_json() for r in compare(chain[start:], meanings, arms, groups)]}
        for start in reversed(range(len(chain) - 1))
    ]


def _histories(versions: list[VersionPage]) -> dict[str, list[dict[str, Any]]]:
    """Per task id, one row per version that holds it: its class against the previous one, and the field diff."""
    histories: dict[str, list[dict[str, Any]]] = {}
    last: dict[str, dict[str, Any]] = {}
    for page in versions:
        groups = groups_of(page.frozen, page.frozen.manifest_model())
        manifest = page.frozen.manifest_model()
        files, file_fields = AssetFiles.of(manifest), file_fields_of(manifest)
        for fixture in page.data.fixtures:
            task = fixture["task_id"]
            previous = last.get(task)
            digests = fixture_digests(fixture, groups, files, file_fields)
            if previous is None:
                change, fields = "added", []
            else:
                change = fixture_class(previous["digests"], digests)
                fields = field_changes(previous["fixture"], fixture, full=True)
            histories.setdefault(task, []).append(
                {
                    "version": page.frozen.name,
                    "path": f"../{_version_folder(page.frozen.name)}/index.html",
                    "status": fixture["status"],
                    "class": change,
                    "fields": [_history_field(f) for f in fields],
                }
            )
            last[task] = {"fixture": fixture, "digests": digests}
    return histories


def _history_field(change: dict[str, Any]) -> dict[str, Any]:
    """A field change as the history table shows it; two values that would read alike (a trailing
    space, another Unicode normal form) are shown apart (fieldtext)."""
    shown = {side: _shown(change[side]) if side in change else "—" for side in ("old", "new")}
    if change["change"] == "changed" and not fieldtext.tellable(shown["old"], shown["new"]):
        shown["old"], shown["new"] = fieldtext.shown_pair(change["old"], change["new"], width=None)
    return {**change, **shown}


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


class SiteFiles(dict[str, bytes]):
    """Every file of the site by relative path, and where the registry is (so writing it there
    takes the registry lock, and never lands in a folder freezer keeps for its own files)."""

    registry_root: Path | None = None
    protected: tuple[Path, ...] = ()
    # The verified view the pages were built from: the command reports the lines it ignored.
    verified_view: verified.VerifiedView = verified.VerifiedView()


def build(config: RegistryConfig) -> SiteFiles:
    """Every file of the site, by relative path."""
    environment = _environment()
    files = SiteFiles()
    files.registry_root = config.root
    files.protected = tuple(folder for suite in config.suites.values() for folder in (suite.drafts, suite.versions))
    known = files.verified_view = verified.view(config)
    suites = []
    for name in sorted(config.suites):
        pages, entry = _suite_pages(config, config.suites[name], environment, known)
        folder = safe_file_name(name)
        files.update({f"{folder}/{rel}": text.encode("utf-8") for rel, text in pages.items()})
        suites.append(entry)
    files["index.html"] = _template(environment, "index.html.j2").render(root="", suites=suites).encode("utf-8")
    index = {"generator": f"freezer {__version__}", "site_format": 1, "suites": suites}
    files["index.json"] = canonical.frozen_file(index)
    files[MARKER] = b"Built by freezer site; freezer replaces this folder as a whole.\n"
    return files


def write(out: Path, files: dict[str, bytes]) -> None:
    """Write the site to ``out``: a new or empty folder, or a site freezer built before (replaced
    as a whole, so a reader never sees half of it). Any other folder is refused, never emptied;
    a path that would leave ``out`` refuses the whole site before anything is written."""
    registry_root = files.registry_root if isinstance(files, SiteFiles) else None
    protected = files.protected if isinstance(files, SiteFiles) else ()
    write_site(out, files, registry_root=registry_root, protected=protected)
