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
"""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from freezer.domain.errors import UsageError
from freezer.domain.escape import clipped, quoted, quoted_names
from freezer.domain.problems import Problem, display_path
from freezer.query.harness import archive, jsondoc
from freezer.query.harness.target import Scores, run_name, score_value
from freezer.runtime.reading import ReadRefused

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


def _refused(path: Path, copy: Path, exc: Exception) -> Problem:
    """Why Inspect could not read the log (its copy); for a .json log, where its JSON breaks."""
    if path.suffix == ".json":
        try:
            jsondoc.load(copy)
        except jsondoc.DocumentRefused as refused:
            return replace(refused.problem, file=display_path(path))
    first = (str(exc).strip().splitlines() or [type(exc).__name__])[0].replace(str(copy), display_path(path))
    return jsondoc.file_problem(path, f"Inspect cannot read it as an eval log: {clipped(first, 160)}")


def read(path: Path, scores: Scores, *, metric: str | None, run: str | None, below: Path | None = None) -> None:
    """Add the samples' scores of one eval log to ``scores``, or its problems. Inspect reads a
    private copy, made and checked by :mod:`.archive`, never the path itself."""
    log = _reader()
    shown = display_path(path)
    with tempfile.TemporaryDirectory(prefix="freezer-inspect-") as folder:
        try:
            copy = archive.private_copy(path, Path(folder))
        except (ReadRefused, archive.ArchiveRefused) as exc:
            scores.refuse(jsondoc.file_problem(path, f"{exc}; not handed to Inspect's reader"))
            return
        try:
            header = log.read_eval_log(str(copy), header_only=True)
            samples = log.read_eval_log_sample_summaries(str(copy))
        except Exception as exc:  # noqa: BLE001 - a third-party reader's failures are the user's file, reported
            scores.refuse(_refused(path, copy, exc))
            return
    target = scores.target

    def refuse(where: str, message: str) -> None:
        scores.refuse(Problem(shown, None, None, (), f"{where}: {message}", jsondoc.LAYER))

    if header.status != "success":
        refuse("status", f"the eval ended {header.status!r}, not 'success': finish it (inspect eval-retry)")
        return
    version = header.eval.task_version
    if version in (0, "0"):
        scores.unchecked.add(f"{shown}: eval.task_version is Inspect's default 0 (no version recorded)")
    elif str(version) not in target.labels():
        refuse(
            "eval.task_version",
            f"{header.eval.task} ran at task version {version!r}; the frozen version is {target.name} "
            f"(version {target.number}): set the task's version to {target.number}",
        )
        return
    this_run = run or run_name(header.eval.model, header.eval.run_id)
    scores.recorded(header.eval.model, (header.eval.packages or {}).get("inspect_ai"))
    if not samples:
        refuse("samples", "the log holds no samples (was it written with --no-log-samples?)")
    for sample in samples:
        name = str(sample.id)
        where = f"samples[id={clipped(name, 60)}, epoch={sample.epoch}]"
        task = target.task_id(name)
        if task is None:
            refuse(where, target.unknown(name))
            continue
        if sample.error is not None or not sample.scores:
            refuse(where, "has no score (the sample errored or was not scored): rerun it")
            continue
        if metric is None and len(sample.scores) > 1:
            refuse(
                where, f"has several scorers ({quoted_names(sample.scores)}): name the one that scores it with --metric"
            )
            continue
        chosen = metric if metric is not None else next(iter(sample.scores))
        got = sample.scores.get(chosen)
        if got is None:
            refuse(where, f"has no scorer {quoted(chosen)}; its scorers: {quoted_names(sample.scores)}")
            continue
        if isinstance(got.value, (dict, list)):
            refuse(
                where, f"scorer {chosen}'s value is a {type(got.value).__name__}: freezer takes one number per fixture"
            )
            continue
        score = _number(got.value)
        if score is None:
            refuse(where, f"scorer {chosen}'s value {quoted(got.value)} is no score from 0 to 1")
            continue
        scores.add(this_run, task, score)
