"""The environment images of a cut: what each fixture of the drafts names, and the warning for each
landed fixture that names an image by tag alone (it can be rebuilt under the same name)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from freezer.domain.errors import FreezerError
from freezer.domain.images import ImageRef
from freezer.kinds.yamlfiles import FILE_FIELDS, entries
from freezer.parse.compose import compose_dockerfiles, is_compose
from freezer.resolve.images import dockerfile_images, is_build_file, is_dockerfile
from freezer.resolve.images import fixture_images as images_of
from freezer.resolve.references import (
    closure_unknown,
    dataset_ref,
    dataset_unknown,
    harness_unknown,
    source_unknowns,
)
from freezer.runtime.limits import MAX_DOCKERFILE_BYTES
from freezer.runtime.reading import read_whole
from freezer.validate.fixtureset import FixtureSet
from freezer.validate.namedfiles import AssetFiles, named_files

# The fields of a parsed fixture that list its files (paths relative to the drafts folder): a generic
# fixture's assets, and the files a kind whose fixture is several files (a folder) lists for it.
FILE_LISTS = ("assets", "files")


def _path(fixture_set: FixtureSet, rel: str) -> Path | None:
    if rel in fixture_set.assets:
        return fixture_set.assets[rel]
    parts = PurePosixPath(rel).parts
    if fixture_set.root is None or rel.startswith("/") or ".." in parts:
        return None  # validate refuses a path that leaves the drafts; nothing outside is read
    return fixture_set.root / rel


def _read(fixture_set: FixtureSet, rels: list[str]) -> dict[str, bytes]:
    files = {}
    for rel in rels:
        path = _path(fixture_set, rel)
        if path is None:
            continue
        try:
            files[rel] = read_whole(path, MAX_DOCKERFILE_BYTES)
        except FreezerError:
            continue  # hash assets reports an unreadable file; one too large names no image
    return files


def fixture_datasets(fixture_set: FixtureSet) -> dict[str, tuple[str, str]]:
    """Each fixture that reads a hub dataset at a branch or tag (an lm-eval task with no pinned
    ``dataset_kwargs.revision``) → (dataset, branch or tag): what ``freezer lock`` pins, by task id."""
    found = {}
    for doc in fixture_set.fixtures:
        ref = dataset_ref(doc.data)
        if ref is not None:
            found[str(doc.data["task_id"])] = ref
    return found


def fixture_images(fixture_set: FixtureSet) -> dict[str, tuple[ImageRef, ...]]:
    """Images by task id, for the fixtures that name one: their fields and the Dockerfiles among
    the files they list (:data:`FILE_LISTS`)."""
    found = {}
    for doc in fixture_set.fixtures:
        listed = [str(r) for key in FILE_LISTS if isinstance(doc.data.get(key), list) for r in doc.data[key]]
        files = _read(fixture_set, [rel for rel in listed if is_build_file(rel)])
        # A compose file builds a Dockerfile of any name (Dockerfile-cuda): it is read too.
        built = [path for rel, data in files.items() if is_compose(rel) for path in compose_dockerfiles(rel, data)]
        files.update(_read(fixture_set, [rel for rel in built if rel not in files]))
        images = images_of(doc.data, files)
        if images:
            found[doc.data["task_id"]] = images
    return dict(sorted(found.items()))


def suite_images(fixture_set: FixtureSet) -> tuple[ImageRef, ...]:
    """The images of the Dockerfiles among the suite's assets that no fixture names (in a file list
    of its own, by path, folder or glob): the environment every fixture shares, so a change of one
    moves the environment of them all."""
    files = AssetFiles(dict.fromkeys(fixture_set.assets, ""), list(fixture_set.assets))
    claimed = {
        rel
        for doc in fixture_set.fixtures
        for key in (*FILE_LISTS, *FILE_FIELDS)
        for entry in entries(doc.data, key)
        for rel in named_files(entry, files)
    }
    found: set[ImageRef] = set()
    for rel, path in fixture_set.assets.items():
        if rel in claimed or not is_dockerfile(rel):
            continue
        try:
            found.update(dockerfile_images(rel, read_whole(path, MAX_DOCKERFILE_BYTES)))
        except FreezerError:
            continue  # hash assets reports an unreadable file; one too large names no image
    return tuple(sorted(found))


def suite_warnings(images: tuple[ImageRef, ...]) -> list[str]:
    return [_warning("the suite's Dockerfile", image) for image in images if not image.pinned]


def unpinned_warnings(
    fixture_set: FixtureSet,
    images: dict[str, tuple[ImageRef, ...]],
    locked_sources: Mapping[str, str] | None = None,
    locked_datasets: Mapping[str, Mapping[str, str]] | None = None,
) -> list[str]:
    """One warning per unknown image (the same tag named by 300 tasks is one reference, said once,
    with how many name it), in the order the fixtures name them."""
    landed = {doc.data["task_id"] for doc in fixture_set.fixtures if doc.data.get("status") == "landed"}
    by_image: dict[tuple[str, str | None], list[tuple[str, ImageRef]]] = {}
    for task, refs in images.items():
        for image in refs:
            if task in landed and not image.pinned:
                by_image.setdefault((image.name, image.unresolved), []).append((task, image))
    # A field's place ($.environment.docker_image) says where in a file, not which file: name it.
    files = {doc.data.get("task_id"): doc.display for doc in fixture_set.fixtures}
    found = [
        _warning(f"fixture {named[0][0]}", named[0][1], _others(named), files.get(named[0][0]))
        for named in by_image.values()
    ]
    return found + _reference_warnings(fixture_set, landed, locked_sources or {}, locked_datasets or {})


def _reference_warnings(
    fixture_set: FixtureSet,
    landed: set[str],
    locked_sources: Mapping[str, str],
    locked_datasets: Mapping[str, Mapping[str, str]],
) -> list[str]:
    """The other references that pin nothing, once each: version.yaml's sources and harness repo,
    and each dataset the landed tasks read at no pinned revision (once, with how many read it)."""
    version = fixture_set.version.data if fixture_set.version is not None else None
    whys = (
        [*source_unknowns(version, locked_sources), *filter(None, [harness_unknown(version)])]
        if isinstance(version, dict)
        else []
    )
    by_dataset: dict[str, list[str]] = {}
    for doc in fixture_set.fixtures:
        own = (dataset_unknown(doc.data, locked_datasets), closure_unknown(doc.data))
        for why in own if doc.data.get("task_id") in landed else ():
            if why is not None:
                by_dataset.setdefault(why, []).append(str(doc.data["task_id"]))
    for why, tasks in by_dataset.items():
        more = f" and {len(tasks) - _SHOWN_TASKS} more" if len(tasks) > _SHOWN_TASKS else ""
        whys.append(f"{why}, for {len(tasks)} task(s): {', '.join(tasks[:_SHOWN_TASKS])}{more}")
    return [f"{why}; METHOD.md says it is unknown" for why in whys]


# How many other fixtures a warning about an image many of them name lists by name.
_SHOWN_TASKS = 3


def _others(named: list[tuple[str, ImageRef]]) -> str:
    others = list(dict.fromkeys(task for task, _ in named[1:] if task != named[0][0]))
    if not others:
        return ""
    more = f" and {len(others) - _SHOWN_TASKS} more" if len(others) > _SHOWN_TASKS else ""
    plural = "s" if len(others) > 1 else ""
    return f" (as do {len(others)} other fixture{plural}: {', '.join(others[:_SHOWN_TASKS])}{more})"


def _warning(who: str, image: ImageRef, others: str = "", file: str | None = None) -> str:
    where = f"{file}::{image.where}" if file and image.where.startswith("$") else image.where
    if image.unresolved is not None:
        return (
            f"{who} names image {image.name} ({where}){others}, which cannot be known: {image.unresolved}; "
            "give the build argument a default pinned by digest (ARG NAME=name@sha256:...), or name the image "
            "by digest. METHOD.md says its environment is unknown"
        )
    return (
        f"{who} names image {image.name} by tag alone ({where}){others}: a rebuild under the same "
        "name changes its environment unseen; pin it by digest (name@sha256:...), or run freezer lock to "
        "pin the tag to the digest its registry serves. METHOD.md says its environment is unknown"
    )
