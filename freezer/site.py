"""``freezer site OUT``: the registry as a static site anyone can archive.

Pages are built from the same engines as METHOD.md, ``diff`` and ``compare``
(no second copy of the delta logic), rendered by Jinja2 with autoescaping, and
METHOD.md is turned into HTML by markdown-it-py with raw HTML disabled, so no
fixture text can inject markup or script. Every link is relative, nothing
needs JavaScript, and the same registry gives byte-identical files (no clock,
everything sorted). The build returns the files; the CLI writes them.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from freezer import __version__, browse, lifecycle, parallel, registry, resources, signing
from freezer.comparability import compare, default_arms, fixture_class, fixture_digests
from freezer.config import RegistryConfig, SuiteConfig
from freezer.delta import compute as compute_delta
from freezer.delta import field_changes
from freezer.deltatext import delta_lines
from freezer.errors import UsageError
from freezer.problems import display_path
from freezer.reading import read_whole

MARKER = ".freezer-site"


@dataclass
class VersionPage:
    frozen: registry.FrozenVersion
    data: browse.VersionData
    status: lifecycle.VersionStatus
    signature: signing.SignatureStatus


def _environment() -> Any:
    from jinja2 import Environment, FunctionLoader, StrictUndefined

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
    return environment


def _template(environment: Any, name: str) -> Any:
    return environment.get_template(name)


# Characters that reorder how text is displayed (the "Trojan Source" class): shown by name instead.
_BIDI = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]")


def inert(text: str) -> str:
    """``text`` with every bidirectional control shown as ``[U+202E]``, so none can reorder a page."""
    return _BIDI.sub(lambda match: f"[U+{ord(match.group()):04X}]", text)


def markdown_html(text: str) -> str:
    """CommonMark to HTML with raw HTML shown as text (METHOD.md quotes fixture text verbatim), its
    headings one level down so they nest under the page's own title."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark", {"html": False}).enable("table")
    tokens = parser.parse(inert(text))
    for token in tokens:
        if token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 1, 6)}"
    return str(parser.renderer.render(tokens, parser.options, {}))


def _fixture_file(task_id: str) -> str:
    return f"fixtures/{task_id}.html"


def _suite_pages(config: RegistryConfig, suite: SuiteConfig, environment: Any) -> tuple[dict[str, str], dict[str, Any]]:
    """Every page of one suite (paths relative to the suite's folder) and its index.json entry."""
    known = lifecycle.statuses(config.root)
    versions = [
        VersionPage(
            frozen,
            browse.read(frozen),
            known.get(frozen.name, lifecycle.CURRENT),
            signing.verify(config, suite, frozen),
        )
        for frozen in registry.frozen_versions(suite)
    ]
    log = {page.frozen.name: _log_row(page) for page in versions}
    sides = [page.data.side() for page in versions]
    pages: dict[str, str] = {}
    diffs = []
    # Each version was read (and hash-checked) once above; the diffs reuse those reads.
    for (before, after), pair in zip(itertools.pairwise(versions), itertools.pairwise(sides), strict=True):
        meanings = pair[1].manifest.checks.dimensions or suite.dimensions
        delta = compute_delta(list(pair), meanings, full=True)
        name = f"diff/{before.frozen.name}..{after.frozen.name}.html"
        diffs.append({"from": before.frozen.name, "to": after.frozen.name, "path": name})
        pages[name] = _template(environment, "diff.html.j2").render(
            root="../../", suite=suite.name, delta=delta, text="\n".join(delta_lines(delta))
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
        pages[f"{page.frozen.name}/index.html"] = _template(environment, "version.html.j2").render(
            root="../../",
            suite=suite.name,
            page=page,
            manifest=page.data.manifest,
            manifest_sha256=page.frozen.manifest_sha256(),
            method_html=methods[index],
            statement=statement,
            comparisons=comparisons,
            fixtures=[f for f in page.data.fixtures],
            fixture_file=_fixture_file,
        )
    for task_id, rows in sorted(histories.items()):
        pages[_fixture_file(task_id)] = _template(environment, "fixture.html.j2").render(
            root="../../", suite=suite.name, task_id=task_id, rows=rows
        )
    pages["index.html"] = _template(environment, "suite.html.j2").render(
        root="../", suite=suite.name, versions=versions, log=log, diffs=diffs, fixtures=sorted(histories)
    )
    entry = {
        "name": suite.name,
        "path": f"{suite.name}/index.html",
        "versions": [
            {
                "name": v.frozen.name,
                "path": f"{suite.name}/{v.frozen.name}/index.html",
                "manifest_sha256": v.frozen.manifest_sha256(),
                "pinned_sha": v.data.manifest["pinned_sha"]["full"],
                "status": v.status.to_json(),
                "signature": v.signature.status,
                "fixtures": sorted(f["task_id"] for f in v.data.fixtures),
            }
            for v in versions
        ],
        "fixtures": {task: f"{suite.name}/{_fixture_file(task)}" for task in sorted(histories)},
        "diffs": [{**d, "path": f"{suite.name}/{d['path']}"} for d in diffs],
    }
    return pages, entry


def _methods_html(paths: list[Path]) -> list[str]:
    """Each METHOD.md as HTML, on every core: Markdown is most of a site's build time, and each
    version's is independent of the others'."""
    texts = [read_whole(path).decode("utf-8") for path in paths]
    workers = parallel.workers(len(texts))
    if workers < 2:
        return [markdown_html(text) for text in texts]
    with parallel.fork_pool(workers) as pool:
        return list(pool.map(markdown_html, texts))


def _log_row(page: VersionPage) -> dict[str, Any]:
    """What the timeline shows of a version, from its manifest and its frozen delta."""
    delta = json.loads(read_whole(page.frozen.path / registry.DELTA))
    landed = sum(1 for f in page.data.fixtures if f["status"] == "landed")
    return {
        "cut_at": page.data.manifest["cut_at"],
        "pinned_sha": page.data.manifest["pinned_sha"]["full"],
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
    meanings = chain[-1].manifest.checks.dimensions or suite.dimensions
    arms = dict(suite.arms) or default_arms(list(meanings))
    groups = browse.groups_of(page.frozen, chain[-1].manifest)
    return [
        {"other": chain[start].name, "arms": [r.to_json() for r in compare(chain[start:], meanings, arms, groups)]}
        for start in reversed(range(len(chain) - 1))
    ]


def _histories(versions: list[VersionPage]) -> dict[str, list[dict[str, Any]]]:
    """Per task id, one row per version that holds it: its class against the previous one, and the field diff."""
    histories: dict[str, list[dict[str, Any]]] = {}
    last: dict[str, dict[str, Any]] = {}
    for page in versions:
        groups = browse.groups_of(page.frozen, page.frozen.manifest_model())
        files = page.frozen.manifest_model().files
        for fixture in page.data.fixtures:
            task = fixture["task_id"]
            previous = last.get(task)
            digests = fixture_digests(fixture, groups, files)
            if previous is None:
                change, fields = "added", []
            else:
                change = fixture_class(previous["digests"], digests)
                fields = field_changes(previous["fixture"], fixture, full=True)
            histories.setdefault(task, []).append(
                {
                    "version": page.frozen.name,
                    "status": fixture["status"],
                    "class": change,
                    "fields": [
                        {**f, **{side: _shown(f[side]) if side in f else "—" for side in ("old", "new")}}
                        for f in fields
                    ],
                }
            )
            last[task] = {"fixture": fixture, "digests": digests}
    return histories


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def build(config: RegistryConfig) -> dict[str, bytes]:
    """Every file of the site, by relative path."""
    environment = _environment()
    files: dict[str, bytes] = {}
    suites = []
    for name in sorted(config.suites):
        pages, entry = _suite_pages(config, config.suites[name], environment)
        files.update({f"{name}/{rel}": text.encode("utf-8") for rel, text in pages.items()})
        suites.append(entry)
    files["index.html"] = _template(environment, "index.html.j2").render(root="", suites=suites).encode("utf-8")
    index = {"generator": f"freezer {__version__}", "site_format": 1, "suites": suites}
    files["index.json"] = (json.dumps(index, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
    files[MARKER] = b"Built by freezer site; freezer replaces this folder as a whole.\n"
    return files


def write(out: Path, files: dict[str, bytes]) -> None:
    """Write the site to ``out``: a new or empty folder, or a site freezer built there before (replaced
    as a whole, so a reader never sees half of it). Any other folder is refused, never emptied."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise UsageError(f"{display_path(out)} is not a folder", hint="name a new folder for the site")
    replacing = out.is_dir() and any(out.iterdir())
    if replacing and not (out / MARKER).is_file():
        raise UsageError(
            f"{display_path(out)} is not empty and holds no site built by freezer",
            hint="name a new or empty folder; freezer never empties one it did not make",
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    try:
        for rel, data in sorted(files.items()):
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        if out.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
            os.replace(out, retired / "site")
            os.replace(staging, out)
            shutil.rmtree(retired)
        else:
            os.replace(staging, out)
    finally:
        if staging.exists():
            shutil.rmtree(staging)
