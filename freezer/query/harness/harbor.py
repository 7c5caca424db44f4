"""Harbor's trial results (``jobs/<job>/<trial>/result.json``), read into freezer's rows.

Each trial's result is one JSON object (Harbor's ``TrialResult``): ``task_name``, ``trial_name``,
``trial_uri``, ``task_id`` ({"path"} or {"git_url", "git_commit_id", "path"}), ``task_checksum``,
``agent_info`` ({"name", "version", "model_info": {"name", "provider"}}), ``verifier_result``
({"rewards": {"reward": 1.0, ...}} or null) and ``exception_info``. A job's folder holds one folder
per trial; naming the job folder reads every ``*/result.json`` in it (the job's own result.json
holds only totals, and is not read).

Checks this format allows: the trial's task (``task_name``, else the last part of ``task_id.path``)
is a landed fixture of a folders suite, by folder name or task id; the trial was verified (a
reward, no exception); every trial of one task ran the same ``task_checksum``. Harbor has computed
that checksum differently across its releases (a dirhash of the folder, then its own walk), so
freezer does not recompute it against the frozen folder: it is kept in the row as
``harness_hash`` for a reader who knows the Harbor release.
"""

from __future__ import annotations

import os
from pathlib import Path

from freezer.domain.escape import clipped, quoted, quoted_names
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.domain.problems import Problem, display_path
from freezer.query.harness import jsondoc
from freezer.query.harness.target import Scores, run_name, score_value
from freezer.runtime.limits import MAX_HARBOR_TRIALS
from freezer.runtime.reading import ReadRefused, open_folder

HARNESS = "harbor"


def files_of(path: Path) -> tuple[list[Path], list[Problem]]:
    """A trial's result.json as named, or every trial's of a job folder, listed from the folder
    opened without following a link: a trial folder that is a link is refused, never read."""
    if not path.is_dir() or path.is_symlink():
        return [path], []
    found: list[Path] = []
    refused: list[Problem] = []
    try:
        fd = open_folder(path)
    except ReadRefused as exc:
        return [], [jsondoc.file_problem(path, str(exc))]
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                if entry.is_symlink():
                    refused.append(jsondoc.file_problem(path / entry.name, _LINKED))
                elif entry.is_dir(follow_symlinks=False):
                    found.append(path / entry.name / "result.json")
    finally:
        os.close(fd)
    # A trial folder without its result.json is a trial still running: read the ones that finished.
    found = [file for file in sorted(found) if file.is_file() or file.is_symlink()]
    return found[:MAX_HARBOR_TRIALS], refused[:MAX_HARBOR_TRIALS]


LOCK = "lock.json"
_LINKED = "is a symbolic link: freezer reads only the job folder's own trial folders, never through a link"


def _object(value: JsonValue) -> JsonObject:
    return value if isinstance(value, dict) else {}


def _run(value: JsonObject, shown: str) -> str:
    agent = _object(value.get("agent_info"))
    model = _object(agent.get("model_info"))
    uri = value.get("trial_uri")
    job = uri.rstrip("/").split("/")[-2] if isinstance(uri, str) and uri.count("/") >= 2 else None
    return run_name(agent.get("name"), model.get("name"), job or Path(shown).parent.parent.name)


def _model(value: JsonObject) -> str | None:
    """The model the trial's agent ran, as Harbor's --model names it (provider/name)."""
    info = _object(_object(value.get("agent_info")).get("model_info"))
    name, provider = info.get("name"), info.get("provider")
    if not isinstance(name, str) or not name:
        return None
    return f"{provider}/{name}" if isinstance(provider, str) and provider and "/" not in name else name


def _name(value: JsonObject) -> tuple[str, tuple[str, ...]] | None:
    name = value.get("task_name")
    if isinstance(name, str) and name:
        return name, ("task_name",)
    task_id = value.get("task_id")
    path = task_id.get("path") if isinstance(task_id, dict) else None
    if isinstance(path, str) and path.strip("/"):
        return path.rstrip("/").split("/")[-1], ("task_id", "path")
    return None


def read(path: Path, scores: Scores, *, metric: str | None, run: str | None, below: Path | None = None) -> None:
    """Add the reward of one trial's result.json to ``scores``, or its problems (``below``: the job
    folder the user named, which the file is read inside)."""
    try:
        doc = jsondoc.load(path, below)
    except jsondoc.DocumentRefused as exc:
        scores.refuse(exc.problem)
        return
    value = doc.value
    named = _name(value) if isinstance(value, dict) else None
    if not isinstance(value, dict) or named is None:
        job = isinstance(value, dict) and ("n_total_trials" in value or "stats" in value)
        scores.refuse(
            doc.problem(
                (),
                "is Harbor's job result (totals only): name the job's folder or its trials' result.json"
                if job
                else "is not a Harbor trial result: it has no 'task_name'",
            )
        )
        return
    name, where = named
    target = scores.target
    task = target.task_id(name)
    if task is None:
        scores.refuse_at(doc, where, target.unknown(name))
        return
    if not _locked(path, below, scores, task):
        return
    checksum = value.get("task_checksum")
    if isinstance(checksum, str) and checksum:
        clash = scores.fingerprint(task, checksum, doc.shown)
        if clash is not None:
            scores.refuse(doc.problem(("task_checksum",), clash))
            return
    else:
        scores.unchecked.add(f"{doc.shown}: no task_checksum")
    verifier = value.get("verifier_result")
    rewards = verifier.get("rewards") if isinstance(verifier, dict) else None
    if not isinstance(rewards, dict) or not rewards:
        failure = value.get("exception_info")
        kind = failure.get("exception_type") if isinstance(failure, dict) else None
        why = f" (the trial raised {kind})" if isinstance(kind, str) else ""
        scores.refuse(
            doc.problem(("verifier_result",), f"trial of {name} has no reward{why}: rerun it or leave its file out")
        )
        return
    key = _reward_key(rewards, metric)
    if key is None:
        why = (
            f"has no reward {quoted(metric)}; its rewards: {quoted_names(rewards)}"
            if metric is not None
            else f"has several rewards ({quoted_names(rewards)}): name its score with --metric"
        )
        scores.refuse(doc.problem(("verifier_result", "rewards"), f"{name} {why}"))
        return
    score = score_value(rewards[key])
    if score is None:
        scores.refuse(
            doc.problem(("verifier_result", "rewards", key), f"reward {quoted(rewards[key])} is no score from 0 to 1")
        )
        return
    scores.recorded(_model(value), None)  # a trial's result records its agent's release, never Harbor's
    scores.add(run or _run(value, display_path(path)), task, score)


def _reward_key(rewards: JsonObject, metric: str | None) -> str | None:
    """The reward that is a trial's score: the one ``metric`` names, the sole one, or ``reward``."""
    if metric is not None and metric in rewards:
        return metric
    if len(rewards) == 1:
        return next(iter(rewards))
    if metric is None and "reward" in rewards:
        return "reward"
    return None


def _locked(result: Path, below: Path | None, scores: Scores, task: str) -> bool:
    """Whether the trial's lock.json lets its score stand: its ``task.digest`` is the frozen task's,
    or it records none (said, not taken as agreement); False once a contradiction is refused."""
    lock = result.parent / LOCK
    shown = display_path(result)
    if not lock.exists() and not lock.is_symlink():
        scores.unchecked.add(f"{shown}: no {LOCK} beside it: the task digest not recorded")
        return True
    try:
        doc = jsondoc.load(lock, below or result.parent)  # never through a link, whoever named the trial
    except jsondoc.DocumentRefused as exc:
        scores.refuse(exc.problem)
        return False
    recorded = _object(_object(doc.value).get("task")).get("digest")
    if not isinstance(recorded, str) or not recorded:
        scores.unchecked.add(f"{doc.shown}: no task.digest: the task digest not recorded")
        return True
    frozen = scores.target.harbor.get(task)
    if frozen is None or frozen.digest is None:
        why = frozen.reason if frozen is not None and frozen.reason else "freezer has no Harbor digest of it"
        scores.unchecked.add(f"{doc.shown}: task.digest of {task} not compared: {why}")
        return True
    if recorded != frozen.digest:
        scores.refuse_at(
            doc,
            ("task", "digest"),
            f"ran {task} with digest {clipped(recorded, _DIGEST_SHOWN)}; "
            f"{scores.target.name} froze it as {frozen.digest}: another version's task",
        )
        return False
    return True


_DIGEST_SHOWN = 80  # "sha256:" and 64 hex digits, whole; longer is data, cut
