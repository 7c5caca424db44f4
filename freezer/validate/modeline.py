"""The schema a loose YAML file names for itself, in its ``yaml-language-server`` modeline.

A file in no suite's drafts has no suite to say which schema it meets; the modeline editors read
(``# yaml-language-server: $schema=…``, which ``freezer init`` writes at the top of every file)
says it instead. The schemas freezer ships are known by their file names wherever the path points
(a copy in ``.freezer/schemas``, or a URL ending in the same name); any other target that is a file
beside the YAML is applied as a suite's own schema would be, vetted and bounded.
"""

import os
import re
from pathlib import Path
from typing import NamedTuple

from freezer.domain.problems import display_path
from freezer.runtime.limits import MAX_METADATA_BYTES
from freezer.runtime.reading import ReadRefused, open_regular
from freezer.schema import schemas

_MODELINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)\s*$")
_SHIPPED = {"fixture.schema.json": schemas.FIXTURE, "generic.schema.json": schemas.GENERIC}
_HEAD_BYTES = 4096  # editors read the modeline from the top lines; so does this
_HEAD_LINES = 5


class LooseSchema(NamedTuple):
    """The fixture schema a file in no suite's drafts is checked against, as its modeline names it (or the default)."""

    key: str  # for freezer.schema.schemas: a shipped name, or file:<path>
    said: str  # which schema, and why, in a sentence for the user


def _target(file: Path) -> str | None:
    # No-follow and non-blocking, regular files only: a FIFO named on the command line would block
    # the open until a writer came, and a link's target is not the file named.
    try:
        fd, _ = open_regular(file, MAX_METADATA_BYTES)
    except ReadRefused:
        return None  # the YAML layer reports the file it will not read
    try:
        head = os.read(fd, _HEAD_BYTES)
    except OSError:
        return None
    finally:
        os.close(fd)
    for line in head.decode("utf-8", errors="replace").lstrip("\ufeff").splitlines()[:_HEAD_LINES]:
        found = _MODELINE.match(line.strip())
        if found:
            return found.group(1)
    return None


def loose_schema(file: Path) -> LooseSchema:
    """The fixture schema for ``file``, which lies in no suite's drafts, and a note saying which it is."""
    display = display_path(file)
    target = _target(file)
    if target is None:  # the default, as ever: a graph fixture (the summary's "loose files" says no suite)
        return LooseSchema(schemas.FIXTURE, "")
    name = target.rsplit("/", 1)[-1]
    if name in _SHIPPED:
        key = _SHIPPED[name]
        return LooseSchema(
            key, f"{display}: in no suite's drafts; checked against freezer's {key} schema, as its modeline says"
        )
    if "://" not in target:
        local = (file.parent / target).resolve()
        if local.is_file():
            return LooseSchema(
                f"file:{local}",
                f"{display}: in no suite's drafts; checked against {display_path(local)}, as its modeline says",
            )
    return LooseSchema(
        schemas.FIXTURE,
        f"{display}: in no suite's drafts, and its modeline names {target!r}, which is neither a schema freezer "
        "ships nor a file here; it was checked as a graph fixture. Point the modeline at a schema file",
    )
