"""JSON that reads one way only, for the small signed files freezer keeps beside its versions.

Python's ``json`` accepts what other readers do not: a key given twice (the last
one wins, where another reader may take the first), ``NaN`` and ``Infinity``,
and bytes in UTF-16 or UTF-32. The status log, the checkpoint and the
machine's checkpoint record refuse all of them, so what freezer verified is
what any reader of the file sees.
"""

from __future__ import annotations

import json
from typing import Any


class NotStrictJson(ValueError):
    """Why the bytes are not one plain JSON document; the text is meant for the user."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise NotStrictJson(f"the key {key!r} appears twice")
        seen[key] = value
    return seen


def _refuse_constant(name: str) -> None:
    raise NotStrictJson(f"{name} is not a JSON number")


def loads(data: bytes | str) -> Any:
    """The one JSON value in ``data`` (UTF-8), or :class:`NotStrictJson` saying why not."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise NotStrictJson(f"not UTF-8 (byte {exc.start})") from None
    try:
        return json.loads(data, object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
    except NotStrictJson:
        raise
    except RecursionError:
        raise NotStrictJson("nested too deeply") from None
    except ValueError as exc:
        raise NotStrictJson(f"not JSON ({exc})") from None
