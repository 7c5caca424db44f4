"""The one ``git cat-file --batch`` client: every stored object freezer reads comes through it.

The code repository's blobs (:class:`freezer.git.gitrepo.CodeRepo`), the trees it
writes out for ripgrep (:mod:`freezer.git.trees`) and the registry's base commit
(:class:`freezer.git.registrygit.BaseTree`) are all read here, under the git
policy (:func:`freezer.git.gitpolicy.cat_file_batch`). Two ways of asking:

* :meth:`CatFile.get` (and :meth:`CatFile.find`, which also gives the id git
  found, e.g. the commit a ``NAME^{commit}`` peels to), one object at a time,
  in one long-lived process: a request, then its answer;
* :meth:`CatFile.stream`, many objects whose names are known up front, in a
  process of its own that a thread feeds while the answers are read: one round
  trip per object would cost more than the objects themselves.

An answer git gives that is not an object (``<name> missing``, ``ambiguous``, a
process that died) is never taken for an empty one: :meth:`get` returns None
only when git says the very name asked for is missing, and raises
:class:`Unreadable` for anything else.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

from freezer.git.gitpolicy import cat_file_batch


class Unreadable(Exception):
    """git gave no object for ``name``; the caller says why in its own words."""

    def __init__(self, name: bytes) -> None:
        super().__init__(name.decode("utf-8", "replace"))
        self.name = name


def _answer(proc: subprocess.Popen[bytes], name: bytes, line: bytes) -> tuple[str, str, bytes]:
    """The object whose header ``line`` git wrote: its id, type and bytes (and closing newline), read
    from ``proc``."""
    assert proc.stdout is not None
    header = line.split()
    if len(header) != 3 or not header[2].isdigit():
        raise Unreadable(name)
    data = proc.stdout.read(int(header[2]))
    proc.stdout.read(1)  # the newline after the content
    return header[0].decode("ascii", "replace"), header[1].decode("ascii", "replace"), data


class CatFile:
    """One ``git cat-file --batch`` process under the policy, started on first use."""

    def __init__(self, cwd: Path) -> None:
        self._cwd = cwd
        self._proc: subprocess.Popen[bytes] | None = None

    def get(self, name: bytes) -> tuple[str, bytes] | None:
        """(type, bytes) of the object ``name`` names (an object id, or ``REV:PATH``); None when git
        answers that this very name is missing. Raises :class:`Unreadable` for any other answer."""
        found = self.find(name)
        return None if found is None else found[1:]

    def find(self, name: bytes) -> tuple[str, str, bytes] | None:
        """(object id, type, bytes) of the object ``name`` names, as :meth:`get`."""
        if b"\n" in name:
            raise Unreadable(name)
        if self._proc is None:
            self._proc = cat_file_batch(self._cwd)
        proc = self._proc
        assert proc.stdin is not None and proc.stdout is not None
        try:
            proc.stdin.write(name + b"\n")
            proc.stdin.flush()
            line = proc.stdout.readline()
        except OSError:
            raise Unreadable(name) from None
        if line == name + b" missing\n":
            return None
        return _answer(proc, name, line)

    def stream(self, names: Sequence[str]) -> Iterator[bytes]:
        """The bytes of each object in ``names``, in order, through a process of its own fed from a
        thread. Raises :class:`Unreadable` at the first object git does not give."""
        proc = cat_file_batch(self._cwd)
        assert proc.stdin is not None and proc.stdout is not None
        requests = b"".join(name.encode("utf-8", "surrogateescape") + b"\n" for name in names)

        def feed() -> None:
            assert proc.stdin is not None
            try:
                proc.stdin.write(requests)
            except BrokenPipeError:
                pass
            finally:
                with contextlib.suppress(OSError):
                    proc.stdin.close()

        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        try:
            for name in names:
                yield _answer(proc, name.encode("utf-8", "surrogateescape"), proc.stdout.readline())[2]
        finally:
            proc.stdout.close()
            proc.kill()
            proc.wait()
            feeder.join()

    def close(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        assert proc.stdin is not None and proc.stdout is not None
        with contextlib.suppress(OSError):  # git has already gone; get() said why
            proc.stdin.close()
        proc.wait()
        proc.stdout.close()

    def __enter__(self) -> CatFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
