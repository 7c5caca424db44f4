"""Locating freezer's packaged data: schemas, templates and examples.

In a wheel the top-level ``schemas/``, ``templates/`` and ``examples/`` folders
are shipped as ``freezer/_data/<name>``; in a source checkout (including an
editable install) they are read from the repository root. Both are resolved
through :mod:`importlib.resources` so a zipped or relocated install works too.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from freezer.domain.jsontypes import JsonObject

if TYPE_CHECKING:
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

_HERE = Path(__file__).resolve()
_SOURCE_ROOT = _HERE.parents[2]


def data_dir(name: str) -> Traversable:
    """The packaged folder ``name`` (schemas, templates or examples)."""
    packaged: Traversable
    if _HERE.is_file():  # installed as files (every wheel, every checkout): the folder beside this package
        packaged = _HERE.parents[1] / "_data" / name
    else:
        # Imported here: importlib.resources costs ~13 ms at start-up (with zipfile), and only an
        # install that is not plain files (a zip) needs it to find the data.
        from importlib import resources

        packaged = resources.files("freezer") / "_data" / name
    if packaged.is_dir():
        return packaged
    source = _SOURCE_ROOT / name
    if source.is_dir():
        return source
    raise FileNotFoundError(f"freezer's {name}/ folder is missing from this installation")


def data_path(name: str) -> Path:
    """Like :func:`data_dir`, as a real path (wheels are installed unzipped)."""
    return Path(str(data_dir(name)))


@cache
def schema(name: str) -> JsonObject:
    """The JSON Schema ``schemas/<name>.schema.json``."""
    text = (data_dir("schemas") / f"{name}.schema.json").read_text(encoding="utf-8")
    loaded: JsonObject = json.loads(text)
    return loaded


def schema_text(name: str) -> str:
    """The schema file ``schemas/<name>.schema.json`` exactly as shipped."""
    text: str = (data_dir("schemas") / f"{name}.schema.json").read_text(encoding="utf-8")
    return text


def template_text(name: str) -> str:
    text: str = (data_dir("templates") / name).read_text(encoding="utf-8")
    return text
