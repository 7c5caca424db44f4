"""Hostile allowed_signers files (issue 23, class 7), for the differential test against ssh-keygen.

Each case is a whole allowed_signers file. ``<A>`` is the signer's public key
(``ssh-ed25519 AAAA…``), ``<A64>`` its base64 alone, ``<B>`` another Ed25519
key, ``<RSA>`` and ``<ECDSA>`` keys of other types, and ``<A64:…>`` variants
of the signer's key blob built by the test (see ``key_variants`` there). The
test signs one message with the signer's key in the namespaces ``freezer``
and ``git`` and asks both ``ssh-keygen -Y verify`` and freezer, for each probe
(principal, namespace, verify time), whether the file allows it.

``stricter`` marks the few lines that freezer refuses on purpose although some
OpenSSH release accepts them (a NUL byte, a blob naming its type by the short
name, a carriage return before the principals, a valid-before before 1970,
more than 256 principals or 4 KiB of them, options over 4 KiB): there freezer must never allow what ssh-keygen
refuses, and must refuse the line with a located message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ALICE = "alice@example.org"
BOB = "bob@example.org"
# Default probes: every case is asked all of these.
PRINCIPALS = (ALICE, BOB)
NAMESPACES = ("freezer", "git")
TIMES = ("20240101000000Z", "20270101000000Z")
LAST_OF_2024 = "20241231235959Z"
FIRST_2027 = "20270101000001Z"


@dataclass(frozen=True)
class SignersCase:
    id: str
    text: bytes
    stricter: bool = False
    # Extra (principal, namespace, time) probes beyond the default grid.
    probes: tuple[tuple[str, str, str], ...] = field(default=())


def _case(id: str, text: bytes, *probes: tuple[str, str, str], stricter: bool = False) -> SignersCase:
    return SignersCase(id, text, stricter, probes)


MANY = b",".join(b"p%d@example.org" % i for i in range(300))
LONG_1022 = b"x" * 1022
LONG_1023 = b"x" * 1023

CASES = [
    # Plain lines, principals and patterns.
    _case("plain", b"alice@example.org <A>\n"),
    _case("plain-comment", b"alice@example.org <A> alice@laptop\n"),
    _case("options-after-key-are-comment", b'alice@example.org <A> namespaces="git" valid-before="20000101"\n'),
    _case("two-principals", b"alice@example.org,bob@example.org <A>\n"),
    _case("wildcard-domain", b"*@example.org <A>\n", ("carol@example.org", "freezer", TIMES[0])),
    _case("wildcard-host", b"alice@* <A>\n", ("alice@example.net", "freezer", TIMES[0])),
    _case("question-mark", b"?lice@example.org <A>\n", ("blice@example.org", "freezer", TIMES[0])),
    _case("star-but-bob", b"*,!bob@example.org <A>\n"),
    _case("negation-first", b"!bob@example.org,* <A>\n"),
    _case("negation-of-alice", b"!alice@example.org,*@example.org <A>\n"),
    _case("only-negations", b"!alice@example.org <A>\n"),
    _case("negate-everything", b"!*,alice@example.org <A>\n"),
    _case("empty-subpattern", b",alice@example.org <A>\n", ("", "freezer", TIMES[0])),
    _case("quoted-principal", b'"alice@example.org" <A>\n'),
    _case("quoted-with-space", b'"al ice",alice@example.org <A>\n', ("al ice", "freezer", TIMES[0])),
    _case("quote-mid-field", b'al"ice@example.org" <A>\n'),
    _case("quote-then-key-without-space", b'"alice@example.org"<A>\n'),
    _case("unterminated-principal-quote", b'"alice@example.org <A>\n'),
    _case("tab-separated", b"alice@example.org\t<A>\n"),
    _case("leading-blanks", b"  \talice@example.org <A>\n"),
    _case("many-spaces", b"alice@example.org     <A>\n"),
    _case("crlf", b"alice@example.org <A>\r\n"),
    _case("no-final-newline", b"alice@example.org <A>"),
    _case("comment-line", b"# alice@example.org <A>\n"),
    _case("indented-comment-then-line", b"   # who may sign\nalice@example.org <A>\n"),
    _case("blank-lines", b"\n\n\r\n \t\nalice@example.org <A>\n"),
    _case("other-key", b"alice@example.org <B>\n"),
    _case("other-key-then-signer", b"bob@example.org <B>\nalice@example.org <A>\n"),
    _case("key-under-bob", b"bob@example.org <A>\n"),
    _case("case-of-principal", b"ALICE@example.org <A>\n"),
    _case("principal-1022", LONG_1022 + b",alice@example.org <A>\n"),
    _case("principal-1023", b"alice@example.org," + LONG_1023 + b" <A>\n"),
    _case("latin1-comment", b"alice@example.org <A> caf\xe9\n"),
    _case("utf8-principal", "ålice@example.org <A>\n".encode(), ("ålice@example.org", "freezer", TIMES[0])),
    _case("very-long-comment", b"alice@example.org <A> " + b"c" * 100_000 + b"\n"),
    _case("principals-only", b"alice@example.org\n"),
    _case("principals-and-space", b"alice@example.org \n"),
    _case("principals-no-newline", b"alice@example.org"),
    # Options.
    _case("ns-freezer", b'alice@example.org namespaces="freezer" <A>\n'),
    _case("ns-list", b'alice@example.org namespaces="git,freezer" <A>\n'),
    _case("ns-wildcard", b'alice@example.org namespaces="freez*" <A>\n'),
    _case("ns-negated", b'alice@example.org namespaces="*,!git" <A>\n'),
    _case("ns-git", b'alice@example.org namespaces="git" <A>\n'),
    _case("ns-empty", b'alice@example.org namespaces="" <A>\n'),
    _case("ns-upper-name", b'alice@example.org NAMESPACES="freezer" <A>\n'),
    _case("ns-twice", b'alice@example.org namespaces="freezer",namespaces="git" <A>\n'),
    _case("ns-unquoted", b"alice@example.org namespaces=freezer <A>\n"),
    _case("ns-unterminated", b'alice@example.org namespaces="freezer <A>\n'),
    _case("ns-escaped-quote", b'alice@example.org namespaces="fr\\"eezer,freezer" <A>\n'),
    _case("ns-backslash", b'alice@example.org namespaces="fr\\eezer" <A>\n'),
    _case("ns-space-inside", b'alice@example.org namespaces="free zer,git" <A>\n'),
    _case("ns-tab-inside", b'alice@example.org namespaces="free\tzer,freezer" <A>\n'),
    _case("ns-cr-after-value", b'alice@example.org namespaces="freezer"\r <A>\n'),
    _case("after-date", b'alice@example.org valid-after="20250101" <A>\n', (ALICE, "freezer", "20250101030000Z")),
    _case("after-date-z", b'alice@example.org valid-after="20250101Z" <A>\n', (ALICE, "freezer", "20250101000000Z")),
    _case("after-date-utc", b'alice@example.org valid-after="20250101utc" <A>\n', (ALICE, "freezer", LAST_OF_2024)),
    _case("after-minutes", b'alice@example.org valid-after="202501011200" <A>\n'),
    _case("after-seconds", b'alice@example.org valid-after="20250101120000Z" <A>\n'),
    _case("before-date", b'alice@example.org valid-before="20280101" <A>\n'),
    _case("before-exact", b'alice@example.org valid-before="20270101000000Z" <A>\n', (ALICE, "freezer", FIRST_2027)),
    _case("after-and-before", b'alice@example.org valid-before="20280101",valid-after="20250101" <A>\n'),
    _case("after-month-13", b'alice@example.org valid-after="20261399" <A>\n'),
    _case("after-zeros", b'alice@example.org valid-after="00000000" <A>\n'),
    _case("after-unquoted", b"alice@example.org valid-after=20261399 <A>\n"),
    _case("before-feb-31", b'alice@example.org valid-before="20260231" <A>\n', (ALICE, "freezer", "20260302120000Z")),
    _case("after-blank-in-field", b'alice@example.org valid-after="2025 101" <A>\n'),
    _case("after-second-61", b'alice@example.org valid-after="20251231235961Z" <A>\n'),
    _case("after-second-62", b'alice@example.org valid-after="20251231235962Z" <A>\n'),
    _case("after-7-digits", b'alice@example.org valid-after="2025010" <A>\n'),
    _case("after-dashes", b'alice@example.org valid-after="2025-01-01" <A>\n'),
    _case("after-plus", b'alice@example.org valid-after="+2025010" <A>\n'),
    _case("after-epoch", b'alice@example.org valid-after="19700101000000Z" <A>\n'),
    _case("after-epoch-plus-one", b'alice@example.org valid-after="19691231235961Z" <A>\n'),
    _case("after-1960", b'alice@example.org valid-after="19600101" <A>\n'),
    _case("before-1960", b'alice@example.org valid-before="19600101" <A>\n', stricter=True),
    _case("before-not-after-after", b'alice@example.org valid-after="20300101",valid-before="20250101" <A>\n'),
    _case("after-twice", b'alice@example.org valid-after="20250101",valid-after="20250102" <A>\n'),
    _case("options-split-by-space", b'alice@example.org valid-after="20250101" valid-before="20280101" <A>\n'),
    _case("upper-option-names", b'alice@example.org VALID-AFTER="20250101",Valid-Before="20280101" <A>\n'),
    _case("cert-authority", b"alice@example.org cert-authority <A>\n"),
    _case("cert-authority-upper", b'alice@example.org CERT-AUTHORITY,namespaces="freezer" <A>\n'),
    _case("cert-authority-suffix", b"alice@example.org cert-authorityx <A>\n"),
    _case("cert-authority-then-plain", b"alice@example.org cert-authority <A>\nalice@example.org <A>\n"),
    _case("command-option", b'alice@example.org command="/bin/true" <A>\n'),
    _case("no-pty-option", b"alice@example.org no-pty <A>\n"),
    _case("leading-comma", b'alice@example.org ,namespaces="freezer" <A>\n'),
    _case("double-comma", b'alice@example.org namespaces="freezer",,valid-after="20200101" <A>\n'),
    _case("trailing-comma", b'alice@example.org namespaces="freezer", <A>\n'),
    _case("garbage-after-value", b'alice@example.org namespaces="freezer"x <A>\n'),
    _case("quote-in-comment", b'alice@example.org namespaces="freezer" <A> trailing "quote\n'),
    _case("options-then-comment", b'alice@example.org namespaces="freezer" # no key\n'),
    _case(
        "ns-git-then-freezer",
        b'alice@example.org namespaces="git" <A>\n' + b'alice@example.org namespaces="freezer" <A>\n',
    ),
    _case("expired-then-open", b'alice@example.org valid-before="20250101" <A>\nalice@example.org <A>\n'),
    _case("bad-line-then-good", b'alice@example.org command="x" <A>\nalice@example.org <A>\n'),
    # Keys.
    _case("rsa-type-ed-blob", b"alice@example.org ssh-rsa <A64>\n"),
    _case("ecdsa-type-ed-blob", b"alice@example.org ecdsa-sha2-nistp256 <A64>\n"),
    _case("rsa-key", b"alice@example.org <RSA>\n"),
    _case("ecdsa-key", b"alice@example.org <ECDSA>\n"),
    _case("rsa-then-signer", b"alice@example.org <RSA>\nalice@example.org <A>\n"),
    _case("truncated-key", b"alice@example.org ssh-ed25519 <A64:truncated>\n"),
    _case("not-base64", b"alice@example.org ssh-ed25519 !!!!\n"),
    _case("type-without-key", b"alice@example.org ssh-ed25519\n"),
    _case("extra-padding", b"alice@example.org ssh-ed25519 <A64>=\n"),
    _case("formfeed-in-base64", b"alice@example.org ssh-ed25519 <A64:formfeed>\n"),
    _case("cr-in-base64", b"alice@example.org ssh-ed25519 <A64:cr>\n"),
    _case("upper-key-type", b"alice@example.org SSH-ED25519 <A64>\n"),
    _case("blob-short-type-name", b"alice@example.org ssh-ed25519 <A64:shortname>\n", stricter=True),
    _case("blob-type-with-nul", b"alice@example.org ssh-ed25519 <A64:nul>\n"),
    _case("blob-trailing-bytes", b"alice@example.org ssh-ed25519 <A64:extra>\n"),
    _case("blob-31-byte-key", b"alice@example.org ssh-ed25519 <A64:short-key>\n"),
    _case("two-spaces-before-blob", b"alice@example.org ssh-ed25519  <A64>\n"),
    _case("unknown-key-type", b"alice@example.org ssh-foo <A64>\n"),
    # What freezer refuses on purpose.
    _case("nul-byte", b"alice@example.org <A>\x00 junk\n", stricter=True),
    _case("cr-before-principals", b"\r alice@example.org <A>\n", stricter=True),
    _case("three-hundred-principals", MANY + b",alice@example.org <A>\n", stricter=True),
    _case("principals-over-4k", b",".join([b"y" * 1000] * 5) + b",alice@example.org <A>\n", stricter=True),
    _case("options-over-4k", b'alice@example.org namespaces="freezer,' + b"z" * 4100 + b'" <A>\n', stricter=True),
]


def generated(public: bytes, count: int, seed: int) -> list[bytes]:
    """``count`` allowed_signers lines built from the grammar's parts and then spoiled at random:
    principals with wildcards, negations and quotes, option lists good and bad, keys good and bad,
    comments, blanks and line ends; about one in ten allows the signer."""
    import random

    chance = random.Random(seed)
    a64 = public.split()[1]
    spoilers = [b" ", b"\t", b"\r", b'"', b"\\", b"#", b"=", b",", b"!", b"*", b"\f", b"Z", b"x"]
    names = [b"alice@example.org", b"*", b"*@example.org", b"?lice@example.org", b"bob@example.org"]
    names += [b"!alice@example.org", b"!bob@example.org", b"", b'"alice@example.org"', b'"al ice"', b"!*"]
    options = [b"cert-authority", b"CERT-AUTHORITY", b'namespaces="freezer"', b'namespaces="git"']
    options += [b'namespaces="fre*"', b'namespaces="*,!freezer"', b'namespaces="git,freezer"', b"namespaces=freezer"]
    options += [b'namespaces="freezer', b'valid-after="20250101"', b'valid-after="20270101"']
    options += [b'valid-before="20300101"']
    options += [b'valid-before="20260101Z"', b'valid-after="20261399"', b'valid-after="2026 101"', b'command="x"']
    options += [b'valid-after="20260601000000z"', b'valid-before="20260601000000UTC"', b'valid-after="00000000"']
    options += [b"no-pty", b"", b'namespaces="a\\"b,freezer"', b'namespaces="a b,freezer"']
    keys = [public, public, public, b"ssh-ed25519\t" + a64, b"ssh-rsa " + a64, b"ssh-ed25519 " + a64[:-4]]
    keys += [b"ssh-ed25519  " + a64, b"ssh-ed25519 " + a64[:10] + b"\f" + a64[10:], b"ssh-ed25519 " + a64 + b"="]
    keys += [b"ssh-ed25519", b"SSH-ED25519 " + a64]
    lines = []
    for _ in range(count):
        parts = [chance.choice([b"", b" ", b"\t"]), b",".join(chance.choices(names, k=chance.randint(1, 3)))]
        parts.append(chance.choice([b" ", b"  ", b"\t", b""]))
        if chance.random() < 0.6:
            parts += [chance.choice([b",", b",,"]).join(chance.choices(options, k=chance.randint(1, 3))), b" "]
        parts += [chance.choice(keys), chance.choice([b"", b" comment", b' "q', b" # c", b"\tx y"])]
        text = b"".join(parts)
        if chance.random() < 0.2:
            at = chance.randrange(len(text) + 1)
            text = text[:at] + chance.choice(spoilers) + text[at:]
        lines.append(text + chance.choice([b"\n", b"\r\n", b""]))
    return lines
