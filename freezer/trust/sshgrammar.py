"""OpenSSH's small text rules, as ssh-keygen applies them to an allowed_signers file.

Three rules decide what an allowed_signers line means, and each has corners a
plausible reimplementation gets wrong: a pattern-list (``a*,!b``, where a
sub-pattern of 1023 bytes or more makes the whole list match nothing), base64
as ``b64_pton`` reads it (whitespace anywhere, padding required, the unused
bits zero) and a time as ``parse_absolute_time`` reads it through glibc's
``strptime`` (each field range-checked but not against its month, so
``20260231`` is the 3rd of March; leading blanks inside a field allowed;
seconds up to 61; local time read as standard time; ``Z`` or ``UTC`` for
UTC). Everything here works on bytes, as OpenSSH does.
"""

from __future__ import annotations

import base64
import functools
import re
import time
from collections.abc import Iterator

# isspace() in the C locale: what b64_pton and strptime skip.
C_SPACE = frozenset(b" \t\n\v\f\r")
# match_pattern_list copies each sub-pattern into a 1024-byte buffer and gives up on a longer one.
LONGEST_SUBPATTERN = 1022


def _items(pattern: bytes) -> Iterator[tuple[bool, bytes] | None]:
    """match_pattern_list's walk: (negated, sub-pattern) in order, then None at a sub-pattern too
    long for its buffer (where OpenSSH stops and reports no match)."""
    at = 0
    while at < len(pattern):
        negated = pattern[at] == ord("!")
        if negated:
            at += 1
        end = pattern.find(b",", at)
        end = len(pattern) if end < 0 else end
        if end - at > LONGEST_SUBPATTERN:
            yield None
            return
        yield negated, pattern[at:end]
        at = end + 1


def subpatterns(pattern: bytes) -> list[tuple[bool, bytes]] | None:
    """The (negated, sub-pattern) items of a pattern-list; None when one is too long, and the
    list then matches nothing at all."""
    found = []
    for item in _items(pattern):
        if item is None:
            return None
        found.append(item)
    return found


def match_list(text: bytes, pattern: bytes) -> int:
    """OpenSSH's match_pattern_list: 1 on a positive match, -1 on a negated one, 0 on none."""
    positive = False
    for item in _items(pattern):
        if item is None:
            return 0
        negated, sub = item
        if glob(text, sub):
            if negated:
                return -1
            positive = True
    return 1 if positive else 0


def glob(text: bytes, pattern: bytes) -> bool:
    """``*`` and ``?`` wildcards, byte by byte, over the whole of ``text``."""
    return _glob_regex(pattern).match(text) is not None


@functools.lru_cache(maxsize=4096)
def _glob_regex(pattern: bytes) -> re.Pattern[bytes]:
    # Between two stars every piece has a fixed length, so taking each at its earliest place is
    # never wrong. A lookahead that captures, then a backreference, makes each choice final (an
    # atomic group, which Python 3.10 lacks): the regex engine cannot blow up on many stars.
    def piece(part: bytes) -> bytes:
        return b"".join(b"." if byte == ord("?") else re.escape(bytes([byte])) for byte in part)

    parts = pattern.split(b"*")
    if len(parts) == 1:
        return re.compile(piece(parts[0]) + rb"\Z", re.DOTALL)
    middle = [part for part in parts[1:-1] if part]
    fixed = b"".join(b"(?=(?P<g%d>.*?%s))(?P=g%d)" % (i, piece(part), i) for i, part in enumerate(middle))
    return re.compile(piece(parts[0]) + fixed + b".*" + piece(parts[-1]) + rb"\Z", re.DOTALL)


_BASE64 = re.compile(rb"(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?")


def b64_pton(text: bytes) -> bytes | None:
    """The bytes OpenSSH's b64_pton decodes from ``text``, or None where it refuses it."""
    compact = bytes(byte for byte in text if byte not in C_SPACE)
    if _BASE64.fullmatch(compact) is None:
        return None
    decoded = base64.b64decode(compact)
    # Unused bits that are not zero would be a second meaning for the same key: refused.
    return decoded if base64.b64encode(decoded) == compact else None


# strptime's fields for %Y-%m-%dT%H:%M:%S: (smallest, largest, digits).
_FIELDS = ((0, 9999, 4), (1, 12, 2), (1, 31, 2), (0, 23, 2), (0, 59, 2), (0, 61, 2))
_SEPARATORS = (b"-", b"-", b"T", b":", b":")


def _number(text: bytes, at: int, smallest: int, largest: int, digits: int) -> tuple[int, int] | None:
    """glibc strptime's get_number: blanks skipped, then up to ``digits`` digits, range-checked."""
    while at < len(text) and text[at] in C_SPACE:
        at += 1
    if at >= len(text) or not 0x30 <= text[at] <= 0x39:
        return None
    value = 0
    left = digits
    while True:
        value = value * 10 + text[at] - 0x30
        at += 1
        left -= 1
        if not (left > 0 and value * 10 <= largest and at < len(text) and 0x30 <= text[at] <= 0x39):
            break
    return (value, at) if smallest <= value <= largest else None


def _days_from_civil(year: int, month: int, day: int) -> int:
    year -= month <= 2
    era = year // 400
    of_era = year - era * 400
    of_year = (153 * ((month + 9) % 12) + 2) // 5 + day - 1
    return era * 146097 + of_era * 365 + of_era // 4 - of_era // 100 + of_year - 719468


def absolute_time(value: bytes) -> int | None:
    """Seconds since the epoch for a valid-after/valid-before value, or None where OpenSSH's
    parse_absolute_time (or the option's own rule, no time at or before the epoch) refuses it."""
    length = len(value)
    utc = False
    if length > 1 and value[-1:] in (b"Z", b"z"):
        utc, length = True, length - 1
    elif length > 3 and value[-3:].lower() == b"utc":
        utc, length = True, length - 3
    if length not in (8, 12, 14):
        return None
    # snprintf cuts the fields at fixed places; strptime then reads them.
    pieces = [value[0:4], value[4:6], value[6:8], value[8:10], value[10:12], value[12:14]]
    pieces = pieces[: {8: 3, 12: 5, 14: 6}[length]]
    text = pieces[0] + b"".join(sep + part for sep, part in zip(_SEPARATORS, pieces[1:], strict=False))
    numbers = []
    at = 0
    for index, (smallest, largest, digits) in enumerate(_FIELDS[: len(pieces)]):
        if index:
            separator = _SEPARATORS[index - 1]
            if text[at : at + 1] != separator:
                return None
            at += 1
        parsed = _number(text, at, smallest, largest, digits)
        if parsed is None:
            return None
        number, at = parsed
        numbers.append(number)
    if at != len(text):
        return None
    year, month, day, hour, minute, second = [*numbers, 0, 0, 0][:6]
    if utc:
        seconds = (_days_from_civil(year, month, 1) + day - 1) * 86400 + hour * 3600 + minute * 60 + second
    else:
        try:
            # tm_isdst is 0, as OpenSSH leaves it: a local time is read as standard time.
            seconds = int(time.mktime((year, month, day, hour, minute, second, 0, 0, 0)))
        except (OverflowError, ValueError):
            return None
    # OpenSSH 9 refuses a time before the epoch, and 0 means "no limit" to the option.
    return seconds if seconds > 0 else None
