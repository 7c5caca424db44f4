"""Which files a fixture's ``assets:`` and ``graders:`` entries name: a file, a folder or a glob.

An entry that is the path of an asset names that file, as it always has. Any other entry is read
as git reads a ``:(glob)`` pathspec (:mod:`freezer.git.globs`): ``data/`` or ``data`` names every
file in the folder, ``data/*.csv`` the files the glob matches. An entry names only assets, never a
fixture, version.yaml or a file freezer writes, so the same entry names the same files in the drafts
(validate, cut) and in the frozen version (audit, diff, compare), whose manifest lists its assets.
The frozen fixture keeps the entry as its author wrote it; what it names is recomputed each time.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import TYPE_CHECKING

from freezer.domain.jsontypes import JsonObject
from freezer.kinds.yamlfiles import glob_matches

if TYPE_CHECKING:
    from freezer.domain.manifest import Manifest


class AssetFiles(Mapping[str, str]):
    """Files by what makes each that file (its sha256, and its mode when not 100644), and the
    assets among them that a folder or glob entry may name (default: every file given)."""

    def __init__(self, states: Mapping[str, str], assets: Collection[str] | None = None) -> None:
        self._states = states
        self._assets = assets
        self._sorted: list[str] | None = None  # sorted only when a folder or glob asks

    @classmethod
    def of(cls, manifest: Manifest) -> AssetFiles:
        """A frozen version's files; its entries name the assets its manifest lists (every file,
        for a manifest from before the manifest listed them: no entry of those was ever a glob)."""
        return cls(manifest.file_states(), manifest.asset_names() if manifest.contents is not None else None)

    def __getitem__(self, rel: str) -> str:
        return self._states[rel]

    def __iter__(self) -> Iterator[str]:
        return iter(self._states)

    def __len__(self) -> int:
        return len(self._states)

    def expand(self, entry: str) -> tuple[str, ...] | None:
        """The files ``entry`` names, sorted, or None when it names a file (or nothing) by its own
        path: then it counts as that one path, as before folders and globs were read."""
        if entry in self._states:
            return None
        if self._sorted is None:
            self._sorted = sorted(self._states if self._assets is None else self._assets)
        return tuple(glob_matches(entry, self._sorted)) or None


def named_files(entry: str, files: AssetFiles) -> tuple[str, ...]:
    """The paths one entry covers: the files a folder or glob matches, else the entry itself."""
    return files.expand(entry) or (entry,)


def digest_form(named: list[str], files: AssetFiles) -> JsonObject:
    """What a fixture digest holds for a list of entries: each file entry by its state, as it always
    has, and each folder or glob by the state of every file it matches."""
    out: JsonObject = {}
    for entry in named:
        matched = files.expand(entry)
        if matched is None:
            out[entry] = files.get(entry, "")
        else:
            out[entry] = {rel: files[rel] for rel in matched}
    return out
