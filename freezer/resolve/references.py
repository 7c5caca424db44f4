"""Whether each reference a version records beyond its own bytes is pinned, or unknown and why.

freezer fetches nothing, so what a reference points at is only as fixed as the reference itself.
An image is pinned by its digest (:mod:`freezer.resolve.images`); the same rule holds for the rest:

- a ``sources:`` entry: a huggingface or git source is pinned by its commit (the version schema
  asks for 40 hex); a git source may name a branch or tag instead, pinned only by the commit the
  drafts' lock file held for it (``freezer lock``; the manifest's ``locked_sources``); a url by a
  content digest written as ``<algorithm>:<hex>`` (``sha256:…``);
  ``revision: latest`` pins nothing, for the file at the URL can change under it;
- ``run.harness``: a ``repo`` with no ``commit`` runs whatever the repository holds that day;
- an lm-eval task's dataset: lm-eval reads ``dataset_path`` from the Hugging Face hub at the
  revision ``dataset_kwargs.revision`` names, and at the newest one when it names none (or a branch
  or tag, which can move), pinned then only by the commit the drafts' lock file held for it
  (``freezer lock``; the manifest's ``locked_datasets``); a ``sources:`` entry for the same
  dataset is a claim, not what runs;
- a fixture's own code: a module of its closure that imports a module named at run time
  (``importlib.import_module(name)``, recorded as ``dynamic:<path>``) runs what no file names.

Each rule is a pure function of the parsed record; an unknown reference is never "did not move".
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from freezer.domain.model import Raw, sources_of
from freezer.kinds.base import DYNAMIC_PREFIX, EXTERNAL_FIELD

_CONTENT_DIGEST = re.compile(r"^[a-z0-9-]+:[0-9a-fA-F]+$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# lm-eval's dataset_path values that are a `datasets` builder reading dataset_kwargs.data_files,
# not a dataset repository of the hub.
_BUILDERS = frozenset({"json", "csv", "parquet", "text", "arrow", "pandas", "webdataset", "imagefolder"})
# A hub repository id (owner/name or a bare legacy name) as the Hub accepts one: no "--" nor ".."
# (the hub cache's folder name joins the parts with "--"), so every id names one folder of the cache.
_REPO_ID = re.compile(r"^(?!.*--)(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)?$")


def is_hub_repo(name: str) -> bool:
    """Whether ``name`` reads as a repository id of the hub (not a local path or a URL)."""
    return bool(_REPO_ID.match(name))


def source_unknowns(version: Raw, locked: Mapping[str, str] | None = None) -> list[str]:
    """Why each data source of version.yaml is not pinned (none when all are). ``locked``: the git
    sources named by a branch or tag that a lock pinned (source name → commit)."""
    found = []
    for source in sources_of(version):
        if source.kind == "git" and not _COMMIT.match(source.revision) and source.name not in (locked or {}):
            found.append(
                f"source {source.name} (kind git) has revision {source.revision!r}, a branch or tag name "
                "that can move, and no lock pins it (run freezer lock)"
            )
        if source.kind == "url" and not _CONTENT_DIGEST.match(source.revision):
            found.append(
                f"source {source.name} (kind url) has revision {source.revision!r}, which names no content "
                "digest (sha256:<hex>): the file at the URL can change under it"
            )
    return found


def harness_unknown(version: Raw) -> str | None:
    """Why the harness code of ``run.harness`` is not pinned, or None."""
    run = version.get("run")
    harness = run.get("harness") if isinstance(run, Mapping) else None
    if isinstance(harness, Mapping) and harness.get("repo") and not harness.get("commit"):
        return (
            f"run.harness.repo {harness['repo']} names no commit: the harness code it runs can change "
            "without any file of the version changing"
        )
    return None


def dataset_ref(fixture: Raw) -> tuple[str, str] | None:
    """The hub dataset an lm-eval task reads at a revision that can move, as (``dataset_path``, the
    branch or tag: ``main`` when ``dataset_kwargs`` names no revision): what ``freezer lock`` pins.
    None for a task that reads a pinned commit, a local builder (json, csv, ...), a path that is
    no hub repository id (``./data``, ``/srv/data``: a folder on the machine) or no dataset, and for
    a fixture that is no lm-eval task."""
    path = fixture.get("dataset_path")
    if not isinstance(path, str) or not path or path.lower() in _BUILDERS or not is_hub_repo(path):
        return None
    kwargs = fixture.get("dataset_kwargs")
    revision = kwargs.get("revision") if isinstance(kwargs, Mapping) else None
    if revision is None:
        return path, "main"
    if isinstance(revision, str) and not _COMMIT.match(revision):
        return path, revision
    return None


def dataset_unknown(fixture: Raw, locked: Mapping[str, Mapping[str, str]] | None = None) -> str | None:
    """Why the dataset an lm-eval task reads is not pinned, or None (also for a task that reads
    only local files, and for a fixture that is no lm-eval task). ``locked``: the datasets a lock
    pinned (the manifest's locked_datasets: dataset → branch or tag → commit); a task reading one
    of those at that branch or tag is pinned by the lock."""
    path = fixture.get("dataset_path")
    if not isinstance(path, str) or not path:
        return None
    kwargs = fixture.get("dataset_kwargs")
    kwargs = kwargs if isinstance(kwargs, Mapping) else {}
    if path.lower() in _BUILDERS:
        files = kwargs.get("data_files")
        named = [files] if isinstance(files, str) else list(files.values()) if isinstance(files, Mapping) else files
        remote = [f for f in named or () if isinstance(f, str) and "://" in f]
        if remote:
            return f"its dataset is read from {remote[0]}, which no content digest pins"
        return None
    ref = dataset_ref(fixture)
    if ref is not None and ref[1] in (locked or {}).get(ref[0], {}):
        return None
    revision = kwargs.get("revision")
    if revision is None:
        return f"lm-eval reads dataset {path} at its newest revision (no dataset_kwargs.revision)"
    if not isinstance(revision, str) or not _COMMIT.match(revision):
        return f"dataset {path} is read at revision {revision!r}, a branch or tag name that can move"
    return None


def closure_unknown(fixture: Raw) -> str | None:
    """Why what a fixture runs cannot be known from its files (a module of its closure imports a
    module named at run time), or None."""
    external = fixture.get(EXTERNAL_FIELD)
    dynamic = [
        entry.removeprefix(DYNAMIC_PREFIX)
        for entry in (external if isinstance(external, list) else ())
        if isinstance(entry, str) and entry.startswith(DYNAMIC_PREFIX)
    ]
    if not dynamic:
        return None
    more = f" (and {len(dynamic) - 1} more module(s))" if len(dynamic) > 1 else ""
    return f"{dynamic[0]}{more} imports a module named at run time (a dynamic import), so what it runs is unknown"
