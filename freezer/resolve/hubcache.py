"""The commit a Hugging Face dataset's branch or tag names in the local hub cache, read offline by
huggingface_hub itself.

``freezer lock`` alone reads it. The cache is the one ``huggingface_hub`` writes (and ``datasets``,
lm-eval and ``hf download`` through it); huggingface_hub defines where it is
(``HF_HUB_CACHE``, ``HF_HOME``, …) and how a revision is found in it, so freezer asks
huggingface_hub's ``resolve_revision`` with ``local_files_only=True``: no request, only the cache.
The commit is what the maintainer's own download holds, so what lm-eval read on that machine is
what the lock pins. huggingface_hub is the optional extra ``hub`` (``pip install
'freezer-bench[hub]'``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from freezer.domain.errors import FreezerError, UsageError

INSTALL_HUB = "pip install 'freezer-bench[hub]'"
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
# A revision as a ref file's path under refs/: a branch or tag name, with slashes (pr/1), no "..",
# so no revision a task file names reads a file outside the dataset's refs/.
_REVISION = re.compile(r"^(?!.*\.\.)[A-Za-z0-9_][A-Za-z0-9._/-]*$")


@dataclass(frozen=True)
class HubCache:
    """The local hub cache as huggingface_hub finds it."""

    where: str  # the folder, as huggingface_hub names it (for messages)
    resolve: Callable[..., Any]  # huggingface_hub.resolve_revision
    missing: type[Exception]  # what it raises for a revision the cache does not hold

    def commit(self, repo: str, revision: str) -> str | None:
        """The commit ``revision`` of dataset ``repo`` names in the cache; None when the cache holds
        no such ref (never downloaded at that revision). :class:`FreezerError` when the ref is there
        but holds no commit."""
        if not _REVISION.match(revision):
            return None
        try:
            resolved = self.resolve(repo, repo_type="dataset", revision=revision, local_files_only=True)
        except self.missing:
            return None
        except (OSError, ValueError) as exc:  # an unreadable ref file, or an id huggingface_hub refuses
            raise FreezerError(
                f"dataset {repo}: huggingface_hub cannot read revision {revision} from the cache: {exc}"
            ) from None
        commit = str(resolved.resolved)
        if not _COMMIT.match(commit):
            raise FreezerError(
                f"dataset {repo}: the hub cache's ref {revision} holds {commit[:60]!r}, not a commit (40 hex)",
                hint=f"download it again ({download_command(repo, revision)}), then lock again",
            )
        return commit


def open_hub_cache() -> HubCache:
    """The hub cache, read through huggingface_hub; :class:`UsageError` saying what to install when
    huggingface_hub is not importable. freezer lock calls it before anything is resolved."""
    try:
        # Imported here, by freezer lock alone and only when it has datasets to lock: huggingface_hub
        # and its HTTP stack take about 0.4 s to import, which no other command (least of all a
        # pre-commit hook) may pay.
        from huggingface_hub import constants, resolve_revision
        from huggingface_hub.errors import RevisionResolutionError  # the same import, the same reason
    except ImportError:
        raise UsageError(
            "freezer lock reads the commits of the Hugging Face datasets the tasks read with huggingface_hub, "
            "which is not installed",
            hint=INSTALL_HUB,
        ) from None
    return HubCache(str(constants.HF_HUB_CACHE), resolve_revision, RevisionResolutionError)


def download_command(repo: str, revision: str) -> str:
    """What puts ``repo`` at ``revision`` in the cache."""
    tail = "" if revision == "main" else f" --revision {revision}"
    return f"hf download --repo-type dataset {repo}{tail}"
