"""What a terminal gets beyond text: colour on the marks, and a progress bar for long work.

Colour follows the conventions people set once for every tool: ``NO_COLOR``
(no-color.org) turns it off, ``FORCE_COLOR`` turns it on even when piped, and
otherwise a terminal that is not ``TERM=dumb`` gets it. When both are set,
``NO_COLOR`` wins: it is the reader's request. The progress bar is drawn by
rich (typer already depends on it) and only on a terminal's stderr, never into
a pipe or a file; rich is imported only once work has lasted long enough to
need a bar, so the hook commands start no slower.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import re
import sys
import threading
import time
from functools import cache
from typing import IO, Any

_MARKS = {"✓": "32", "✗": "31", "⚠": "33"}  # green, red, yellow
# What freezer's own marks and arrows become on a stream whose encoding cannot hold them (ASCII, Latin-1).
_PLAIN = {"✓": "OK", "✗": "FAIL", "⚠": "WARN", "→": "->", "…": "...", "—": "--", "–": "-", "·": "*", "∅": "(none)"}
ESCAPE_UNENCODABLE = "freezer-escape-unencodable"
_LEADING_MARK = re.compile(r"^(\s*)([✓✗⚠])")
# Work shorter than this finishes before a bar would help; drawing one would only flicker.
BAR_AFTER_SECONDS = 0.3
# FREEZER_PROGRESS_AFTER=SECONDS: show the bar that much sooner or later (0: at once, as the tests
# use it, since a fast machine audits a large version in less than the default).
PROGRESS_AFTER_VARIABLE = "FREEZER_PROGRESS_AFTER"
MAX_BAR_AFTER_SECONDS = 86_400.0


def bar_after() -> float:
    """Seconds of work before a bar appears: the default, or the variable's value when it is a number."""
    raw = os.environ.get(PROGRESS_AFTER_VARIABLE, "")
    try:
        value = float(raw) if raw.strip() else BAR_AFTER_SECONDS
    except ValueError:
        value = BAR_AFTER_SECONDS
    # A zero interval would disarm the timer rather than fire it at once, and the timer refuses a
    # value past what time_t holds (inf, 1e300): a day is as good as never. NaN compares false.
    return min(max(value, 0.001), MAX_BAR_AFTER_SECONDS) if value == value else BAR_AFTER_SECONDS


_REDRAW_EVERY = 0.1


def _escape_unencodable(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: each character the encoding cannot hold becomes a ``\\uXXXX`` escape
    (a surrogate pair beyond the BMP), so text stays readable and JSON stays valid JSON."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    escaped = []
    for char in error.object[error.start : error.end]:
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            escaped.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
        else:
            escaped.append(f"\\u{code:04x}")
    return "".join(escaped), error.end


codecs.register_error(ESCAPE_UNENCODABLE, _escape_unencodable)


def never_fail_to_encode(stream: IO[str] | None) -> None:
    """Make ``stream`` take any text: what its encoding (PYTHONIOENCODING=ascii, a C locale) cannot
    hold is written as an escape instead of raising UnicodeEncodeError. Covers every writer: freezer's
    own, typer's help and usage, and the last-resort messages of freezer.cli.main."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is None:
        return
    with contextlib.suppress(ValueError, OSError, LookupError):  # a closed or odd stream stays as it is
        reconfigure(errors=ESCAPE_UNENCODABLE)


@cache
def _plain_table(encoding: str) -> dict[int, str]:
    table = {}
    for char, plain in _PLAIN.items():
        try:
            char.encode(encoding)
        except (UnicodeEncodeError, LookupError):
            table[ord(char)] = plain
    return table


def plain_marks(line: str, stream: IO[str]) -> str:
    """``line`` with freezer's marks and arrows in ASCII when ``stream``'s encoding cannot hold them."""
    encoding = getattr(stream, "encoding", None)
    if not isinstance(encoding, str):
        return line
    table = _plain_table(encoding.lower())
    return line.translate(table) if table else line


def colour_enabled(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and os.environ.get("TERM") != "dumb"
    except (ValueError, AttributeError):
        return False


def colour_marks(line: str, stream: IO[str]) -> str:
    """``line`` with its leading ✓, ✗ or ⚠ coloured when ``stream`` takes colour. Data is escaped
    before this runs, so the only escape sequences in the output are these."""
    match = _LEADING_MARK.match(line)
    if match is None or not colour_enabled(stream):
        return line
    indent, mark = match.groups()
    return f"{indent}\033[{_MARKS[mark]}m{mark}\033[0m{line[match.end() :]}"


class ProgressBar:
    """Counts and a bar on stderr for one piece of long work; silent when stderr is not a terminal.

    Call it with (done, total) as the work advances, and :meth:`close` it at the end. With
    ``tick``, the bar also appears and advances its clock while no count comes in (one version of
    thousands of files is one count, at its end): a timer signal redraws it from the main thread,
    as a thread of its own would make freezer's forked workers unsafe.
    """

    def __init__(self, label: str, *, tick: bool = False) -> None:
        self.label = label
        self._started = time.monotonic()
        self._after = bar_after()
        # A tick the parent's interpreter had not yet run when freezer forked a worker (a bounded
        # METHOD.md render, a hashing pool) would run in the child: only the arming process draws.
        self._pid = os.getpid()
        self._last_draw = 0.0
        self._live: Any = None
        self._task: Any = None
        self._counts: tuple[int, int | None] = (0, None)
        self._drawing = False
        self._previous_handler: Any = None
        self._armed = False
        try:
            self._shown = sys.stderr.isatty()
        except (ValueError, AttributeError):
            self._shown = False
        if tick and self._shown:
            self._arm()

    def __call__(self, done: int, total: int) -> None:
        if not self._shown:
            return
        self._counts = (done, total)
        now = time.monotonic()
        if self._live is None:
            if now - self._started < self._after or done >= total:
                return
            self._drawing = True  # a tick landing while the bar starts must not start a second one
            try:
                self._start(total)
            finally:
                self._drawing = False
        if now - self._last_draw >= _REDRAW_EVERY or done >= total:
            self._draw(now)

    def _draw(self, now: float) -> None:
        self._drawing = True
        try:
            done, total = self._counts
            self._live.update(self._task, completed=done, total=total)
            self._live.refresh()
            self._last_draw = now
        finally:
            self._drawing = False

    def _arm(self) -> None:
        import signal  # start-up time: only a command that may run long (audit) arms a timer

        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return  # no interval timer here (Windows), or not the main thread: counts alone draw the bar
        self._previous_handler = signal.signal(signal.SIGALRM, self._on_tick)
        self._armed = True
        signal.setitimer(signal.ITIMER_REAL, self._after, _REDRAW_EVERY)

    def _on_tick(self, signum: int, frame: object) -> None:
        if self._drawing or not self._armed or os.getpid() != self._pid:
            return  # being drawn by a count right now, or a forked child's copy of the bar
        try:
            if self._live is None:
                done, total = self._counts
                if total is not None and done >= total:
                    return
                self._start(total)
            self._draw(time.monotonic())
        except Exception:  # noqa: BLE001 - a tick lands inside any code: it may never raise there
            self._disarm()

    def _disarm(self) -> None:
        if not self._armed:
            return
        import signal  # as in _arm

        self._armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self._previous_handler)

    def _start(self, total: int | None) -> None:
        # start-up time: rich.progress costs about 80 ms to import; only work long enough for a bar pays it
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # as above

        console = Console(file=sys.stderr, no_color=not colour_enabled(sys.stderr))
        # auto_refresh=False: a refresh thread would make freezer's forked workers unsafe, so they
        # would not start; the bar is redrawn from this thread as results come in.
        self._live = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._live.start()
        self._task = self._live.add_task(self.label, total=total)

    def close(self) -> None:
        self._disarm()
        if self._live is not None:
            self._live.stop()
            self._live = None
