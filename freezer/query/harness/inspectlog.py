"""Inspect AI's eval logs (``.eval``, a zip, or ``.json``), read with Inspect's own reader.

Inspect's log format is its own and moves with its releases, so freezer does not parse it: the
optional extra ``freezer-bench[inspect]`` installs ``inspect_ai``, and :func:`inspect_ai.log.
read_eval_log` (the header) and :func:`~inspect_ai.log.read_eval_log_sample_summaries` (each
sample's id, epoch and scores, without the transcripts) read it.

Each sample is one fixture: its ``id`` goes through the suite's identity rule (a records suite's
task id field, a folders suite's folder name). Its score is the one scorer's value (``--metric``
names one of several), turned into a number as Inspect's ``value_to_float`` does by default (C 1,
P 0.5, I and N 0, yes/true 1, no/false 0, a number), except that a value it cannot turn into one is
refused here where Inspect would warn and count 0; several epochs of one sample are averaged, as
Inspect's default reducer does.

Checks this format allows: each sample id is a landed fixture; the log finished (status success)
and every sample was scored; ``eval.task_version``, the version of the whole Inspect task, names
the frozen version (its number, ``v<number>`` or its name) unless it is Inspect's default 0, which
records no version and is reported as not checked. Inspect records no hash of a sample's content.

A ``.json`` log is first read strictly (:mod:`.jsondoc`: no NaN, no key given twice), because
Inspect's reader takes a key given twice at its last value and NaN as a number: a log that says two
things at once is refused at ``file:line:col`` before Inspect reads it. So are the JSON members of a
``.eval`` that the two readers above parse (:func:`.archive.scored_members`: the header and the
summaries, or their journal in a log that did not finish), each at ``log.eval::member:line:col``; a
fault in a sample's summary is shown in the sample's own member when that member holds it too, as
Inspect's writer writes both. The sample members themselves (transcripts) are not read, by Inspect's
readers above or here. Inspect's reader still interprets the log. Every other refusal says where: in
a ``.json`` log at the value's ``file:line:col``; in a ``.eval`` at the archive member that holds the
value, ``log.eval::header.json`` (status, task version) or ``log.eval::samples/<id>_epoch_<n>.json``
(a sample), with the JSON path inside it.
"""

from __future__ import annotations

import json
import tempfile
import zipfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from freezer.domain.errors import UsageError
from freezer.domain.escape import clipped, quoted, quoted_names, visible
from freezer.domain.findings import JsonPath
from freezer.domain.problems import Problem, display_path
from freezer.parse import strictjson
from freezer.query.harness import archive, jsondoc
from freezer.query.harness.target import Scores, run_name, score_value
from freezer.runtime.limits import MAX_INSPECT_MEMBER_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

HARNESS = "inspect"
EXTRA = "pip install 'freezer-bench[inspect]'"


_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0, "yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def _number(value: object) -> float | None:
    if isinstance(value, str):
        if value in _LETTERS or value.lower() in _LETTERS:
            return _LETTERS.get(value, _LETTERS.get(value.lower()))
        try:
            return score_value(float(value))
        except ValueError:
            return None
    return score_value(value)


def _reader() -> Any:
    try:
        # Local: inspect_ai is an optional extra (300 MB with its dependencies), imported only here.
        from inspect_ai import log
    except ImportError:
        raise UsageError(
            "--from inspect reads Inspect's logs with Inspect's own reader, and inspect_ai is not installed",
            hint=EXTRA,
        ) from None
    return log


class _JsonPlaces:
    """Where a value of a ``.json`` log is: its line and column, from the strict document."""

    def __init__(self, doc: jsondoc.JsonDocument) -> None:
        listed = doc.value.get("samples") if isinstance(doc.value, dict) else None
        # Inspect's summaries are its samples in the file's order; found by (id, epoch) all the same,
        # so that the place never rests on that order.
        self.index: dict[tuple[str, object], int] = {}
        for index, sample in enumerate(listed if isinstance(listed, list) else []):
            if isinstance(sample, dict):
                self.index.setdefault((str(sample.get("id")), sample.get("epoch")), index)
        # Only the text locates a value: the parsed log (several times the text's size) is let go
        # before Inspect's reader parses the log again.
        self.doc = replace(doc, value=None)

    def header(self, scores: Scores, path: JsonPath, message: str) -> None:
        scores.refuse_at(self.doc, path, message)

    def samples(self, scores: Scores, message: str) -> None:
        scores.refuse_at(self.doc, ("samples",), message)

    def sample(self, scores: Scores, name: str, epoch: int, path: JsonPath, message: str) -> None:
        index = self.index.get((name, epoch))
        scores.refuse_at(self.doc, ("samples",) if index is None else ("samples", index, *path), message)


class _ArchivePlaces:
    """Where a value of a ``.eval`` log is: the zip member that holds it, as Inspect's writer names
    them (``header.json``; ``samples/<id>_epoch_<n>.json``), the member's JSON path beside it."""

    def __init__(self, shown: str, members: frozenset[str]) -> None:
        self.shown, self.members = shown, members

    def _refuse(self, scores: Scores, member: str | None, path: JsonPath, message: str) -> None:
        where = self.shown if member is None else _member_shown(self.shown, member)
        scores.refuse(Problem(where, None, None, path, message, jsondoc.LAYER))

    def header(self, scores: Scores, path: JsonPath, message: str) -> None:
        # A log still running has no header.json yet: Inspect reads its start from the journal.
        member = archive.header_member(self.members)
        self._refuse(scores, member, path if member else (), message)

    def samples(self, scores: Scores, message: str) -> None:
        self._refuse(scores, None, (), message)  # no member holds samples that are not there

    def sample(self, scores: Scores, name: str, epoch: int, path: JsonPath, message: str) -> None:
        member = f"samples/{name}_epoch_{epoch}.json"
        if member not in self.members:  # a summary without its sample: the summaries hold it
            member, path = archive.SUMMARIES, ()
        self._refuse(scores, member, path, message)


def _member_shown(shown: str, member: str) -> str:
    return f"{shown}::{visible(clipped(member, 120))}"


def _strict_members(path: Path) -> archive.ReadJson:
    """How each scored member of the ``.eval`` at ``path`` is read strictly: :class:`jsondoc.
    DocumentRefused` at its place in the member, or in its sample's member (:func:`_in_sample`)."""
    shown = display_path(path)

    def read_json(copy: Path, member: str, raw: bytes) -> None:
        try:
            jsondoc.check(_member_shown(shown, member), raw)
        except jsondoc.DocumentRefused as refused:
            # A header's fault has no sample: its path starts with a key, never an index.
            raise jsondoc.DocumentRefused(_in_sample(shown, copy, raw, refused.problem) or refused.problem) from None

    return read_json


def _in_sample(shown: str, copy: Path, summaries: bytes, problem: Problem) -> Problem | None:
    """The fault of a summary (``$[i].scores...``) as it stands in its sample's own member, where the
    user's scorer wrote it and Inspect's writer copied it from; None when that member does not hold
    the same fault at the same path. Only a refused log pays for this second read."""
    if len(problem.path) < 2 or not isinstance(problem.path[0], int):
        return None
    text = summaries.decode("utf-8", "replace")
    summary = strictjson.member_offsets(text, strictjson.skip_space(text, 0)).get(problem.path[0])
    if summary is None:
        return None
    fields = strictjson.member_offsets(text, summary)
    try:
        key = [json.JSONDecoder().raw_decode(text, fields[name])[0] for name in ("id", "epoch")]
    except (KeyError, ValueError, RecursionError):
        return None
    member = f"samples/{key[0]}_epoch_{key[1]}.json"
    raw = archive.member_bytes(copy, member)
    if raw is None:
        return None
    try:
        jsondoc.check(_member_shown(shown, member), raw)
    except jsondoc.DocumentRefused as refused:
        rest = problem.path[1:]
        return refused.problem if refused.problem.path[: len(rest)] == rest else None
    return None


def _places(path: Path, copy: Path) -> _JsonPlaces | _ArchivePlaces | Problem:
    """How to say where a value of the log is; for a ``.json`` log read strictly first, the problem
    that keeps it from Inspect's reader."""
    if path.suffix == ".json":
        try:
            return _JsonPlaces(jsondoc.parse(path, read_bounded(copy, MAX_INSPECT_MEMBER_BYTES)))
        except ReadRefused as exc:
            return jsondoc.file_problem(path, f"{exc}; not handed to Inspect's reader")
        except jsondoc.DocumentRefused as refused:
            return refused.problem
    try:
        with zipfile.ZipFile(copy) as log:
            members = frozenset(log.namelist())
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError, OSError):
        members = frozenset()  # no zip: Inspect's reader says so, before any place is asked for
    return _ArchivePlaces(display_path(path), members)


def _refused(path: Path, copy: Path, exc: Exception) -> Problem:
    """Why Inspect could not read the log (its copy), in its words, the copy's name made the user's."""
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0].replace(str(copy), display_path(path))
    return jsondoc.file_problem(path, f"Inspect cannot read it as an eval log: {clipped(first, 160)}")


def read(path: Path, scores: Scores, *, metric: str | None, run: str | None, below: Path | None = None) -> None:
    """Add the samples' scores of one eval log to ``scores``, or its problems. Inspect reads a
    private copy, made and checked by :mod:`.archive` (and read strictly first: a ``.json`` log
    whole, a ``.eval`` log's scored members), never the path itself."""
    log = _reader()
    with tempfile.TemporaryDirectory(prefix="freezer-inspect-") as folder:
        try:
            copy = archive.private_copy(path, Path(folder), _strict_members(path))
        except (ReadRefused, archive.ArchiveRefused) as exc:
            scores.refuse(jsondoc.file_problem(path, f"{exc}; not handed to Inspect's reader"))
            return
        except jsondoc.DocumentRefused as refused:
            scores.refuse(refused.problem)
            return
        places = _places(path, copy)
        if isinstance(places, Problem):
            scores.refuse(places)
            return
        try:
            header = log.read_eval_log(str(copy), header_only=True)
            samples = log.read_eval_log_sample_summaries(str(copy))
        except Exception as exc:  # noqa: BLE001 - a third-party reader's failures are the user's file, reported
            scores.refuse(_refused(path, copy, exc))
            return
    target = scores.target
    shown = display_path(path)

    if header.status != "success":
        places.header(
            scores, ("status",), f"the eval ended {header.status!r}, not 'success': finish it (inspect eval-retry)"
        )
        return
    version = header.eval.task_version
    if version in (0, "0"):
        scores.unchecked.add(f"{shown}: eval.task_version is Inspect's default 0 (no version recorded)")
    elif str(version) not in target.labels():
        places.header(
            scores,
            ("eval", "task_version"),
            f"{header.eval.task} ran at task version {version!r}; the frozen version is {target.name} "
            f"(version {target.number}): set the task's version to {target.number}",
        )
        return
    this_run = run or run_name(header.eval.model, header.eval.run_id)
    scores.recorded(header.eval.model, (header.eval.packages or {}).get("inspect_ai"))
    if not samples:
        places.samples(scores, "the log holds no samples (was it written with --no-log-samples?)")
    for sample in samples:
        name = str(sample.id)
        subject = f"sample {quoted(name)} (epoch {sample.epoch})"
        task = target.task_id(name)
        if task is None:
            places.sample(scores, name, sample.epoch, ("id",), target.unknown(name))
            continue
        if sample.error is not None or not sample.scores:
            message = f"{subject} has no score (the sample errored or was not scored): rerun it"
            places.sample(scores, name, sample.epoch, ("scores",), message)
            continue
        if metric is None and len(sample.scores) > 1:
            several = quoted_names(sample.scores)
            message = f"{subject} has several scorers ({several}): name the one that scores it with --metric"
            places.sample(scores, name, sample.epoch, ("scores",), message)
            continue
        chosen = metric if metric is not None else next(iter(sample.scores))
        got = sample.scores.get(chosen)
        if got is None:
            message = f"{subject} has no scorer {quoted(chosen)}; its scorers: {quoted_names(sample.scores)}"
            places.sample(scores, name, sample.epoch, ("scores",), message)
            continue
        value_at = ("scores", chosen, "value")
        if isinstance(got.value, (dict, list)):
            kind = type(got.value).__name__
            message = f"{subject}: scorer {chosen}'s value is a {kind}: freezer takes one number per fixture"
            places.sample(scores, name, sample.epoch, value_at, message)
            continue
        score = _number(got.value)
        if score is None:
            message = f"{subject}: scorer {chosen}'s value {quoted(got.value)} is no score from 0 to 1"
            places.sample(scores, name, sample.epoch, value_at, message)
            continue
        scores.add(this_run, task, score)
