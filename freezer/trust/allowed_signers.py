"""The registry's ``allowed_signers`` file, read line by line as ``ssh-keygen -Y verify`` reads it.

A consumer checks a version with ``ssh-keygen -Y verify -f allowed_signers -I
PRINCIPAL -n freezer`` (README, "Who signed what"), so freezer may call a key
allowed only where that command would. This module follows OpenSSH's reading
of the file (ssh-keygen(1), ALLOWED SIGNERS; sshsig.c) rule by rule: the
principals field (quotes allowed), then either the key or, when that does not
read as a key, one options word and then the key; options are only
``cert-authority``, ``namespaces="…"``, ``valid-after="…"`` and
``valid-before="…"``, names in any case, values in double quotes, each at most
once, separated by commas; anything after the key is a comment. A line
ssh-keygen cannot read is skipped by ssh-keygen; here it is skipped too and
reported as ``allowed_signers:LINE: …``.

Where OpenSSH releases differ, freezer takes the stricter reading, so a key it
calls allowed is allowed by every ssh-keygen since 9.0: a key blob naming its
type by the short name (``ED25519``, read by 9.x only) or a carriage return
before the principals (skipped by 10.x only) is refused. freezer also refuses
a line holding a NUL byte (C stops reading the line there, a reviewer does not),
more than :data:`MOST_PRINCIPALS` principals on one line, and principals or
options over :data:`MAX_FIELD_BYTES` (which bounds the cost of matching them). freezer's
signatures are made by plain Ed25519 keys, so a ``cert-authority`` line, which
vouches for certificates only, never allows one; lines of other key types are
read (their type and base64 are checked, not their key material) and never
match a freezer signature.
"""

from __future__ import annotations

import functools
import os
import stat
import struct
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from freezer.domain.errors import UsageError
from freezer.domain.problems import Problem, display_path
from freezer.runtime.reading import ReadRefused, read_bounded
from freezer.trust import sshgrammar

ALLOWED_SIGNERS = "allowed_signers"
# Every namespace freezer signs in (trust.signing, trust.lifecycle, trust.checkpoint name them; a test
# holds the three equal): a maintainer's line lists them all, or each command it leaves out refuses.
FREEZER_NAMESPACES = ("freezer", "freezer-status", "freezer-checkpoint")
ALL_NAMESPACES = 'namespaces="' + ",".join(FREEZER_NAMESPACES) + '"'
MAX_BYTES = 1 << 20
MOST_PRINCIPALS = 256
# Principals and options are short in practice; a bound keeps pattern matching cheap.
MAX_FIELD_BYTES = 4096
ED25519 = "ssh-ed25519"
_CURVES = ("nistp256", "nistp384", "nistp521")
_KEY_FAMILIES = {
    ED25519: "ed25519",
    "ssh-ed25519-cert-v01@openssh.com": "ed25519-cert",
    "sk-ssh-ed25519@openssh.com": "ed25519-sk",
    "sk-ssh-ed25519-cert-v01@openssh.com": "ed25519-sk-cert",
    "ssh-rsa": "rsa",
    "rsa-sha2-256": "rsa",
    "rsa-sha2-512": "rsa",
    "ssh-rsa-cert-v01@openssh.com": "rsa-cert",
    "rsa-sha2-256-cert-v01@openssh.com": "rsa-cert",
    "rsa-sha2-512-cert-v01@openssh.com": "rsa-cert",
    "ssh-dss": "dsa",
    "ssh-dss-cert-v01@openssh.com": "dsa-cert",
    "sk-ecdsa-sha2-nistp256@openssh.com": "ecdsa-sk",
    "webauthn-sk-ecdsa-sha2-nistp256@openssh.com": "ecdsa-sk",
    "sk-ecdsa-sha2-nistp256-cert-v01@openssh.com": "ecdsa-sk-cert",
    **{f"ecdsa-sha2-{curve}": f"ecdsa-{curve}" for curve in _CURVES},
    **{f"ecdsa-sha2-{curve}-cert-v01@openssh.com": f"ecdsa-{curve}-cert" for curve in _CURVES},
}
_BLANKS = b" \t"
_WHITESPACE = b" \t\r\n"  # strdelim's


def _text(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class AllowedSigner:
    """One line that ssh-keygen reads: who, which key, and the options."""

    line: int
    pattern: bytes  # the principals, an OpenSSH pattern-list
    key_type: str
    key: bytes  # the canonical ssh-ed25519 key blob; empty for other key types
    cert_authority: bool = False
    namespaces: bytes | None = None  # a pattern-list; None: any namespace
    valid_after: int | None = None
    valid_before: int | None = None

    @functools.cached_property
    def principals(self) -> tuple[str, ...]:
        """The principals ``ssh-keygen -Y verify -I`` matches with this line (each positive
        sub-pattern taken as written, when no negation on the line excludes it)."""
        items = sshgrammar.subpatterns(self.pattern)
        if items is None:
            return ()
        found = []
        for negated, sub in items:
            if not negated and sub and sshgrammar.match_list(sub, self.pattern) == 1:
                found.append(_text(sub))
        return tuple(found)

    def names(self, public: bytes) -> bool:
        """Whether a signature by the plain key ``public`` matches this line's key."""
        return bool(self.key) and self.key == public and not self.cert_authority

    def refusal(self, namespace: str, when: float) -> str | None:
        """Why this line, whose key signed, does not allow the signature (None: it does), in the
        order ssh-keygen checks."""
        where = f"{ALLOWED_SIGNERS} line {self.line}"
        if self.cert_authority:
            return f"{where} marks the key cert-authority: it vouches for certificates, never for a plain key"
        if self.namespaces is not None and sshgrammar.match_list(namespace.encode(), self.namespaces) != 1:
            return (
                f"{where} limits the key to namespaces {_text(self.namespaces)}, and this needs namespace "
                f"{namespace!r}: add it to that line's list ({ALL_NAMESPACES} allows all that freezer signs)"
            )
        moment = int(when)  # ssh-keygen compares whole seconds
        if self.valid_after is not None and moment < self.valid_after:
            return f"{where}: the key is not valid yet (valid-after)"
        if self.valid_before is not None and moment > self.valid_before:
            return f"{where}: the key expired (valid-before)"
        if not self.principals:
            return f"{where} names no principal that ssh-keygen -Y verify -I can match"
        return None

    def allows(self, public: bytes, namespace: str, when: float, principal: str | None = None) -> bool:
        """ssh-keygen's verdict on this line for ``-I principal``; with no principal, whether
        some principal of the line is allowed (what freezer reports as the signer)."""
        if principal is not None and sshgrammar.match_list(principal.encode(), self.pattern) != 1:
            return False
        return self.names(public) and self.refusal(namespace, when) is None


@dataclass(frozen=True)
class AllowedSigners:
    """The lines ssh-keygen reads, and a located problem for each line it skips."""

    entries: tuple[AllowedSigner, ...] = ()
    problems: tuple[Problem, ...] = field(default=())

    def allows(self, public: bytes, namespace: str, when: float, principal: str | None = None) -> bool:
        return any(entry.allows(public, namespace, when, principal) for entry in self.entries)

    def usable(self, public: bytes, namespace: str, when: float) -> list[AllowedSigner]:
        return [entry for entry in self.entries if entry.allows(public, namespace, when)]

    def why_not(self, public: bytes, namespace: str, when: float) -> str:
        """Why no line allows ``public`` (for a key that no line allows)."""
        return why_refused(self.entries, public, namespace, when)


def why_refused(entries: Sequence[AllowedSigner], public: bytes, namespace: str, when: float) -> str:
    """Why no line of ``entries`` allows ``public`` to sign in ``namespace``: the line that names the
    key and what it lacks, else that no line names it (and the line to add)."""
    for entry in entries:
        if entry.key and entry.key == public:
            why = entry.refusal(namespace, when)
            if why:
                return why
    return (
        f"the key is not in {ALLOWED_SIGNERS}: add a line for it at the registry root "
        f"(you@example.org {ALL_NAMESPACES} ssh-ed25519 AAAA…)"
    )


def _string(blob: bytes, at: int) -> tuple[bytes, int] | None:
    if len(blob) - at < 4:
        return None
    (length,) = struct.unpack(">I", blob[at : at + 4])
    if len(blob) - at - 4 < length:
        return None
    return blob[at + 4 : at + 4 + length], at + 4 + length


def _key_blob(key_type: str, blob: bytes) -> bytes | str:
    """The canonical blob of an Ed25519 key, b"" for a key of another type, or why not a key."""
    name = _string(blob, 0)
    if name is None:
        return "the key is truncated"
    raw_name, at = name
    if b"\0" in raw_name[:-1]:
        return "the key's type name holds a NUL byte"
    named = raw_name[:-1] if raw_name.endswith(b"\0") else raw_name
    if _KEY_FAMILIES.get(_text(named)) != _KEY_FAMILIES[key_type]:
        return f"the key is a {_text(named)!r} key, not {key_type}"
    if key_type != ED25519:
        return b""
    public = _string(blob, at)
    if public is None or len(public[0]) != 32 or public[1] != len(blob):
        return f"not a well-formed {ED25519} key"
    return struct.pack(">I", len(ED25519)) + ED25519.encode() + struct.pack(">I", 32) + public[0]


def _read_key(text: bytes) -> tuple[str, bytes] | str:
    """sshkey_read: ``type base64`` at the start of ``text``; (type, canonical blob) or why not."""
    gaps = [at for at in (text.find(b" "), text.find(b"\t")) if at >= 0]
    if not gaps:
        return "a key type and a base64 key are needed"
    key_type = _text(text[: min(gaps)])
    if key_type not in _KEY_FAMILIES:
        return f"{key_type!r} is not a key type ssh-keygen knows"
    rest = text[min(gaps) :].lstrip(_BLANKS)
    if not rest:
        return f"{key_type} is not followed by a key"
    ends = [at for at in (rest.find(b" "), rest.find(b"\t")) if at >= 0]
    decoded = sshgrammar.b64_pton(rest[: min(ends)] if ends else rest)
    if not decoded:
        return f"the {key_type} key is not base64 as ssh-keygen reads it"
    blob = _key_blob(key_type, decoded)
    return blob if isinstance(blob, str) else (key_type, blob)


def _principals_field(text: bytes) -> tuple[bytes, bytes] | str:
    """strdelimw: the first field (a double-quoted part may hold blanks), and what follows it."""
    ends = [at for at in (text.find(bytes([byte])) for byte in b' \t\r\n"') if at >= 0]
    if not ends:
        return "invalid line: the principals must be followed by a key"
    end = min(ends)
    if text[end] != ord('"'):
        return text[:end], text[end + 1 :].lstrip(_WHITESPACE)
    close = text.find(b'"', end + 1)
    if close < 0:
        return "invalid line: a quote in the principals is never closed"
    return text[:end] + text[end + 1 : close], text[close + 1 :].lstrip(_WHITESPACE)


def _options_word(text: bytes) -> int | None:
    """sshkey_advance_past_options: where the options word ends (None: a quote is never closed)."""
    quoted = False
    at = 0
    while at < len(text) and (quoted or text[at] not in _BLANKS):
        if text[at] == ord("\\") and text[at + 1 : at + 2] == b'"':
            at += 1
        elif text[at] == ord('"'):
            quoted = not quoted
        at += 1
    return None if quoted and at == len(text) else at


def _dequote(text: bytes, at: int) -> tuple[bytes, int] | str:
    if text[at : at + 1] != b'"':
        return 'an option value must be in double quotes, as namespaces="freezer"'
    value = bytearray()
    at += 1
    while at < len(text) and text[at] != ord('"'):
        if text[at] == ord("\\") and text[at + 1 : at + 2] == b'"':
            at += 1
        value.append(text[at])
        at += 1
    if at == len(text):
        return "an option value's closing quote is missing"
    return bytes(value), at + 1


_TIME_FORMS = "YYYYMMDD, YYYYMMDDHHMM or YYYYMMDDHHMMSS, with Z or UTC at the end for UTC"


def _options(text: bytes) -> dict[str, object] | str:
    """sshsigopt_parse over the options word; the options, or why ssh-keygen refuses them."""
    found: dict[str, object] = {}
    at = 0
    while at < len(text) and text[at] not in _BLANKS:
        if text[at : at + 14].lower() == b"cert-authority":
            found["cert_authority"] = True
            at += 14
        else:
            for name in ("namespaces", "valid-after", "valid-before"):
                if text[at : at + len(name) + 1].lower() == name.encode() + b"=":
                    if name in found:
                        return f'more than one "{name}" option'
                    value = _dequote(text, at + len(name) + 1)
                    if isinstance(value, str):
                        return value
                    found[name], at = value
                    if name != "namespaces":
                        moment = sshgrammar.absolute_time(value[0])
                        if moment is None:
                            return f"{name}={_text(value[0])!r} is not a time ({_TIME_FORMS})"
                        found[name] = moment
                    break
        if at == len(text) or text[at] in _BLANKS:
            break
        if text[at] != ord(","):
            return (
                f"unknown option at {_text(text[at : at + 40])!r}: ssh-keygen reads only "
                'cert-authority, namespaces="…", valid-after="…" and valid-before="…"'
            )
        at += 1
        if at == len(text):
            return "the options end with a comma"
    after, before = found.get("valid-after"), found.get("valid-before")
    if isinstance(after, int) and isinstance(before, int) and before <= after:
        return "valid-before is not after valid-after"
    return found


def parse_line(raw: bytes, number: int) -> AllowedSigner | str | None:
    """One line as ssh-keygen reads it (with its newline): the entry, why it is skipped, or None
    for a blank or comment line."""
    if b"\0" in raw:
        return "holds a NUL byte, where ssh-keygen stops reading the line: remove it"
    if raw.lstrip(_WHITESPACE)[:1] in (b"", b"#"):
        return None
    field_or_why = _principals_field(raw.lstrip(_BLANKS))
    if isinstance(field_or_why, str):
        return field_or_why
    pattern, rest = field_or_why
    if not pattern:
        return "no principals before the key"
    if pattern.count(b",") >= MOST_PRINCIPALS or len(pattern) > MAX_FIELD_BYTES:
        return (
            f"more than {MOST_PRINCIPALS} principals or {MAX_FIELD_BYTES} bytes of them on one line, "
            "more than freezer reads: split the line"
        )
    key = _read_key(rest)
    options = b""
    if isinstance(key, str):
        end = _options_word(rest)
        if end is None:
            return "invalid options: a quote is never closed"
        if end == len(rest):
            return f"missing key ({key})"
        options = rest[:end]
        if len(options) > MAX_FIELD_BYTES:
            return f"the options are over {MAX_FIELD_BYTES} bytes, more than freezer reads"
        if _text(options) not in _KEY_FAMILIES:  # else the first reading's reason is the one to give
            key = _read_key(rest[end + 1 :].lstrip(_BLANKS))
        if isinstance(key, str):
            return f"invalid key: {key}"
    parsed = _options(options)
    if isinstance(parsed, str):
        return f"bad options: {parsed}"
    namespaces = parsed.get("namespaces")
    after, before = parsed.get("valid-after"), parsed.get("valid-before")
    return AllowedSigner(
        number,
        pattern,
        key[0],
        key[1],
        cert_authority=bool(parsed.get("cert_authority")),
        namespaces=namespaces if isinstance(namespaces, bytes) else None,
        valid_after=after if isinstance(after, int) else None,
        valid_before=before if isinstance(before, int) else None,
    )


def parse(data: bytes, shown: str = ALLOWED_SIGNERS) -> AllowedSigners:
    """Every line of an allowed_signers file (lines end at LF, as getline reads them)."""
    lines = data.split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    entries, problems = [], []
    for number, body in enumerate(lines, start=1):
        raw = body + b"\n" if number < len(lines) or data.endswith(b"\n") else body
        read = parse_line(raw, number)
        if isinstance(read, str):
            problems.append(Problem(shown, number, None, (), read, "signers"))
        elif read is not None:
            entries.append(read)
    return AllowedSigners(tuple(entries), tuple(problems))


def read(root: Path) -> AllowedSigners:
    """The registry's allowed_signers (nothing when there is none). It is read only as a regular
    file inside the registry, never through a link, and at most :data:`MAX_BYTES`."""
    path = root / ALLOWED_SIGNERS
    shown = display_path(path)
    try:
        if stat.S_ISLNK(os.lstat(path).st_mode):
            raise UsageError(
                f"{shown}: is a symbolic link; freezer reads who may sign only from a real file in the registry",
                hint="replace the link with the file itself",
            )
        data = read_bounded(path, MAX_BYTES)
    except FileNotFoundError:
        return AllowedSigners()
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read the allowed signers: {exc.strerror}") from None
    except ReadRefused as exc:
        raise UsageError(f"{shown}: cannot read the allowed signers: {exc}") from None
    return _parse_once(data, shown)


@functools.lru_cache(maxsize=8)
def _parse_once(data: bytes, shown: str) -> AllowedSigners:
    # verify reads the file once per version; the same bytes mean the same lines.
    return parse(data, shown)
