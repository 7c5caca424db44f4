"""How freezer asks ``ssh-keygen`` who signed: the same two calls git makes (``gpg.ssh.program``).

Who may sign what is decided by ``ssh-keygen -Y find-principals`` and ``-Y
verify`` over the registry's ``allowed_signers``, the commands a consumer runs
(docs/signing.md, "Who signed what"), so freezer and every OpenSSH release agree by
construction rather than by a re-implementation of the file's grammar. Each
call runs under one policy, as freezer's git calls do
(:mod:`freezer.git.gitpolicy`): the executable found once by absolute path in
the absolute entries of ``PATH``; an environment of ``PATH``, ``LC_ALL=C`` and
the caller's ``TZ`` only (a time without ``Z`` in the file is local time, for
ssh-keygen and for whoever runs it by hand); the file and the signature copied
into a private folder (the registry's file was read without following a link,
within a bound); the message on stdin; a timeout; and only the first
:data:`MAX_MESSAGE_CHARS` of what it says kept.

Measured (OpenSSH 9.2, a loaded two-core machine): 6-9 ms of CPU and 20-35 ms of
wall per call, against about 0.1 ms for the emulation this replaced.
"""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from freezer.domain.errors import UsageError
from freezer.runtime.programs import find_program, trusted_path
from freezer.trust import sshsig

ALLOWED_SIGNERS = "allowed_signers"
SIGNATURE = "signature"
SECONDS = 30.0
MAX_MESSAGE_CHARS = 2000
_NO_SSH_KEYGEN = (
    "ssh-keygen was not found in PATH; freezer checks who signed a version, a status event or the "
    "checkpoint with ssh-keygen -Y verify, as git does"
)


def executable() -> str:
    """The absolute path of the ssh-keygen every call runs, resolved once per ``PATH``."""
    found = find_program("ssh-keygen")
    if found is None:
        raise UsageError(_NO_SSH_KEYGEN, hint="install OpenSSH's client (apt-get install openssh-client)")
    return found


def _env() -> dict[str, str]:
    env = {"PATH": trusted_path(), "LC_ALL": "C"}
    if "TZ" in os.environ:
        env["TZ"] = os.environ["TZ"]
    return env


def _said(stream: bytes) -> str:
    # ssh-keygen ends its log lines with CR LF.
    text = "\n".join(line.strip() for line in stream.decode("utf-8", errors="replace").splitlines() if line.strip())
    return text if len(text) <= MAX_MESSAGE_CHARS else text[:MAX_MESSAGE_CHARS] + "…"


def _at(when: float | None) -> list[str]:
    if when is None:
        return []
    return ["-O", "verify-time=" + time.strftime("%Y%m%d%H%M%SZ", time.gmtime(int(when)))]


def _run(folder: Path, args: list[str], message: bytes = b"") -> tuple[int, str, str]:
    try:
        done = subprocess.run(
            [executable(), *args],
            cwd=folder,
            env=_env(),
            input=message,
            capture_output=True,
            timeout=SECONDS,
            check=False,
        )
    except FileNotFoundError:
        raise UsageError(_NO_SSH_KEYGEN, hint="install OpenSSH's client (apt-get install openssh-client)") from None
    except subprocess.TimeoutExpired:
        return 255, "", f"ssh-keygen gave no answer in {SECONDS:.0f} s"
    return done.returncode, _said(done.stdout), _said(done.stderr)


@dataclass(frozen=True)
class Verdict:
    """What ssh-keygen says of one signature: the principal it verifies for, or why none."""

    principal: str | None
    why: str = ""  # which call refused it, in ssh-keygen's own words


def verdict(
    allowed: bytes, public: bytes, signature: bytes, message: bytes, namespace: str, when: float | None
) -> Verdict:
    """git's check: ``find-principals`` for the key, then ``verify -I`` for each principal it names
    until one verifies (a negated pattern is never a principal). ``signature`` is the SSHSIG blob
    and ``public`` the key it names; find-principals reads only the key, so it runs once per key."""
    asked = (allowed, public, when)
    found = _PRINCIPALS.get(asked)
    if found is None:
        found = _PRINCIPALS[asked] = _principals(allowed, signature, when)
    if isinstance(found, str):
        return Verdict(None, found)
    return _verified(allowed, found, signature, message, namespace, when)


# find-principals reads only the key, so its answer is kept by key, whichever signature asked first:
# a maintainer's key signs most events of a status log, and each call costs a process.
_PRINCIPALS: dict[tuple[bytes, bytes, float | None], tuple[str, ...] | str] = {}


def _principals(allowed: bytes, signature: bytes, when: float | None) -> tuple[str, ...] | str:
    with _files(allowed, signature) as folder:
        code, out, err = _run(folder, ["-Y", "find-principals", "-f", ALLOWED_SIGNERS, "-s", SIGNATURE, *_at(when)])
    principals = tuple(line for line in out.splitlines() if line and not line.startswith("!"))
    if code != 0 or not principals:
        said = "; ".join(err.splitlines()) or "No principal matched."
        return f"ssh-keygen -Y find-principals finds no line that allows the key: {said}"
    return principals


@functools.lru_cache(maxsize=1024)
def _verified(
    allowed: bytes, principals: tuple[str, ...], signature: bytes, message: bytes, namespace: str, when: float | None
) -> Verdict:
    # Readers of one command ask about the same event or envelope again (list, then its problems).
    refusals: list[str] = []
    with _files(allowed, signature) as folder:
        for principal in principals:
            args = ["-Y", "verify", "-f", ALLOWED_SIGNERS, "-s", SIGNATURE, "-I", principal, "-n", namespace]
            code, out, err = _run(folder, [*args, *_at(when)], message)
            if code == 0:
                return Verdict(principal)
            refusals.extend([*err.splitlines(), *out.splitlines()])
    said = "; ".join(dict.fromkeys(refusals))
    return Verdict(None, f"ssh-keygen -Y verify -n {namespace} -I {', '.join(principals)} refuses it: {said}")


@contextlib.contextmanager
def _files(allowed: bytes, signature: bytes) -> Iterator[Path]:
    """A private folder holding the allowed signers and the signature, as ssh-keygen reads them."""
    with tempfile.TemporaryDirectory(prefix="freezer-ssh-") as name:
        folder = Path(name)
        (folder / ALLOWED_SIGNERS).write_bytes(allowed)
        (folder / SIGNATURE).write_bytes(sshsig.armor(signature).encode())
        yield folder


def skipped_lines(allowed: bytes, stranger: bytes) -> list[str]:
    """What ssh-keygen says of each line it cannot read: it reads every line while it looks for
    ``stranger``, a signature by a key that no line names."""
    with _files(allowed, stranger) as folder:
        _, _, err = _run(folder, ["-Y", "find-principals", "-f", ALLOWED_SIGNERS, "-s", SIGNATURE])
    prefix = ALLOWED_SIGNERS + ":"
    return [line for line in err.splitlines() if line.startswith(prefix)]
