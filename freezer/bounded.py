"""Running untrusted work with a time and memory bound: a forked child under rlimits.

A registry may bring its own METHOD.md template, and every frozen version
carries a copy that audit and check re-render. Jinja2's sandbox keeps a
template away from Python, but not from a loop that never ends or a string
of a gigabyte. Such a render runs in a forked child with an address-space
and CPU limit and a wall-clock deadline; what it returns comes back over a
pipe. The shipped template is trusted and renders in-process.
"""

from __future__ import annotations

import os
import pickle
import resource
import selectors
import signal
import time
from collections.abc import Callable
from typing import Any, TypeVar

Result = TypeVar("Result")


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
