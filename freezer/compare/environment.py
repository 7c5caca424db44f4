"""The data sources and the environment images of two versions, as §Delta diffs them (delta
format 4): version.yaml's ``sources:`` field by field, and the container images each fixture names
(the manifest's ``environment_images``) by fixture and place. An image named by tag alone in a landed
fixture leaves the environment unknown: a rebuild under the same tag changes it unseen."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

from freezer.compare import fieldtext
from freezer.compare.deltamodel import Unknown
from freezer.domain.jsontypes import JsonObject
from freezer.domain.manifest import Manifest
from freezer.domain.model import Raw, sources_of
from freezer.registry.record import Side
from freezer.resolve.references import (
    closure_unknown,
    dataset_ref,
    dataset_unknown,
    harness_unknown,
    source_unknowns,
)


def source_fields(version: Raw | None, locked: Mapping[str, str] | None = None) -> JsonObject:
    """version.yaml's sources flattened by name: ``"<name> revision"``, ``"<name> kind"``, ``"<name> notes"``
    (a name holds dots and slashes, so it is not a JSON path). A git source named by a branch or
    tag that a lock pinned (``locked``: the manifest's locked_sources) reads ``main@<commit> (pinned
    by lock)``, as an image does, so a re-pointed branch is a change of its revision."""
    flat: JsonObject = {}
    for source in sources_of(version or {}):
        for key in ("kind", "revision", "notes"):
            value = getattr(source, key)
            if key == "revision" and locked and source.name in locked:
                value = f"{value}@{locked[source.name]} (pinned by lock)"
            if value is not None:
                flat[f"{source.name} {key}"] = value
    return flat


def dataset_fields(manifest: Manifest | None) -> JsonObject:
    """The hub datasets a lock pinned for the tasks (the manifest's locked_datasets), one field each:
    ``"dataset <name> at <branch>"``: ``"<branch>@<commit> (pinned by lock)"``, as a locked git
    source reads, so a re-pointed branch is a change of it. None of version.yaml's sources is named
    so (a source's field ends in kind, revision or notes)."""
    locked = manifest.locked_datasets if manifest is not None else {}
    return {
        f"dataset {name} at {ref}": f"{ref}@{commit} (pinned by lock)"
        for name, refs in locked.items()
        for ref, commit in refs.items()
    }


def source_changes(old: Side | None, new: Side, *, full: bool = False) -> list[JsonObject]:
    """The data sources field by field, then the datasets a lock pinned for the tasks; a first
    version's (``old`` None) are each listed as added."""
    was = {**source_fields(old.version, old.manifest.locked_sources), **dataset_fields(old.manifest)} if old else {}
    now = {**source_fields(new.version, new.manifest.locked_sources), **dataset_fields(new.manifest)}
    return fieldtext.field_changes(was, now, full=full)


def suite_sources_moved(old: Side, new: Side) -> bool:
    """Whether version.yaml's own sources changed (every fixture's data), the datasets a lock
    pinned for single tasks aside: a dataset moves the tasks that read it (:func:`fixture_data_moves`)."""
    return source_fields(old.version, old.manifest.locked_sources) != source_fields(
        new.version, new.manifest.locked_sources
    )


def fixture_data_moves(old: Side, new: Side, kept: Collection[str]) -> dict[str, str]:
    """Each kept landed fixture that reads the same hub dataset at the same branch or tag at both
    ends, pinned by a lock at each to another commit → what moved: ``its dataset owner/name main@a
    → main@b (pinned by lock)``. A task whose dataset_path or revision changed moved by its fields."""
    moves = {}
    for task in sorted(kept):
        before, after = dataset_ref(old.fixtures[task]), dataset_ref(new.fixtures[task])
        if before is None or before != after:
            continue
        name, ref = before
        was = old.manifest.locked_datasets.get(name, {}).get(ref)
        now = new.manifest.locked_datasets.get(name, {}).get(ref)
        if was is not None and now is not None and was != now:
            moves[task] = f"its dataset {name} {ref}@{was} → {ref}@{now} (pinned by lock)"
    return moves


# How §Delta names the place of an image of the suite's own Dockerfile: no task id starts with "(".
SUITE = "(suite)"


def _image_fields(manifest: Manifest | None, tasks: Collection[str] | None) -> JsonObject:
    images = manifest.images if manifest is not None else {}
    shared = manifest.suite_images if manifest is not None else ()
    return {
        **{
            f"{task} {image.where}": image.shown
            for task, refs in images.items()
            if tasks is None or task in tasks
            for image in refs
        },
        **{f"{SUITE} {image.where}": image.shown for image in shared},
    }


def image_changes(
    old: Manifest | None, new: Manifest, *, full: bool = False, kept: Collection[str] | None = None
) -> list[JsonObject]:
    """The container images the fixtures name, by fixture and place; a digest that changed is a change.
    ``kept``: the fixtures both versions hold. A fixture added or removed is a change of the fixture
    set, not of the environment the others run in."""
    return fieldtext.field_changes(_image_fields(old, kept), _image_fields(new, kept), full=full)


def unpinned(ends: Sequence[Side]) -> list[Unknown]:
    """The environment is unknown where a landed fixture names an image by tag alone (the newer
    end's first: that is the one a reader would pin)."""
    found = []
    for end in reversed(ends):
        landed = {t for t, f in end.fixtures.items() if f.get("status") == "landed"}
        images = end.manifest.images.items()
        loose = [(task, i) for task, refs in images if task in landed for i in refs if not i.pinned]
        if loose:
            task, image = loose[0]
            more = f" (and {len(loose) - 1} more)" if len(loose) > 1 else ""
            if image.unresolved is not None:  # only a manifest written since build arguments were read has it
                why = (
                    f"{end.name}: fixture {task} names image {image.name} ({image.where}), which cannot be "
                    f"known: {image.unresolved}{more}"
                )
            else:
                why = (
                    f"{end.name}: fixture {task} names image {image.name} by tag alone ({image.where}){more}; "
                    "a rebuild under the same tag changes the environment unseen"
                )
            found.append(Unknown("environment", why))
        elif suite_loose := _suite_unknown(end):
            found.append(Unknown("environment", suite_loose))
    return found[:1]


def _suite_unknown(end: Side) -> str | None:
    loose = [i for i in end.manifest.suite_images if not i.pinned]
    if not loose:
        return None
    image = loose[0]
    if image.unresolved is not None:
        return (
            f"{end.name}: the suite's Dockerfile names image {image.name} ({image.where}), which cannot be "
            f"known: {image.unresolved}"
        )
    return (
        f"{end.name}: the suite's Dockerfile names image {image.name} by tag alone ({image.where}); "
        "a rebuild under the same tag changes the environment of every fixture unseen"
    )


def suite_environment(ends: Sequence[Side]) -> tuple[bool, str | None]:
    """Comparability format 4: whether the images of the suite's own Dockerfiles (no fixture's)
    changed between the ends, and why they leave the environment of every fixture unknown, or None."""
    old, new = ends[0].manifest, ends[-1].manifest
    moved = {i.where: i.shown for i in old.suite_images} != {i.where: i.shown for i in new.suite_images}
    why = next((w for w in (_suite_unknown(end) for end in reversed(ends)) if w), None)
    return moved, why


def _at(manifest: Manifest, task: str) -> dict[str, str]:
    return {image.where: image.shown for image in manifest.images.get(task, ())}


def fixture_image_moves(old: Manifest, new: Manifest, kept: Collection[str]) -> dict[str, str]:
    """Comparability format 4: each kept fixture whose own images changed (its Dockerfile's FROM,
    its image field) → what changed, place by place: ``its image python@sha256:… → python@sha256:…
    (environment/Dockerfile:1)``. An image is a fixture's own: the manifest records it under the
    fixture that names it, so its change says nothing of the environment of the others."""
    moves = {}
    for task in sorted(kept):
        before, after = _at(old, task), _at(new, task)
        found = []
        for where in sorted(set(before) | set(after)):
            was, now = before.get(where), after.get(where)
            if was == now:
                continue
            if was is None:
                found.append(f"its image {now} added ({where})")
            elif now is None:
                found.append(f"its image {was} removed ({where})")
            else:
                found.append(f"its image {was} → {now} ({where})")
        if found:
            moves[task] = ", ".join(found)
    return moves


def fixture_unknowns(ends: Sequence[Side]) -> dict[str, str]:
    """Comparability format 4: each landed fixture whose own environment cannot be known at an end
    (an image named by tag alone, or through a build argument with no default) → why, the newer
    end first, as :func:`unpinned` says it for the version."""
    found: dict[str, str] = {}
    for end in reversed(ends):
        landed = {t for t, f in end.fixtures.items() if f.get("status") == "landed"}
        for task, refs in end.manifest.images.items():
            loose = [i for i in refs if not i.pinned]
            if task not in landed or not loose or task in found:
                continue
            image = loose[0]
            if image.unresolved is not None:
                found[task] = f"{end.name} names its image {image.name} ({image.where}): {image.unresolved}"
            else:
                found[task] = f"{end.name} names its image {image.name} by tag alone ({image.where})"
    return dict(sorted(found.items()))


FIXTURE_SET = "fixture set"

# Delta format 6 on: every reference a version records is pinned or unknown with why (a url source,
# a harness repo with no commit, an lm-eval task's dataset revision), and the bytes of the harness
# files run.harness.paths names are part of the run configuration.
REFERENCES_FORMAT = 6


def _said_once(name: str, whys: Sequence[str]) -> str:
    more = f" (and {len(whys) - 1} more)" if len(whys) > 1 else ""
    return f"{name}: {whys[0]}{more}"


def dataset_unknowns(end: Side) -> dict[str, str]:
    """Each landed fixture whose data is read at no pinned revision (an lm-eval task's dataset) → why."""
    found = {}
    for task, fixture in sorted(end.fixtures.items()):
        landed = fixture.get("status", "landed") == "landed"
        why = dataset_unknown(fixture, end.manifest.locked_datasets) if landed else None
        if why is not None:
            found[task] = why
    return found


def closure_unknowns(end: Side) -> dict[str, str]:
    """Each landed fixture whose closure imports a module named at run time (closure rules 2) → why."""
    found = {}
    for task, fixture in sorted(end.fixtures.items()):
        why = closure_unknown(fixture) if fixture.get("status", "landed") == "landed" else None
        if why is not None:
            found[task] = why
    return found


def suite_source_unknown(ends: Sequence[Side]) -> str | None:
    """Why version.yaml's own sources are unknown at an end (the newer first), or None."""
    whys = ((e, source_unknowns(e.version, e.manifest.locked_sources)) for e in reversed(ends))
    return next((_said_once(e.name, w) for e, w in whys if w), None)


def reference_unknowns(ends: Sequence[Side]) -> list[Unknown]:
    """Delta format 6: the run configuration and the data sources where a reference of theirs pins
    nothing, at either end (the newer end's first, once per dimension, with how many more)."""
    found = []
    harness = next((f"{e.name}: {why}" for e in reversed(ends) if (why := harness_unknown(e.version))), None)
    if harness is not None:
        found.append(Unknown("run configuration", harness))
    for end in reversed(ends):
        whys = source_unknowns(end.version, end.manifest.locked_sources) + [
            f"task {t}: {w}" for t, w in dataset_unknowns(end).items()
        ]
        if whys:
            found.append(Unknown("sources", _said_once(end.name, whys)))
            break
    # A task whose code loads a module named at run time: its digest may stand still while what it runs
    # moves. Only closure rules 2 record these, so versions cut before them derive the same delta.
    for end in reversed(ends):
        whys = [f"task {t}: {w}" for t, w in closure_unknowns(end).items()]
        if whys:
            found.append(Unknown(FIXTURE_SET, _said_once(end.name, whys)))
            break
    return found


def harness_file_changes(old: Side, new: Side) -> list[JsonObject]:
    """Delta format 6: the harness files run.harness.paths names at both ends whose bytes changed, as
    changes of the run configuration (``harness.paths harness/run.py``: sha256 → sha256). The text of
    ``run`` names the files; what runs is their content."""

    def named(side: Side) -> list[str]:
        run = side.version.get("run")
        harness = run.get("harness") if isinstance(run, dict) else None
        paths = harness.get("paths") if isinstance(harness, dict) else None
        return [str(p) for p in paths] if isinstance(paths, list) else []

    changes: list[JsonObject] = []
    for rel in sorted(set(named(old)) & set(named(new))):
        was, now = old.manifest.files.get(rel), new.manifest.files.get(rel)
        if was is not None and now is not None and was != now:
            changes.append(
                {"path": f"harness.paths {rel}", "change": "changed", "old": f"sha256:{was}", "new": f"sha256:{now}"}
            )
    return changes
