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
import sys
import time
from functools import cache
from typing import IO, Any

_MARKS = {"✓": "32", "✗": "31", "⚠": "33"}  # green, red, yellow
# What freezer's own marks and arrows become on a stream whose encoding cannot hold them (ASCII, Latin-1).
_PLAIN = {"✓": "OK", "✗": "FAIL", "⚠": "WARN", "→": "->", "…": "...", "—": "--", "–": "-", "·": "*", "∅": "(none)"}
ESCAPE_UNENCODABLE = "freezer-escape-unencodable"
# Work shorter than this finishes before a bar would help; drawing one would only flicker.
BAR_AFTER_SECONDS = 0.3
# FREEZER_PROGRESS_AFTER=SECONDS: show the bar that much sooner or later (0: at once, as the tests
# use it, since a fast machine audits a large version in less than the default).
PROGRESS_AFTER_VARIABLE = "FREEZER_PROGRESS_AFTER"


def bar_after() -> float:
    """Seconds of work before a bar appears: the default, or the variable's value when it is a number."""
    raw = os.environ.get(PROGRESS_AFTER_VARIABLE, "")
    try:
        value = float(raw) if raw.strip() else BAR_AFTER_SECONDS
    except ValueError:
        value = BAR_AFTER_SECONDS
    # NaN compares false with every elapsed time, which would draw at once: it is nonsense, so the default.
    return max(value, 0.0) if value == value else BAR_AFTER_SECONDS


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
    body = line.lstrip()  # what str.lstrip strips is what a pattern's \s matches
    mark = body[:1]
    if mark not in _MARKS or not colour_enabled(stream):
        return line
    indent = line[: len(line) - len(body)]
    return f"{indent}\033[{_MARKS[mark]}m{mark}\033[0m{body[1:]}"


class ProgressBar:
    """Counts and a bar on stderr for one piece of long work; silent when stderr is not a terminal.

    Call it with (done, total) as the work advances, and :meth:`close` it at the end. Each count
    is the only moment it draws: the bar appears at the first count after :func:`bar_after`
    seconds (unless that count is the last), then redraws at most every :data:`_REDRAW_EVERY`
    seconds and at the last count. No timer and no thread: freezer forks workers, and a signal
    handler or a thread in the parent is what a forked child must not inherit mid-draw.
    """

    def __init__(self, label: str) -> None:
        self.label = label
        self._started = time.monotonic()
        self._after = bar_after()
        self._last_draw = 0.0
        self._live: Any = None
        self._task: Any = None
        try:
            self._shown = sys.stderr.isatty()
        except (ValueError, AttributeError):
            self._shown = False

    def __call__(self, done: int, total: int) -> None:
        if not self._shown:
            return
        now = time.monotonic()
        if self._live is None:
            if now - self._started < self._after or done >= total:
                return
            self._start(total)
        if now - self._last_draw >= _REDRAW_EVERY or done >= total:
            self._live.update(self._task, completed=done, total=total)
            self._live.refresh()
            self._last_draw = now

    def _start(self, total: int | None) -> None:
        # start-up time: rich.progress costs about 80 ms to import; only work long enough for a bar pays it
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # as above

        console = Console(file=sys.stderr, no_color=not colour_enabled(sys.stderr))
        # auto_refresh=False: a refresh thread would make freezer's forked workers unsafe; the bar is
        # redrawn from this thread as counts come in.
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
        if self._live is not None:
            self._live.stop()
            self._live = None


class BarPerPart:
    """A :class:`ProgressBar` for each part of work done in parts (the suites of an audit), labelled
    ``labels[part]``: called with (part, done, total) as :data:`freezer.domain.progress.PartProgress`
    says, it opens a part's bar when the work reaches that part and closes the one before."""

    def __init__(self, labels: list[str]) -> None:
        self._labels = labels
        self._part = -1
        self._bar: ProgressBar | None = None

    def __call__(self, part: int, done: int, total: int) -> None:
        if self._bar is None or part != self._part:
            self.close()
            self._part, self._bar = part, ProgressBar(self._labels[part])
        if done:  # (part, 0, total) only says the part began: its bar's clock starts, nothing is drawn
            self._bar(done, total)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None
