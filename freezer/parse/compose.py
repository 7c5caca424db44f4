"""A compose file (``docker-compose.yaml``, ``compose.yaml``) as far as freezer reads it: its
services, and the Dockerfile each ``build:`` names, whatever its name (``Dockerfile-cuda``).

Read both for the images a fixture runs (:mod:`freezer.resolve.images`) and for its dependency
closure (:mod:`freezer.kinds.closure`: the Dockerfile a compose file builds is part of what the
fixture runs), so the two never disagree on which file a build names.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from freezer.parse.yamlload import load_bytes


def is_compose(rel: str) -> bool:
    """docker-compose.yaml, compose.yaml (and .yml), and their overrides (docker-compose.gpu.yaml)."""
    lowered = posixpath.basename(rel).lower()  # a string split, not a path object: asked of every asset
    return lowered.startswith(("docker-compose.", "compose.")) and lowered.endswith((".yaml", ".yml"))


def may_be_built(rel: str) -> bool:
    """A file whose name says it is a Dockerfile, in any form (Dockerfile, Dockerfile-cuda,
    cuda.Dockerfile, Containerfile.gpu): the files a compose build can add to a closure. A reader of
    a frozen version reads these without parsing a compose file first, so the drafts and a frozen
    version agree on every closure."""
    lowered = posixpath.basename(rel).lower()
    return "dockerfile" in lowered or "containerfile" in lowered


def services(rel: str, data: bytes) -> tuple[Mapping[str, object] | None, bool]:
    """A compose file's ``services`` mapping (None when it has none), and whether it read as YAML."""
    document = load_bytes(data, rel).document
    found = document.data.get("services") if document is not None and isinstance(document.data, dict) else None
    return (found if isinstance(found, Mapping) else None), document is not None


def build_path(rel: str, build: object) -> str | None:
    """The Dockerfile a service's ``build:`` names, relative to the drafts; None for an inline one or
    a remote context."""
    context, dockerfile = (build, "Dockerfile") if isinstance(build, str) else (".", "Dockerfile")
    if isinstance(build, Mapping):
        if isinstance(build.get("dockerfile_inline"), str):
            return None
        context, dockerfile = str(build.get("context", ".")), str(build.get("dockerfile", "Dockerfile"))
    if not isinstance(context, str) or "://" in context or context.startswith("git@"):
        return None
    return posixpath.normpath(posixpath.join(posixpath.dirname(rel), context, dockerfile))


def compose_dockerfiles(rel: str, data: bytes) -> list[str]:
    """The paths of the Dockerfiles a compose file's ``build:`` entries name, for a reader that reads
    only the files it needs (whatever their names: ``Dockerfile-cuda`` is no Dockerfile by name)."""
    found_services, _ = services(rel, data)
    found = []
    for service in (found_services or {}).values():
        build = service.get("build") if isinstance(service, Mapping) else None
        path = build_path(rel, build) if build is not None else None
        if path is not None:
            found.append(path)
    return found
