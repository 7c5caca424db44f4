"""lm-evaluation-harness's results JSON (``lm_eval --output_path``), read into freezer's rows.

The file is one JSON object: ``results`` {task: {"metric,filter": value, "alias": ...}},
``versions`` {task: the task's ``metadata.version``}, ``configs`` {task: the task's config as run},
``n-shot`` {task: few-shot count}, ``n-samples`` {task: {"original", "effective"}}, ``config``
(the model and the run's settings: ``model``, ``model_args``, ``limit``...), ``date``, and, when
run with ``--log_samples``, ``task_hashes`` {task: hash of its logged samples}. Groups' rows
(``groups``, ``group_subtasks``) aggregate tasks and are not fixtures.

A task is scored whether a group ran it or it was named on the command line: lm-eval lists a plain
task in ``group_subtasks`` too, with an empty list, so only a key with subtasks is a group.

Checks this format allows, for each task of a frozen lm-eval suite: the task is a landed fixture
(its ``task:``); ``versions[task]`` equals the frozen task's ``metadata.version``; the config as
run (``configs[task]``) agrees, field by field, with the frozen task, its includes resolved as the
cut resolved them (:data:`_COMPARED`; ``generation_kwargs`` and ``dataset_kwargs`` key by key, and a
generation setting the run added, such as ``--gen_kwargs temperature=0.7``, is a contradiction
too); ``n-shot[task]`` equals the frozen ``num_fewshot``; every sample was scored (``n-samples``:
effective = original, no ``--limit``). A field the frozen task sets that the run did not record is
said ("not recorded"), never taken as agreement.
``task_hashes`` hash the samples lm-eval built, not the task files, so freezer cannot recompute
them: two files that ran one task with different hashes are refused (they ran different content),
and a file without them says so.
"""

from __future__ import annotations

import datetime
import json
from pathlib import Path

from freezer.domain.escape import clipped, quoted, quoted_names
from freezer.domain.jsontypes import JsonObject
from freezer.parse.lmevalyaml import FUNCTION_TAG
from freezer.query.harness import jsondoc
from freezer.query.harness.target import Scores, run_name, score_value

HARNESS = "lm-eval"
# The fields of a task's config that move its score, compared whole (lists and objects as JSON).
_COMPARED = (
    "dataset_path",
    "dataset_name",
    "test_split",
    "fewshot_split",
    "output_type",
    "num_fewshot",
    "description",
    "doc_to_text",
    "doc_to_target",
    "doc_to_choice",
    "target_delimiter",
    "fewshot_delimiter",
    "repeats",
    "metric_list",
    "filter_list",
)
# Compared key by key: the dataset's revision is one key of dataset_kwargs.
_BY_KEY = ("generation_kwargs", "dataset_kwargs")
# lm-eval adds ``until`` (the few-shot delimiter) to generation_kwargs that do not set it.
_DEFAULTED = frozenset({"until"})


def _metric(values: JsonObject, frozen: JsonObject, metric: str | None) -> tuple[str, object] | str:
    """The (key, value) of the metric that is the task's score, or why none can be chosen."""
    keys = [k for k in values if k != "alias" and "_stderr," not in k and not k.endswith("_stderr")]
    if metric is not None:
        chosen = [k for k in keys if k == metric or k.split(",", 1)[0] == metric]
    else:
        chosen = keys
        listed = frozen.get("metric_list")
        first = listed[0].get("metric") if isinstance(listed, list) and listed and isinstance(listed[0], dict) else None
        if len(keys) > 1 and isinstance(first, str):
            chosen = [k for k in keys if k.split(",", 1)[0] == first]
    if len(chosen) == 1:
        return chosen[0], values[chosen[0]]
    if not chosen:
        return f"holds no metric {quoted(metric)}; its metrics: {quoted_names(keys)}"
    return f"holds several metrics ({quoted_names(chosen)}): name the task's score with --metric"


def _same(recorded: object, frozen: object) -> bool:
    """Equal as lm-eval means it: numbers by value (it writes 0.0 for a YAML 0), lists and objects
    item by item, anything else as text (a version 1.0 frozen as the string "1.0")."""
    if isinstance(recorded, (int, float)) and isinstance(frozen, (int, float)):
        return isinstance(recorded, bool) == isinstance(frozen, bool) and float(recorded) == float(frozen)
    if isinstance(recorded, list) and isinstance(frozen, list):
        return len(recorded) == len(frozen) and all(_same(a, b) for a, b in zip(recorded, frozen, strict=True))
    if isinstance(recorded, dict) and isinstance(frozen, dict):
        return recorded.keys() == frozen.keys() and all(_same(recorded[k], frozen[k]) for k in recorded)
    if isinstance(recorded, (list, dict, bool)) or isinstance(frozen, (list, dict, bool)):
        return False
    return str(recorded) == str(frozen)


def _shown(value: object) -> str:
    """A config value in a message: as JSON, cut when long."""
    if value is _NONE:
        return "none"
    return clipped(json.dumps(value, ensure_ascii=False, separators=(",", ":")), _VALUE_SHOWN)


_NOT_RECORDED = "not recorded in its configs"
_NONE = object()  # a key the frozen task does not set
_VALUE_SHOWN = 120


def _calls_function(value: object) -> bool:
    """Whether a frozen value names a ``!function`` (as JSON: {"!function": "module.name"}): lm-eval
    records the function's source in its place, so the two are not compared; the task's digest
    covers the module the function is in."""
    if isinstance(value, dict):
        return FUNCTION_TAG in value or any(_calls_function(v) for v in value.values())
    if isinstance(value, list):
        return any(_calls_function(v) for v in value)
    return False


def _config_clashes(
    config: JsonObject, frozen: JsonObject
) -> tuple[list[tuple[tuple[str, ...], object, object]], list[str]]:
    """Where the config a task ran with contradicts the frozen task: (the field's path, run's value,
    frozen value); and the fields the frozen task sets that the config does not record."""
    clashes: list[tuple[tuple[str, ...], object, object]] = []
    missing: list[str] = []
    for key in _COMPARED:
        if key not in frozen:
            continue
        if _calls_function(frozen[key]):
            missing.append(f"{key} not compared: a !function, whose code lm-eval records as text")
        elif key not in config:
            missing.append(f"{key} {_NOT_RECORDED}")
        elif not _same(config[key], frozen[key]):
            clashes.append(((key,), config[key], frozen[key]))
    for key in _BY_KEY:
        ran, froze = config.get(key), frozen.get(key)
        if not isinstance(froze, dict):
            froze = {}
        if key not in config:
            if froze:
                missing.append(f"{key} {_NOT_RECORDED}")
            continue
        if not isinstance(ran, dict):
            clashes.append(((key,), ran, froze))
            continue
        for inner in sorted(set(ran) | set(froze)):
            if inner not in ran:
                missing.append(f"{key}.{inner} {_NOT_RECORDED}")
            elif inner not in froze:
                if key == "generation_kwargs" and inner not in _DEFAULTED:
                    clashes.append(((key, inner), ran[inner], _NONE))
            elif not _same(ran[inner], froze[inner]):
                clashes.append(((key, inner), ran[inner], froze[inner]))
    return clashes, missing


def _run(document: JsonObject) -> str:
    got = document.get("config")
    config: JsonObject = got if isinstance(got, dict) else {}
    model = document.get("model_name") or config.get("model_args") or config.get("model")
    date = document.get("date")
    when = None
    if isinstance(date, (int, float)) and not isinstance(date, bool) and 0 < date < 1e11:
        when = datetime.datetime.fromtimestamp(date, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    return run_name(model if isinstance(model, str) else None, when)


def read(path: Path, scores: Scores, *, metric: str | None, run: str | None, below: Path | None = None) -> None:
    """Add the tasks' scores of one results file to ``scores``, or its problems."""
    try:
        doc = jsondoc.load(path, below)
    except jsondoc.DocumentRefused as exc:
        scores.refuse(exc.problem)
        return
    value = doc.value
    results = value.get("results") if isinstance(value, dict) else None
    if not isinstance(results, dict):
        scores.refuse(
            doc.problem(
                (), "is not lm-eval's results JSON: it has no 'results' object (lm_eval --output_path writes one)"
            )
        )
        return

    def section(key: str) -> JsonObject:
        got = value.get(key)
        return got if isinstance(got, dict) else {}

    subtasks = section("group_subtasks")
    groups = set(section("groups")) | {name for name, under in subtasks.items() if under != []}
    versions, configs, shots, counts = section("versions"), section("configs"), section("n-shot"), section("n-samples")
    hashes = section("task_hashes")
    limit = section("config").get("limit")
    if not hashes:
        scores.unchecked.add(f"{doc.shown}: no task_hashes (run lm_eval with --log_samples to record them)")
    this_run = run or _run(value)
    release = value.get("lm_eval_version") or value.get("git_hash")
    scores.recorded(value.get("model_name") or section("config").get("model"), release)
    target = scores.target
    for name, values in results.items():
        if name in groups:
            continue
        task = target.task_id(name)
        if task is None:
            scores.refuse_at(doc, ("results", name), target.unknown(name))
            continue
        frozen = target.documents[task]
        problems = scores.problem_count

        def refuse(where: tuple[str | int, ...], message: str) -> None:
            scores.refuse_at(doc, where, message)

        metadata = frozen.get("metadata")
        frozen_version = metadata.get("version") if isinstance(metadata, dict) else None
        if name in versions and frozen_version is not None and not _same(versions[name], frozen_version):
            refuse(
                ("versions", name),
                f"{name} ran at version {quoted(versions[name])}; "
                f"{target.name} froze it at version {quoted(frozen_version)}",
            )
        elif name not in versions:
            scores.unchecked.add(f"{doc.shown}: no versions entry for {name}")
        config = configs.get(name)
        if isinstance(config, dict):
            clashes, missing = _config_clashes(config, frozen)
            for field_path, ran, froze in clashes:
                shown = ".".join(field_path)
                refuse(
                    ("configs", name, *field_path),
                    f"{name} ran with {shown} {_shown(ran)}; {target.name} froze {_shown(froze)}",
                )
            for shown in missing:
                scores.unchecked.add(f"{doc.shown}: {name}'s {shown}")
        else:
            scores.unchecked.add(f"{doc.shown}: no configs entry for {name}: its config as run not recorded")
        if name in shots and "num_fewshot" in frozen and not _same(shots[name], frozen["num_fewshot"]):
            refuse(
                ("n-shot", name),
                f"{name} ran {quoted(shots[name])}-shot; "
                f"{target.name} froze num_fewshot {quoted(frozen['num_fewshot'])}",
            )
        count = counts.get(name)
        if isinstance(count, dict) and count.get("effective") != count.get("original"):
            refuse(
                ("n-samples", name),
                f"{name} scored {quoted(count.get('effective'))} of its {quoted(count.get('original'))} samples "
                "(--limit): "
                "not the frozen task's score; run it whole",
            )
        elif limit is not None and not isinstance(count, dict):
            refuse(("config", "limit"), f"the run was limited to {quoted(limit)} samples per task: run it whole")
        if name in hashes:
            clash = scores.fingerprint(task, str(hashes[name]), doc.shown)
            if clash is not None:
                refuse(("task_hashes", name), clash)
        if not isinstance(values, dict):
            refuse(("results", name), "is not an object of metrics")
            continue
        chosen = _metric(values, frozen, metric)
        if isinstance(chosen, str):
            refuse(("results", name), f"{name} {chosen}")
            continue
        key, raw = chosen
        score = score_value(raw)
        if score is None:
            refuse(
                ("results", name, key),
                f"{name}'s {quoted(key)} is {quoted(raw)}: a score is a number from 0 to 1; name another with --metric",
            )
            continue
        if scores.problem_count == problems:
            scores.add(this_run, task, score)
