"""The registry's ``allowed_signers`` file: read safely here, judged by ``ssh-keygen``.

A consumer checks a version with ``ssh-keygen -Y verify -f allowed_signers -I
PRINCIPAL -n freezer`` (docs/signing.md, "Who signed what"), so freezer asks that same
program (:mod:`freezer.trust.sshkeygen`) rather than re-implementing its
reading of the file: principals, options, key types, times and the corners in
which OpenSSH releases differ are all ssh-keygen's. What stays here is what
ssh-keygen cannot do for freezer: read the file only as a regular file inside
the registry, never through a link, and within :data:`MAX_BYTES`; and refuse a
signature whose key appears nowhere in the file before anything runs, so a flood
of signatures by keys nobody allowed costs nothing (an Ed25519 key blob is 51
bytes, so its base64 has one spelling and no padding).
"""

from __future__ import annotations

import base64
import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from freezer.domain.errors import UsageError
from freezer.domain.problems import Problem, display_path
from freezer.runtime.reading import ReadRefused, read_bounded
from freezer.trust import sshkeygen, sshsig

ALLOWED_SIGNERS = sshkeygen.ALLOWED_SIGNERS
# Every namespace freezer signs in (trust.signing, trust.lifecycle, trust.checkpoint name them; a test
# holds the three equal): a maintainer's line lists them all, or each command it leaves out refuses.
FREEZER_NAMESPACES = ("freezer", "freezer-status", "freezer-checkpoint")
ALL_NAMESPACES = 'namespaces="' + ",".join(FREEZER_NAMESPACES) + '"'
MAX_BYTES = 1 << 20
NOT_LISTED = (
    f"the key is not in {ALLOWED_SIGNERS}: add a line for it at the registry root "
    f"(you@example.org {ALL_NAMESPACES} ssh-ed25519 AAAA…)"
)


@dataclass(frozen=True)
class AllowedSigners:
    """The file's bytes (empty without a file), and where it is shown."""

    data: bytes = b""
    shown: str = ALLOWED_SIGNERS

    @property
    def empty(self) -> bool:
        """No line but blanks and comments: nobody is allowed."""
        return all(not line.strip() or line.lstrip().startswith(b"#") for line in self.data.splitlines())

    def lists(self, public: bytes) -> bool:
        """Whether the key ``public`` is written on some line (ssh-keygen may still refuse it)."""
        return base64.b64encode(public) in self.data

    def judge(self, public: bytes, signature: bytes, message: bytes, namespace: str, when: float | None) -> str:
        """The principal ssh-keygen verifies the signature for; :class:`NotAllowed` with why not."""
        if not self.lists(public):
            raise NotAllowed(NOT_LISTED)
        found = sshkeygen.verdict(self.data, public, signature, message, namespace, when)
        if found.principal is not None:
            return found.principal
        raise NotAllowed(f"{found.why} ({ALL_NAMESPACES} on a line allows all that freezer signs)")

    @functools.cached_property
    def problems(self) -> tuple[Problem, ...]:
        """The lines ssh-keygen skips, in its own words, each at its line."""
        if self.empty:
            return ()
        found = []
        for said in sshkeygen.skipped_lines(self.data, _stranger()):
            _, number, message = said.split(":", 2)
            line = int(number) if number.isdigit() else None
            found.append(Problem(self.shown, line, None, (), message.strip(), "signers"))
        return tuple(found)


class NotAllowed(Exception):
    """ssh-keygen does not verify a signature against the allowed signers; why, to show."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@functools.cache
def _stranger() -> bytes:
    """A signature by a key made here and never written anywhere: no line of any file names it."""
    # cryptography costs ~20 ms at start-up: only a command that lists skipped lines pays it.
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return sshsig.sign(b"", Ed25519PrivateKey.generate(), "freezer-lint")


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
        return AllowedSigners(b"", shown)
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read the allowed signers: {exc.strerror}") from None
    except ReadRefused as exc:
        raise UsageError(f"{shown}: cannot read the allowed signers: {exc}") from None
    return AllowedSigners(data, shown)
