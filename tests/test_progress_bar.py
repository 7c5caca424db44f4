"""The progress bar is drawn from counts alone: no timer signal, no thread, the delay checked per count.

Each case runs a real process whose stderr is a pseudo-terminal, feeds the bar counts, and reads
what reached the terminal.
"""

from __future__ import annotations

import sys

import pytest
from terminal_helpers import on_terminal

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

PROGRAM = """
import signal, sys, threading, time
from freezer.cli.terminal import ProgressBar
bar = ProgressBar("counting")
for done, total in COUNTS:
    bar(done, total)
    time.sleep(0.01)
alarm = signal.getsignal(signal.SIGALRM) is signal.SIG_DFL and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
threads = threading.active_count()
bar.close()
print(f"no-timer={alarm} threads={threads}", file=sys.stderr)
"""


def _on_terminal(counts: list[tuple[int, int]], after: str) -> bytes:
    code, seen = on_terminal(["-c", PROGRAM.replace("COUNTS", repr(counts))], after)
    assert code == 0, seen
    return seen


def test_a_count_after_the_delay_draws_the_bar_with_no_timer_or_thread() -> None:
    seen = _on_terminal([(1, 3), (2, 3), (3, 3)], "0")
    assert b"counting" in seen and b"1/3" in seen, seen
    assert b"no-timer=True threads=1" in seen, seen


def test_counts_before_the_delay_draw_nothing() -> None:
    seen = _on_terminal([(1, 3), (2, 3), (3, 3)], "60")
    assert b"counting" not in seen and b"no-timer=True threads=1" in seen, seen


def test_the_last_count_alone_never_starts_a_bar() -> None:
    seen = _on_terminal([(1, 1)], "0")
    assert b"counting" not in seen, seen
