"""The container images a fixture names: a pure function of its parsed fields and its file bytes.

Three places name an image: a Dockerfile's ``FROM`` lines, an ``image:`` field, and Harbor's
``task.toml`` (``[environment]`` with ``docker_image``). Each kind of fixture calls
:func:`fixture_images` with what it has: a generic fixture its fields and the Dockerfiles among
its ``assets``, a folder fixture its task file's fields and every file in its folder. Nothing is
fetched or resolved: an image is pinned only when the fixture itself names its digest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import PurePosixPath

from freezer.domain.images import ImageRef
from freezer.domain.model import Raw

# Fields naming an image, as JSON paths from the fixture's (or task file's) top level.
IMAGE_FIELDS: tuple[tuple[str, ...], ...] = (("image",), ("environment", "docker_image"), ("environment", "image"))
# A Dockerfile larger than this is not a Dockerfile anyone wrote by hand: it is not read for images.
MAX_DOCKERFILE_BYTES = 1 << 20
_DIGEST = re.compile(r"^(?P<name>[^@\s]+)@(?P<digest>sha256:[0-9a-f]{64})$")
_FROM = re.compile(r"^\s*FROM\s+(?P<rest>.*)$", re.IGNORECASE)


def is_dockerfile(rel: str) -> bool:
    """Dockerfile, Containerfile, Dockerfile.<variant> and <name>.Dockerfile."""
    name = PurePosixPath(rel).name
    lowered = name.lower()
    return (
        lowered in ("dockerfile", "containerfile")
        or lowered.startswith(("dockerfile.", "containerfile."))
        or lowered.endswith((".dockerfile", ".containerfile"))
    )


def image_ref(text: str, where: str) -> ImageRef:
    """An image as written: ``name@sha256:<64 hex>`` is pinned; anything else (a tag, no tag, an
    ``${ARG}`` a build fills in, a malformed digest) is named by what can move."""
    match = _DIGEST.match(text.strip())
    if match is not None:
        return ImageRef(match["name"], match["digest"], where)
    return ImageRef(text.strip(), None, where)


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """Dockerfile lines with backslash continuations joined, each with the number of its first line."""
    found: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
            if line.lstrip().startswith("#"):
                continue
        if line.rstrip().endswith("\\"):
            pending.append(line.rstrip()[:-1])
            continue
        found.append((start, " ".join([*pending, line])))
        pending = []
    if pending:
        found.append((start, " ".join(pending)))
    return found


def dockerfile_images(rel: str, data: bytes) -> list[ImageRef]:
    """The images a Dockerfile's FROM lines name, in order; ``scratch`` and earlier build stages
    (``FROM builder``) are not images."""
    text = data.decode("utf-8", errors="replace")
    stages: set[str] = set()
    found = []
    for number, line in _logical_lines(text):
        match = _FROM.match(line)
        if match is None:
            continue
        words = [w for w in match["rest"].split() if not w.startswith("--")]
        if not words:
            continue
        image = words[0]
        if image.lower() != "scratch" and image.lower() not in stages:
            found.append(image_ref(image, f"{rel}:{number}"))
        if len(words) >= 3 and words[1].lower() == "as":
            stages.add(words[2].lower())
    return found


def field_images(fields: Raw) -> list[ImageRef]:
    """Images named by the fields of :data:`IMAGE_FIELDS` (a string value each)."""
    found = []
    for path in IMAGE_FIELDS:
        value: object = fields
        for key in path:
            value = value.get(key) if isinstance(value, Mapping) else None
        if isinstance(value, str) and value.strip():
            found.append(image_ref(value, "$." + ".".join(path)))
    return found


def fixture_images(fields: Raw, files: Mapping[str, bytes]) -> tuple[ImageRef, ...]:
    """Every image a fixture names: its fields' and its Dockerfiles' (``files``: path → bytes; only
    the Dockerfiles among them are read). The entry point of every kind; sorted, duplicates kept
    once (the same image named twice in the same place is one)."""
    found = set(field_images(fields))
    for rel, data in files.items():
        if is_dockerfile(rel) and len(data) <= MAX_DOCKERFILE_BYTES:
            found.update(dockerfile_images(rel, data))
    return tuple(sorted(found))
