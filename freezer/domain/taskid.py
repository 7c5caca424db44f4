"""Task ids: which ones freezer accepts, and the one file name each becomes.

A benchmark names its tasks its own way (``HumanEval/0``, MBPP's integers, ``astropy__astropy-12907``,
``bbh_cot_fewshot_Boolean``, a Harbor folder called ``Task One``), and the native kinds (folders,
records, lm-eval) take those names as they are: an id is data, never renamed. :func:`accept` is
the rule: a non-empty string of printable characters (space is the one whitespace, never at either
end and never two in a row, since Markdown and a terminal show a run of spaces as one), at most
:data:`MAX_LENGTH` characters; an integer id (MBPP) is its decimal string. A control, format or
separator character (newline, NUL, ESC, a zero-width space, a bidirectional override) is refused:
it would make two ids look alike, or make an id act on whoever reads it.

Wherever an id becomes part of a path (a site page, a link), :func:`page_stem` gives the file
name, and it is the same mapping as every other name freezer writes from data
(:func:`freezer.runtime.filenames.safe_file_name` is this function). A name that is already plain
(lower-case letters, digits, ``.``, ``_``, ``-``, not starting with a dot, not a Windows device
name, at most 100 characters; every id freezer's old rule accepted, but for those) is its own
stem, so existing pages keep their addresses. Every other name becomes a readable slug, ``~`` and
16 hex digits of the SHA-256 of the name: ``~`` never appears in a plain name, so no plain name
can equal another's mapped form, and the stem is lower-case, so ids that differ only by case
(``HelloWorld``, ``helloworld``) never share a file on a case-insensitive file system. Two mapped
forms would collide only if SHA-256 did on 64 bits, and validation refuses a set in which two ids
share a stem anyway (:func:`clash_keys`), so no two fixtures of a version ever share a page.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from freezer.domain.escape import quoted

MAX_LENGTH = 200
# 10**MAX_LENGTH < 2**665: an integer longer than this cannot be an id, and its decimal string is
# never computed (Python refuses to print an integer of more than 4,300 digits, slowly).
_MAX_INT_BITS = 665

_PLAIN = re.compile(r"[a-z0-9_][a-z0-9._-]{0,99}")
_SLUG_UNSAFE = re.compile(r"[^a-z0-9._-]+")
# Names Windows reserves in every folder, whatever the extension.
_DEVICES = frozenset({"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)), *(f"lpt{i}" for i in range(10))})
_SLUG_LENGTH = 60


@dataclass(frozen=True)
class Refused:
    """Why a value cannot be a task id; ``why`` completes "the task id ... cannot be used: "."""

    why: str


def _kind_of(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, float):
        return "a number with a fraction or exponent"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def accept(value: object) -> str | Refused:
    """The task id ``value`` names (an integer as its decimal string), or why it cannot be one."""
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        return Refused(f"it is {_kind_of(value)}; a task id is a string, or an integer taken as its decimal digits")
    if isinstance(value, int):
        if value.bit_length() > _MAX_INT_BITS:
            return Refused(
                f"the integer has more than {MAX_LENGTH} digits; a task id is at most {MAX_LENGTH} characters"
            )
        value = str(value)
    if not value:
        return Refused("it is empty; give every task a name")
    if len(value) > MAX_LENGTH:
        return Refused(f"it is {len(value):,} characters long; a task id is at most {MAX_LENGTH} characters")
    for index, char in enumerate(value):
        if not char.isprintable():
            return Refused(
                f"character {index + 1} is U+{ord(char):04X} ({char!r}); a task id holds printable characters "
                "only (no newline, tab, control, format or separator character)"
            )
    if not value.strip():
        return Refused("it is only spaces; give every task a name")
    if value != value.strip():
        return Refused("it starts or ends with a space; remove it (the id is shown and compared as written)")
    if "  " in value:
        return Refused("it holds two spaces in a row, which Markdown, the site and a terminal show as one; use one")
    return value


def shown(value: object) -> str:
    """A value offered as a task id, for a message: clipped, and never the digits of a huge integer."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > _MAX_INT_BITS:
        return f"(an integer of {value.bit_length():,} bits)"
    return quoted(value)


def _plain(name: str) -> bool:
    return (
        _PLAIN.fullmatch(name) is not None
        and name.split(".", 1)[0] not in _DEVICES
        and not name.endswith(".")
        and ".." not in name
    )


def page_stem(name: str) -> str:
    """One safe, stable path component for ``name``: itself when plain, else slug + ``~`` + hash."""
    if _plain(name):
        return name
    # The slug is for a reader only (the hash decides): "Café-ü" reads as cafe-u, not caf.
    ascii_form = "".join(c for c in unicodedata.normalize("NFKD", name) if not unicodedata.combining(c))
    slug = _SLUG_UNSAFE.sub("-", ascii_form.lower()).strip(".-")[:_SLUG_LENGTH].rstrip(".-") or "x"
    if slug.split(".", 1)[0] in _DEVICES:
        slug = "_" + slug
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"{slug}~{digest}"


# Two different ids of one set that share one of these keys cannot both stand: the reason, said of
# the later id, and the key.
_CLASHES = (
    ("is the same text as {other} in another Unicode normalization form, and looks the same", "nfc"),
    ("maps to the same page name as {other}", "stem"),
)


def clash_keys(task_id: str) -> list[tuple[str, str]]:
    """The keys two different ids of one set must not share, each with the reason it names."""
    keys = {"nfc": unicodedata.normalize("NFC", task_id), "stem": page_stem(task_id)}
    return [(reason, keys[name]) for reason, name in _CLASHES]
