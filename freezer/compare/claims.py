"""Which fixtures a file belongs to: the one rule that §Delta (:mod:`freezer.compare.delta`) and
``compare`` (:mod:`freezer.compare.comparability`) both use, so that they cannot disagree.

A fixture claims every file its file fields name (assets and graders, a folder or a glob entry:
each file it matches; a folders task: every file of its folder; an lm-eval task: the files it
includes and the modules its ``!function`` tags name). A claimed file that changes moves the
fixtures that claim it (each is *changed through its files*); only a file that no landed fixture
of either version claims (a harness script, a README) is the suite's own asset, and only its change
moves the ``assets`` dimension of every fixture.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from freezer.compare.deltamodel import AssetChanges, FilesChange
from freezer.domain.manifest import Manifest
from freezer.domain.model import Raw
from freezer.kinds.catalog import kind_of
from freezer.kinds.yamlfiles import FILE_FIELDS, entries
from freezer.registry.lockfile import LOCK_NAME
from freezer.registry.record import Side
from freezer.validate.namedfiles import AssetFiles, named_files


def file_fields_of(manifest: Manifest) -> tuple[str, ...]:
    """The fields of a version's parsed fixtures that list files counted by their content: assets
    and graders, or a kind's own (a folders fixture's ``files``: every file of its folder)."""
    return kind_of(manifest.fixture_kind).file_fields


def moved_files(
    old: Raw,
    new: Raw,
    before: AssetFiles,
    after: AssetFiles,
    keys: Collection[str],
    fields: Sequence[str] = FILE_FIELDS,
) -> list[str]:
    """The files through which one fixture, kept in both versions, moved: those its entries under
    ``keys`` name in both, whose content or mode differs, or that a folder or glob of it gained or
    lost (in the order of its entries, each once). §Delta asks with every file field; compare with
    the fields of the groups a score depends on (input, grading). A missing file reads as "", as
    the digests read it."""
    moved: dict[str, None] = {}  # ordered, each once
    for key in fields:  # the fields a version lists files in (a folders fixture's own: files)
        if key not in keys:
            continue
        earlier = set(entries(old, key))
        for entry in (entry for entry in entries(new, key) if entry in earlier):
            covered = sorted({*named_files(entry, before), *named_files(entry, after)})
            moved.update((rel, None) for rel in covered if before.get(rel, "") != after.get(rel, ""))
    return list(moved)


@dataclass(frozen=True)
class Claims:
    """Each file some fixture of either version names, with the fixtures that name it (sorted)."""

    owners: Mapping[str, tuple[str, ...]]

    def of(self, rel: str) -> tuple[str, ...]:
        return self.owners.get(rel, ())

    def unclaimed(self, rels: Iterable[str]) -> tuple[str, ...]:
        """The files of ``rels`` that no fixture claims, in their order, each once. The lock file
        is not the suite's asset: what it pins reaches each fixture through the image digests the
        manifest records, so a re-pointed tag moves the fixtures naming that image, not every one."""
        return tuple(dict.fromkeys(rel for rel in rels if rel not in self.owners and rel != LOCK_NAME))


def claims_of(old: Side, new: Side) -> Claims:
    """Which fixtures of either version claim which files: each version's fixtures read against
    that version's own files and file fields. Only a landed fixture claims a file (a dropped one is
    in no score, so the file it names is the suite's own and moves ``assets``), by the closure rules
    of the newer version (:data:`~freezer.domain.fixturekind.CLOSURE_RULES`); a version cut before
    them is re-derived as it was, its dropped fixtures claiming too."""
    found: dict[str, set[str]] = {}
    landed_only = new.manifest.fixture_kind.closure >= 1
    for version in (old, new):
        files, fields = AssetFiles.of(version.manifest), file_fields_of(version.manifest)
        for task, fixture in version.fixtures.items():
            if landed_only and fixture.get("status") != "landed":
                continue
            for key in fields:
                for entry in entries(fixture, key):
                    for rel in named_files(entry, files):
                        found.setdefault(rel, set()).add(task)
    return Claims({rel: tuple(sorted(tasks)) for rel, tasks in found.items()})


def changed_assets(assets: AssetChanges) -> tuple[str, ...]:
    return (*assets.added, *assets.removed, *assets.changed)


def unclaimed_changes(assets: AssetChanges, claims: Claims) -> tuple[str, ...]:
    """The asset files added, removed or changed that no fixture claims: what moves the suite's
    ``assets`` dimension (in §Delta from format 5, and in compare from comparability format 3)."""
    return claims.unclaimed(changed_assets(assets))


def through_files(old: Side, new: Side) -> tuple[FilesChange, ...]:
    """Fixtures in both versions that moved through a file they name (:func:`moved_files`, with
    every file field): a fixture can change what its agent sees with its own fields untouched."""
    before, after = AssetFiles.of(old.manifest), AssetFiles.of(new.manifest)
    keys = tuple(dict.fromkeys((*file_fields_of(old.manifest), *file_fields_of(new.manifest))))
    found = []
    for task in sorted(set(old.fixtures) & set(new.fixtures)):
        moved = moved_files(old.fixtures[task], new.fixtures[task], before, after, keys, keys)
        if moved:
            found.append(FilesChange(task, tuple(sorted(moved))))
    return tuple(found)
