"""The commit a Hugging Face dataset's branch or tag names, read offline from the local hub cache.

``freezer lock`` alone reads it. The cache is the one ``huggingface_hub`` writes (and ``datasets``,
lm-eval and ``huggingface-cli download`` through it), laid out as the Hub's documentation of its
local cache says: the folder ``HF_HUB_CACHE`` (or the older ``HUGGINGFACE_HUB_CACHE``) names,
else ``$HF_HOME/hub``, else ``$XDG_CACHE_HOME/huggingface/hub`` or ``~/.cache/huggingface/hub``;
in it a dataset ``owner/name`` is the folder ``datasets--owner--name``, and ``refs/<revision>``
in that folder is a file holding the 40-hex commit the revision (``main``, a tag, ``pr/1``) named
when it was last downloaded. freezer reads that file and nothing else: no request, and no
dependency on ``huggingface_hub``. The commit is what the maintainer's own download holds, so
what lm-eval read on that machine is what the lock pins.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from freezer.domain.errors import FreezerError
from freezer.runtime.limits import MAX_HUB_REF_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# A hub repository id (owner/name or a bare legacy name) as the Hub accepts one: no "--" nor ".."
# (the cache's folder name joins the parts with "--"), so every id names one folder of the cache.
_REPO_ID = re.compile(r"^(?!.*--)(?!.*\.\.)[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)?$")
# A revision as a ref file's path under refs/: a branch or tag name, with slashes (pr/1), no "..".
_REVISION = re.compile(r"^(?!.*\.\.)[A-Za-z0-9_][A-Za-z0-9._/-]*$")


def is_hub_repo(name: str) -> bool:
    """Whether ``name`` reads as a repository id of the hub (not a local path or a URL)."""
    return bool(_REPO_ID.match(name))


def hub_cache(environ: Mapping[str, str] | None = None) -> Path:
    """Where huggingface_hub keeps its cache, looked up in its order: HF_HUB_CACHE, the older
    HUGGINGFACE_HUB_CACHE, HF_HOME/hub, XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub
    (an empty variable counts as unset)."""
    env = os.environ if environ is None else environ
    for variable in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if env.get(variable):
            return Path(env[variable]).expanduser()
    if env.get("HF_HOME"):
        return Path(env["HF_HOME"]).expanduser() / "hub"
    cache_home = Path(env["XDG_CACHE_HOME"]).expanduser() if env.get("XDG_CACHE_HOME") else Path.home() / ".cache"
    return cache_home / "huggingface" / "hub"


def download_command(repo: str, revision: str) -> str:
    """What puts ``repo`` at ``revision`` in the cache."""
    tail = "" if revision == "main" else f" --revision {revision}"
    return f"huggingface-cli download --repo-type dataset {repo}{tail}"


def cached_commit(cache: Path, repo: str, revision: str) -> str | None:
    """The commit ``revision`` of dataset ``repo`` names in the hub cache ``cache``; None when the
    cache holds no such ref (never downloaded at that revision). :class:`FreezerError` when the ref
    file is there but holds no commit."""
    if not is_hub_repo(repo) or not _REVISION.match(revision):
        return None
    path = cache / f"datasets--{repo.replace('/', '--')}" / "refs" / revision
    try:
        text = read_bounded(path, MAX_HUB_REF_BYTES).decode("ascii", errors="replace").strip()
    except (ReadRefused, OSError):
        # Absent, or not a regular file: the cache does not hold this revision (a later download
        # writes the file again).
        return None
    if not _COMMIT.match(text):
        raise FreezerError(
            f"dataset {repo}: the hub cache's {path} holds {text[:60]!r}, not a commit (40 hex)",
            hint=f"download it again ({download_command(repo, revision)}), then lock again",
        )
    return text
