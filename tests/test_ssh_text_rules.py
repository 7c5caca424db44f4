"""OpenSSH's text rules as freezer applies them to allowed_signers (fast; no ssh-keygen needed).

The slow differential test (tests/test_allowed_signers_differential.py) checks the whole
reading against ssh-keygen itself; these pin the pieces, each value taken from
what ssh-keygen 9.2 and glibc do, and fuzz the line reader: whatever the bytes,
a line is an entry, a comment or a located refusal, never an exception.
"""

from __future__ import annotations

import base64
import calendar
import os
import struct
import time
from collections.abc import Iterator

import pytest
from hostile.allowed_signers_files import CASES, SignersCase
from hypothesis import given, settings
from hypothesis import strategies as st

from freezer.trust import allowed_signers
from freezer.trust.sshgrammar import absolute_time, b64_pton, glob, match_list

UTC_2026 = calendar.timegm((2026, 1, 1, 0, 0, 0))
KEY = struct.pack(">I", 11) + b"ssh-ed25519" + struct.pack(">I", 32) + bytes(range(32))
PUBLIC = b"ssh-ed25519 " + base64.b64encode(KEY)


@pytest.fixture
def in_new_york() -> Iterator[None]:
    before = os.environ.get("TZ")
    os.environ["TZ"] = "America/New_York"
    time.tzset()
    yield
    if before is None:
        os.environ.pop("TZ", None)
    else:
        os.environ["TZ"] = before
    time.tzset()


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        (b"20260101Z", UTC_2026),
        (b"20260101z", UTC_2026),
        (b"20260101UTC", UTC_2026),
        (b"20260101utc", UTC_2026),
        (b"202601010000Z", UTC_2026),
        (b"20260101000000Z", UTC_2026),
        (b"2026 101Z", UTC_2026),  # strptime skips blanks before a field
        (b"20251231235960Z", UTC_2026),  # seconds run to 61 and roll over
        (b"20251231235961Z", UTC_2026 + 1),
        (b"20260231Z", calendar.timegm((2026, 3, 3, 0, 0, 0))),  # the day is checked against 31 only
        (b"19691231235961Z", 1),
        (b"20261399", None),  # the crash: month 13
        (b"00000000", None),  # the crash: month 0
        (b"20260132Z", None),
        (b"20251231235962Z", None),
        (b"20260101240000Z", None),
        (b"19700101000000Z", None),  # 0 means "no limit" to the option
        (b"19600101Z", None),  # before the epoch: OpenSSH 9 refuses it
        (b"2026010", None),
        (b"202601011", None),
        (b"2026-01-01", None),
        (b"+2026010", None),
        (b"2026010 Z", None),
        (b"", None),
        (b"Z", None),
    ],
)
def test_times_read_as_parse_absolute_time_reads_them(text: bytes, seconds: int | None) -> None:
    assert absolute_time(text) == seconds


def test_a_local_time_is_read_as_standard_time(in_new_york: None) -> None:
    # OpenSSH leaves tm_isdst at 0: in July, New York's 00:00 is read as 05:00 UTC, not 04:00.
    assert absolute_time(b"20260701") == calendar.timegm((2026, 7, 1, 5, 0, 0))
    assert absolute_time(b"20260101") == calendar.timegm((2026, 1, 1, 5, 0, 0))
    assert absolute_time(b"20260701Z") == calendar.timegm((2026, 7, 1, 0, 0, 0))


@pytest.mark.parametrize(
    ("text", "decoded"),
    [
        (b"AAAA", b"\0\0\0"),
        (b"AA\fAA", b"\0\0\0"),
        (b"AA\rA\vA\n", b"\0\0\0"),
        (b"AA==", b"\0"),
        (b"AAA=", b"\0\0"),
        (b"AA= =", b"\0"),
        (b"AB==", None),  # unused bits set: a second spelling of the same bytes
        (b"AAB=", None),
        (b"AA=", None),
        (b"AAA", None),
        (b"AAAA=", None),
        (b"A===", None),
        (b"AA==AA==", None),
        (b"AA-A", None),
        (b"AA\xc3\xa9", None),
    ],
)
def test_base64_as_b64_pton_reads_it(text: bytes, decoded: bytes | None) -> None:
    assert b64_pton(text) == decoded


@pytest.mark.parametrize(
    ("text", "pattern", "expected"),
    [
        (b"alice@example.org", b"alice@example.org", 1),
        (b"alice@example.org", b"*@example.org", 1),
        (b"alice@example.org", b"?lice@*", 1),
        (b"alice@example.org", b"bob@*,alice@*", 1),
        (b"alice@example.org", b"*,!alice@example.org", -1),
        (b"alice@example.org", b"!alice@example.org,*", -1),
        (b"alice@example.org", b"!bob@example.org", 0),
        (b"alice@example.org", b"ALICE@example.org", 0),
        (b"", b",alice", 1),
        (b"", b"alice,", 0),
        (b"!x", b"!!x", -1),
        (b"a", b"a," + b"x" * 1022, 1),
        (b"a", b"a," + b"x" * 1023, 0),  # one sub-pattern too long: the list matches nothing
        (b"a", b"!a," + b"x" * 1023, -1),  # unless a negation matched first
        (b"a" * 1000, b"*a" * 500, 1),
        (b"a" * 1000, b"*a" * 500 + b"b", 0),
    ],
)
def test_pattern_lists_match_as_match_pattern_list_does(text: bytes, pattern: bytes, expected: int) -> None:
    assert match_list(text, pattern) == expected


@given(st.binary(max_size=8), st.text(alphabet="ab*?", max_size=8).map(str.encode))
@settings(max_examples=2000, deadline=None)
def test_glob_agrees_with_the_plain_recursive_definition(text: bytes, pattern: bytes) -> None:
    def plain(s: bytes, p: bytes) -> bool:
        if not p:
            return not s
        if p[:1] == b"*":
            return plain(s, p[1:]) or (bool(s) and plain(s[1:], p))
        return bool(s) and (p[:1] == b"?" or p[0] == s[0]) and plain(s[1:], p[1:])

    assert glob(text, pattern) == plain(text, pattern)


def _lines(text: bytes) -> bytes:
    return text.replace(b"<A64>", base64.b64encode(KEY)).replace(b"<A>", PUBLIC).replace(b"<B>", PUBLIC)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_corpus_file_reads_into_entries_or_located_problems(case: SignersCase) -> None:
    text = _lines(case.text)
    read = allowed_signers.parse(text)
    count = max(1, text.count(b"\n") + (not text.endswith(b"\n")))
    assert {e.line for e in read.entries}.isdisjoint(p.line for p in read.problems)
    for problem in read.problems:
        assert problem.line is not None and 1 <= problem.line <= count
        assert problem.location() == f"allowed_signers:{problem.line}" and problem.message


TOKENS = [
    b"alice@example.org", b"*", b"!", b",", b" ", b"\t", b"\r", b"\n", b'"', b"\\", b"#", b"=", b"\0", b"\xff",
    b"cert-authority", b'namespaces="freezer"', b"namespaces=", b'valid-after="', b"valid-before=", b"20261399",
    b"20260101Z", b"ssh-ed25519", b"ssh-rsa", PUBLIC, base64.b64encode(KEY)[:20], b"command=",
]  # fmt: skip


@given(st.lists(st.sampled_from(TOKENS), max_size=24).map(b"".join))
@settings(max_examples=1500, deadline=None)
def test_no_line_makes_the_reader_fail(text: bytes) -> None:
    read = allowed_signers.parse(text)
    for entry in read.entries:
        assert entry.allows(KEY, "freezer", UTC_2026) in (True, False)
        assert isinstance(entry.principals, tuple)
    for problem in read.problems:
        assert problem.line is not None and problem.message
