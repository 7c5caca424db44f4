"""Running untrusted work with a time and memory bound: a forked child under rlimits.

A registry may bring its own METHOD.md template, and every frozen version
carries a copy that audit and check re-render. Jinja2's sandbox keeps a
template away from Python, but not from a loop that never ends or a string
of a gigabyte. Such a render runs in a forked child with an address-space
and CPU limit and a wall-clock deadline; what it returns comes back over a
pipe. The shipped template is trusted and renders in-process.

A suite's own JSON Schema is applied the same way, to many files at once
(:func:`map_bounded`): one child per core works through its share of the
files and sends each result back as it is done; a file that takes longer
than its deadline (a pattern that backtracks catastrophically) or more
memory than allowed is stopped and reported, and the rest go on in a fresh
child. The shipped schemas are trusted and run in-process.
"""

from __future__ import annotations

import mmap
import os
import pickle
import resource
import selectors
import signal
import struct
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

Result = TypeVar("Result")
Item = TypeVar("Item")


class BoundExceeded(Exception):
    """The work ran out of time or memory, or died; the message says which."""


def _limit_self(seconds: float, memory: int) -> None:
    usage = 0
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            usage = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        pass
    resource.setrlimit(resource.RLIMIT_AS, (usage + memory, usage + memory))
    cpu = int(seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def call_bounded(function: Callable[..., Result], *args: Any, seconds: float, memory: int) -> Result:
    """``function(*args)`` in a forked child; its exception is re-raised here, or :class:`BoundExceeded`."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compute, send, and leave without running the parent's cleanup
        os.close(read_end)
        status = 0
        try:
            _limit_self(seconds, memory)
            try:
                payload = pickle.dumps(("ok", function(*args)))
            except MemoryError:
                payload = pickle.dumps(("memory", None))
            except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
                payload = pickle.dumps(("error", exc if _picklable(exc) else RuntimeError(str(exc))))
            view = memoryview(payload)
            while view:
                view = view[os.write(write_end, view) :]
        except BaseException:  # noqa: BLE001 - even a failed send must not return into the parent's code
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + seconds
    timed_out = False
    with selectors.DefaultSelector() as selector:
        selector.register(read_end, selectors.EVENT_READ)
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not selector.select(left):
                timed_out = True
                break
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    os.close(read_end)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if timed_out or (os.WIFSIGNALED(status) and os.WTERMSIG(status) in (signal.SIGXCPU, signal.SIGKILL)):
        raise BoundExceeded(f"did not finish within {seconds:g} s")
    if not chunks:
        raise BoundExceeded("stopped without an answer (out of memory?)")
    kind, value = pickle.loads(b"".join(chunks))
    if kind == "memory":
        raise BoundExceeded(f"needed more than {memory >> 20} MiB of memory")
    if kind == "error":
        raise value
    result: Result = value
    return result


def _picklable(exc: BaseException) -> bool:
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any failure means: send its text instead
        return False
    return True


# -- many items, each under a deadline ---------------------------------------------------------

_NOTE_BYTES = 240
_note_area: mmap.mmap | None = None  # set in a child of map_bounded: what the item is busy with
_noted: str | None = None


def note(text: str) -> None:
    """Say what the work is doing now (the pattern it runs), for the message if it is stopped.
    Costs nothing outside a :func:`map_bounded` child, and little when ``text`` is the same
    object as last time (a pattern run over many values)."""
    global _noted
    if _note_area is None or text is _noted:
        return
    _noted = text
    data = text.encode("utf-8", "replace")[: _NOTE_BYTES - 2]
    _note_area[: 2 + len(data)] = struct.pack("<H", len(data)) + data


def _read_note(area: mmap.mmap) -> str:
    (size,) = struct.unpack("<H", area[:2])
    return area[2 : 2 + size].decode("utf-8", "replace")


@dataclass(frozen=True)
class Stopped:
    """An item whose work was stopped: why, and what it noted it was doing (or "")."""

    reason: str
    doing: str = ""


@dataclass
class _Child:
    """One forked child of :func:`map_bounded`, working through its share of the items, as the parent follows it."""

    pid: int
    fd: int
    area: mmap.mmap
    next: int  # the item it works on now
    end: int
    last: float  # when it last sent something
    buffer: bytearray = field(default_factory=bytearray)
    finished: bool = False  # it said it got through its share
    gave_up: bool = False  # it said it ran out of memory, and left


_FRAME = struct.Struct("<Q")


def map_bounded(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    *,
    seconds: float,
    memory: int,
    workers: int = 1,
    max_stops: int = 3,
    progress: Callable[[int, int], None] | None = None,
) -> list[Result | Stopped]:
    """``function(item)`` for every item, in forked children (one per worker, each over a contiguous
    share), each item within ``seconds`` of the one before and each child within ``memory`` more
    bytes. A stopped item becomes :class:`Stopped` and the rest of its share goes on in a new child;
    after ``max_stops`` stops every item not yet done is :class:`Stopped` ("not checked").
    An exception ``function`` raises is raised here, as if it had run in this process."""
    run = _Run(function, items, seconds, memory, progress)
    share = -(-len(items) // max(1, workers)) if items else 1
    pending = [(start, min(start + share, len(items))) for start in range(0, len(items), share)]
    try:
        while pending or run.children:
            while pending and len(run.children) < max(1, workers):
                first, last = pending.pop(0)
                if run.stops >= max_stops:
                    for index in range(first, last):
                        run.finish(index, Stopped(f"not checked: the work was stopped {run.stops} times already"))
                    continue
                run.spawn(first, last)
            if run.children:
                pending.extend(run.serve())
    finally:
        run.kill_all()
    return run.results


class _Run(Generic[Item, Result]):
    def __init__(
        self,
        function: Callable[[Item], Result],
        items: Sequence[Item],
        seconds: float,
        memory: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        self.function, self.items, self.seconds, self.memory, self.progress = function, items, seconds, memory, progress
        self.results: list[Any] = [None] * len(items)
        self.children: dict[int, _Child] = {}
        self.stops = 0
        self.count = 0

    def finish(self, index: int, value: Any) -> None:
        self.results[index] = value
        self.count += 1
        if self.progress is not None:
            self.progress(self.count, len(self.items))

    def spawn(self, start: int, end: int) -> None:
        child = _spawn(self.function, self.items, start, end, self.memory)
        self.children[child.fd] = child

    def serve(self) -> list[tuple[int, int]]:
        """Read from the children until one ends or is stopped; return what is left of its share."""
        with selectors.DefaultSelector() as selector:
            for fd in self.children:
                selector.register(fd, selectors.EVENT_READ)
            while True:
                now = time.monotonic()
                late = next((c for c in self.children.values() if now - c.last >= self.seconds), None)
                if late is not None:
                    why = Stopped(f"did not finish within {self.seconds:g} s", _read_note(late.area))
                    return self._retire(late, why)
                wait = min(c.last + self.seconds for c in self.children.values()) - now
                for key, _ in selector.select(max(0.0, wait)):
                    child = self.children[key.fd]
                    chunk = os.read(child.fd, 1 << 20)
                    if not chunk:
                        return self._retire(child, None)
                    child.last = time.monotonic()
                    child.buffer += chunk
                    self._frames(child)

    def _frames(self, child: _Child) -> None:
        while len(child.buffer) >= _FRAME.size:
            (size,) = _FRAME.unpack_from(child.buffer)
            if len(child.buffer) < _FRAME.size + size:
                return
            kind, value = pickle.loads(bytes(child.buffer[_FRAME.size : _FRAME.size + size]))
            del child.buffer[: _FRAME.size + size]
            if kind == "ok":
                self.finish(child.next, value)
                child.next += 1
            elif kind == "memory":
                self.stops += 1
                child.gave_up = True
                self.finish(child.next, Stopped(f"needed more than {self.memory >> 20} MiB of memory"))
                child.next += 1
            elif kind == "end":
                child.finished = True
            else:
                raise value

    def _retire(self, child: _Child, stopped: Stopped | None) -> list[tuple[int, int]]:
        """End ``child``: stopped by us, or gone on its own (done, out of memory, or died)."""
        if stopped is not None:
            os.kill(child.pid, signal.SIGKILL)
        elif not child.finished and not child.gave_up and child.next < child.end:
            stopped = Stopped("stopped without an answer (out of memory?)", _read_note(child.area))
        self._reap(child)
        if stopped is not None:
            self.stops += 1
            self.finish(child.next, stopped)
            child.next += 1
        return [(child.next, child.end)] if child.next < child.end else []

    def _reap(self, child: _Child) -> None:
        self.children.pop(child.fd, None)
        os.close(child.fd)
        os.waitpid(child.pid, 0)
        child.area.close()

    def kill_all(self) -> None:
        for child in list(self.children.values()):
            os.kill(child.pid, signal.SIGKILL)
            self._reap(child)


def _spawn(function: Callable[[Any], Any], items: Sequence[Any], start: int, end: int, memory: int) -> _Child:
    area = mmap.mmap(-1, _NOTE_BYTES)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: work through its share, send each result, leave without the parent's cleanup
        os.close(read_end)
        status = 0
        try:
            _run_share(function, items, start, end, memory, area, write_end)
        except BaseException:  # noqa: BLE001 - even a failed send must not return into the parent's code
            status = 1
        finally:
            os._exit(status)
    os.close(write_end)
    return _Child(pid, read_end, area, start, end, time.monotonic())


def _run_share(
    function: Callable[[Any], Any], items: Sequence[Any], start: int, end: int, memory: int, area: mmap.mmap, fd: int
) -> None:
    global _note_area, _noted
    _note_area = area
    _limit_memory(memory)
    for index in range(start, end):
        _noted = None
        area[:2] = b"\0\0"
        try:
            frame: tuple[str, Any] = ("ok", function(items[index]))
        except MemoryError:
            _send(fd, ("memory", memory))
            return
        except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
            _send(fd, ("error", exc if _picklable(exc) else RuntimeError(str(exc))))
            return
        _send(fd, frame)
    _send(fd, ("end", None))


def _send(fd: int, frame: tuple[str, Any]) -> None:
    payload = pickle.dumps(frame)
    view = memoryview(_FRAME.pack(len(payload)) + payload)
    while view:
        view = view[os.write(fd, view) :]


def _limit_memory(memory: int) -> None:
    usage = 0
    try:
        with open("/proc/self/statm", encoding="ascii") as handle:
            usage = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        pass
    resource.setrlimit(resource.RLIMIT_AS, (usage + memory, usage + memory))
