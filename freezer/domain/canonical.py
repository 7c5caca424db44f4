"""The one way freezer turns a JSON record into the bytes it hashes, signs, freezes or compares.

Keys are always sorted, so equal records give equal bytes. Every form below is one setting of
:func:`dumps`, named for where it is used; each is byte for byte what that place wrote before
there was one function, because frozen versions, signatures and recorded digests hold those bytes:

* :func:`compact`: no spaces, UTF-8 as written. What is signed (a checkpoint payload, a status
  event) and what a digest is taken over (a fixture's comparability groups). NaN and the
  infinities are refused: they are no JSON, and strict JSON (what these records are read with)
  never yields them.
* :func:`frozen_file`: two-space indent, UTF-8 as written, one trailing newline. The JSON files
  of a frozen version (manifest.json, comparability.json, delta.json, provenance.json) and the
  site's index.json; audit compares them with this form byte for byte.
* :func:`ascii_file`: the same with non-ASCII escaped (``\\u00e9``): checkpoint.json, this
  machine's checkpoint record and a version's signature file, written so since they exist.
* :func:`log_line`: Python's default separators (``", "``, ``": "``), UTF-8: one line of the
  status log (appended, never rewritten, so the lines already there keep their form).
* :func:`spaced_ascii`: Python's default separators, ASCII: the text whose sha256 a manifest
  records for a shipped fixture schema (``fixture_schema.sha256``); every frozen manifest holds it.
"""

from __future__ import annotations

import json
from typing import Any

COMPACT = (",", ":")
SPACED = (", ", ": ")


def dumps(value: Any, *, indent: int | None = None, ascii_only: bool, separators: tuple[str, str], nan: bool) -> str:
    """``value`` as JSON text with sorted keys: the one function every form below is."""
    return json.dumps(
        value, sort_keys=True, indent=indent, ensure_ascii=ascii_only, separators=separators, allow_nan=nan
    )


def compact(value: Any) -> bytes:
    """Sorted, no spaces, UTF-8, no NaN: the bytes that are signed or digested."""
    return dumps(value, ascii_only=False, separators=COMPACT, nan=False).encode()


def frozen_file(value: Any) -> bytes:
    """Sorted, indented two spaces, UTF-8, one trailing newline: a frozen version's JSON file."""
    return (dumps(value, indent=2, ascii_only=False, separators=(",", ": "), nan=True) + "\n").encode("utf-8")


def ascii_file(value: Any) -> str:
    """Sorted, indented two spaces, non-ASCII escaped, one trailing newline: checkpoint and signature files."""
    return dumps(value, indent=2, ascii_only=True, separators=(",", ": "), nan=True) + "\n"


def log_line(value: Any) -> bytes:
    """Sorted, Python's default separators, UTF-8, no newline: one status-log line."""
    return dumps(value, ascii_only=False, separators=SPACED, nan=True).encode()


def spaced_ascii(value: Any) -> str:
    """Sorted, Python's default separators, non-ASCII escaped: the form a shipped schema is hashed in."""
    return dumps(value, ascii_only=True, separators=SPACED, nan=True)
