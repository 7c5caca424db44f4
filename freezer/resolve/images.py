"""The container images a fixture names: a pure function of its parsed fields and its file bytes.

The places that name an image: a Dockerfile's ``FROM`` lines and the images its build copies or
mounts from (``COPY --from=<image>``, ``ADD --from``, ``RUN --mount=...,from=<image>``; an earlier
build stage is not an image), an ``image:`` field, Harbor's ``task.toml`` (``[environment]`` with
``docker_image``), and a compose file (``docker-compose.yaml``, ``compose.yaml``: each service's
``image:``, and the Dockerfile its ``build:`` names, whatever its name, e.g. ``Dockerfile-cuda``).
Each kind of fixture calls :func:`fixture_images` with what it has: a generic fixture its fields and
the build files among its ``assets``, a folder fixture its task file's fields and every file in its
folder. Nothing is fetched or resolved: an image is pinned only when the fixture itself names its
digest; what cannot even be named (a build argument, a compose variable, a remote build context, a
Dockerfile outside the fixture's files) is unknown with that reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from freezer.domain.images import ImageRef
from freezer.domain.model import Raw
from freezer.parse import compose
from freezer.parse.compose import is_compose
from freezer.runtime.limits import MAX_DOCKERFILE_BYTES

# Fields naming an image, as JSON paths from the fixture's (or task file's) top level.
IMAGE_FIELDS: tuple[tuple[str, ...], ...] = (("image",), ("environment", "docker_image"), ("environment", "image"))
# A Dockerfile larger than this is not a Dockerfile anyone wrote by hand: it is not read for images.
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


def is_build_file(rel: str) -> bool:
    """A file :func:`fixture_images` reads for images: a Dockerfile or a compose file."""
    return is_dockerfile(rel) or is_compose(rel)


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


# ``$NAME``, ``${NAME}`` and ``${NAME<op>word}`` with the operators Docker's FROM expands.
_VARIABLE = re.compile(
    r"\$(?:(?P<bare>[A-Za-z_][A-Za-z0-9_]*)|\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?P<op>:?[-+])?(?P<word>[^}]*)\})"
)
_ARG_ITEM = re.compile(r"""(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:=(?P<value>"[^"]*"|'[^']*'|\S*))?""")
# BuildKit gives these to the global scope itself: their value is the builder's, unknown here.
_BUILDER_ARGS = frozenset(
    f"{when}{what}" for when in ("BUILD", "TARGET") for what in ("PLATFORM", "OS", "ARCH", "VARIANT")
)


@dataclass
class _GlobalArgs:
    """The ``ARG`` lines before the first FROM: a name's default (None: declared without one), and
    why a default that uses another argument cannot be known."""

    values: dict[str, str | None] = field(default_factory=dict)
    unknown: dict[str, str] = field(default_factory=dict)

    def why(self, name: str) -> str:
        if name in self.unknown:
            return self.unknown[name]
        if name in self.values:
            return f"the build argument {name} has no default before the first FROM: its value is given at build time"
        if name in _BUILDER_ARGS:
            return f"the build argument {name} is set by the builder at build time"
        return f"no ARG {name} is declared before the first FROM: its value is given at build time, if at all"

    def declare(self, rest: str) -> None:
        """One ARG line: ``NAME``, ``NAME=value``, several on one line; a value may use the
        arguments declared before it (not inside single quotes)."""
        for item in _ARG_ITEM.finditer(rest):
            name, value = item["name"], item["value"]
            if value is None:
                self.values.setdefault(name, None)
                continue
            quoted = len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'"
            literal = quoted and value[0] == "'"
            value = value[1:-1] if quoted else value
            expanded, why = (value, None) if literal else self.expand(value)
            self.values[name] = None if why else expanded
            if why:
                self.unknown[name] = f"the default of the build argument {name} cannot be known: {why}"
            else:
                self.unknown.pop(name, None)

    def expand(self, text: str) -> tuple[str, str | None]:
        """``text`` with the arguments substituted as Docker substitutes them in FROM, and why it
        cannot be known, or None. An argument with no default is unset, so ``${A:-w}`` gives w
        (``${A-w}`` too; with A empty, only ``:-`` does) and ``${A:+w}`` gives nothing; a bare
        ``$A`` or ``${A}`` of an unset argument names nothing freezer can read."""
        problems: list[str] = []

        def one(match: re.Match[str]) -> str:
            name = match["bare"] or match["name"]
            op, word = match["op"], match["word"] or ""
            if match["name"] is not None and op is None and word:
                problems.append(f"${{{name}{word}}} uses an expansion freezer does not evaluate")
                return match[0]
            value = self.values.get(name)
            if name in self.unknown or (value is None and op is None):
                problems.append(self.why(name))
                return match[0]
            is_set = value is not None and (value != "" or op in (None, "-", "+"))
            if op in (":-", "-"):
                if is_set:
                    return value or ""
            elif op in (":+", "+"):
                if not is_set:
                    return ""
            else:
                return value or ""
            expanded, why = self.expand(word)
            if why:
                problems.append(why)
            return expanded

        expanded = _VARIABLE.sub(one, text)
        return expanded, problems[0] if problems else None


def dockerfile_images(rel: str, data: bytes) -> list[ImageRef]:
    """The images a Dockerfile's FROM lines name, in order, with the global build arguments (the
    ``ARG`` lines before the first FROM) substituted as Docker does; ``scratch`` and earlier build
    stages (``FROM builder``, also through an argument) are not images. A FROM that names an
    argument with no default is unknown, with that reason: a ``--build-arg`` fills it in."""
    text = data.decode("utf-8", errors="replace")
    stages: set[str] = set()
    args = _GlobalArgs()
    seen_from = False
    found = []
    for number, line in _logical_lines(text):
        words = line.split(None, 1)
        if not seen_from and words and words[0].upper() == "ARG":
            args.declare(words[1] if len(words) > 1 else "")
            continue
        if seen_from and words and words[0].upper() in _SOURCE_INSTRUCTIONS:
            for source in _build_sources(words[0].upper(), words[1] if len(words) > 1 else ""):
                if source.lower() not in stages and not source.isdigit():
                    found.append(_named(source, args, f"{rel}:{number}"))
            continue
        match = _FROM.match(line)
        if match is None:
            continue
        seen_from = True
        words = [w for w in match["rest"].split() if not w.startswith("--")]
        if not words:
            continue
        image, why = args.expand(words[0])
        if why is not None or (image.lower() != "scratch" and image.lower() not in stages):
            found.append(_named(words[0], args, f"{rel}:{number}"))
        if len(words) >= 3 and words[1].lower() == "as":
            stages.add(words[2].lower())
    return found


# The instructions whose options name an image the build reads files from.
_SOURCE_INSTRUCTIONS = frozenset({"COPY", "ADD", "RUN"})


def _build_sources(instruction: str, rest: str) -> list[str]:
    """What ``COPY --from=X`` / ``ADD --from=X`` / ``RUN --mount=type=bind,from=X`` read from: a
    stage, a stage's index or an image, as written."""
    found = []
    for word in rest.split():
        if not word.startswith("--"):
            break  # options come first; the rest is the command or the paths
        if instruction in ("COPY", "ADD") and word.lower().startswith("--from="):
            found.append(word.split("=", 1)[1])
        elif instruction == "RUN" and word.lower().startswith("--mount="):
            for item in word.split("=", 1)[1].split(","):
                key, _, value = item.partition("=")
                if key.strip().lower() == "from" and value:
                    found.append(value.strip("\"'"))
    return [source.strip("\"'") for source in found if source.strip("\"'")]


def _named(written: str, args: _GlobalArgs, where: str) -> ImageRef:
    """An image as a Dockerfile writes it, its global build arguments substituted, or unknown with why."""
    image, why = args.expand(written)
    if why is None and not image:
        why = "it names nothing once its build arguments are substituted"
    return ImageRef(written, None, where, why) if why is not None else image_ref(image, where)


def compose_images(rel: str, data: bytes, files: Mapping[str, bytes]) -> list[ImageRef]:
    """The images a compose file's services run: each ``image:`` (a service that also has a
    ``build:`` runs what its build makes, so its ``image:`` is only the name given to that), and the
    images of the Dockerfile each ``build:`` names (``files``: the fixture's files by path; one that
    is not among them, or a remote build context, is unknown with that reason). A compose file that
    does not read as YAML names one unknown image: what it runs cannot be known."""
    services, parsed = compose.services(rel, data)
    if services is None:
        if not parsed:
            return [ImageRef(rel, None, rel, "the compose file does not read as YAML, so its services are unknown")]
        return []
    found: list[ImageRef] = []
    for name, service in sorted(services.items(), key=lambda item: str(item[0])):
        if not isinstance(service, Mapping):
            continue
        where = f"{rel}::$.services.{name}"
        build, image = service.get("build"), service.get("image")
        if build is None and isinstance(image, str) and image.strip():
            found.append(_compose_image(image, f"{where}.image"))
        elif build is not None:
            found.extend(_compose_build(rel, build, f"{where}.build", files))
    return found


def _compose_image(text: str, where: str) -> ImageRef:
    if "$" in text:
        return ImageRef(text.strip(), None, where, "compose fills in its variables from the environment at run time")
    return image_ref(text, where)


def _compose_build(rel: str, build: object, where: str, files: Mapping[str, bytes]) -> list[ImageRef]:
    path = compose.build_path(rel, build)
    if path is None:
        inline = build.get("dockerfile_inline") if isinstance(build, Mapping) else None
        if isinstance(inline, str):
            return dockerfile_images(f"{where}.dockerfile_inline", inline.encode())
        context = str(build.get("context") if isinstance(build, Mapping) else build)
        return [ImageRef(context, None, where, "the build context is fetched at build time, not frozen")]
    data = files.get(path)
    if data is None or len(data) > MAX_DOCKERFILE_BYTES:
        why = f"the Dockerfile it builds ({path}) is not among the fixture's files, so its images are unknown"
        return [ImageRef(path, None, where, why)]
    return dockerfile_images(path, data)


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
        if len(data) > MAX_DOCKERFILE_BYTES:
            continue
        if is_compose(rel):
            found.update(compose_images(rel, data, files))
        elif is_dockerfile(rel):
            found.update(dockerfile_images(rel, data))
    return tuple(sorted(found))
