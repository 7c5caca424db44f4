"""Semantic rules: what a schema cannot say about a fixture set.

Each rule takes loaded documents and returns problems; none raises on bad
data. Rules assume the schema layer passed for the documents they look at.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Sequence, Set

from freezer.domain import taskid
from freezer.domain.findings import JsonPath
from freezer.domain.fixtureclass import class_counts
from freezer.domain.fixturekind import SITE_LISTS
from freezer.domain.jsontypes import JsonValue, as_object
from freezer.domain.problems import Problem
from freezer.git.globs import glob_problem
from freezer.kinds.yamlfiles import FILE_FIELDS
from freezer.parse.document import YamlDocument
from freezer.resolve.rgflags import flag_problems
from freezer.validate.namedfiles import AssetFiles


def path_problem(value: str) -> str | None:
    """Why ``value`` is not a clean repository-relative path, or None."""
    if "\x00" in value:
        return "path contains a NUL byte"
    if "\\" in value:
        return f"{value!r} uses '\\'; write repository paths with '/'"
    if value.startswith("/") or (len(value) > 1 and value[1] == ":"):
        return f"{value!r} is absolute; paths are relative to the code repository root"
    if ".." in value.split("/"):
        return f"{value!r} climbs out with '..'; paths must stay inside the repository"
    if value.startswith("-"):
        return f"{value!r} starts with '-' and would be read as an option"
    return None


def _site_rules(doc: YamlDocument, key: str, sites: JsonValue) -> Iterator[Problem]:
    """The rules of each site of ``sites``, which met the schema (so a list of objects, each with a
    file, and a range of two integers when it has one)."""
    for index, site in enumerate(sites if isinstance(sites, list) else []):
        site = as_object(site) or {}
        base: JsonPath = (key, index)
        file = site.get("file")
        why = path_problem(file) if isinstance(file, str) else None
        if why:
            yield doc.problem((*base, "file"), why, "rule")
        span = as_object(site.get("range"))
        start, end = (span.get("start"), span.get("end")) if span else (None, None)
        if isinstance(start, int) and isinstance(end, int) and start > end:
            yield doc.problem((*base, "range"), f"range starts at {start} after it ends at {end}", "rule")
        if site.get("members") and not span:
            yield doc.problem((*base, "members"), "'members' needs a 'range' to look in", "rule")


def fixture_rules(doc: YamlDocument) -> list[Problem]:
    """Rules that concern one fixture on its own."""
    data = doc.data
    found: list[Problem] = []
    if data["status"] == "landed" and data.get("gate_b"):
        status = data["gate_b"]["status"]
        if status != "pass":
            found.append(
                doc.problem(
                    ("gate_b", "status"),
                    f"landed fixture has Gate B {status!r}; only a fixture whose naive grep "
                    "demonstrably fails may land (set status: dropped, or fix Gate B)",
                    "rule",
                )
            )
    if data["status"] == "dropped" and not str((data.get("dropped") or {}).get("reason") or "").strip():
        found.append(doc.problem(("dropped", "reason"), "a dropped candidate needs a reason", "rule"))
    oracle = data.get("oracle")
    if oracle:
        include = set(oracle["must_include"])
        for index, item in enumerate(oracle["must_not_include"]):
            if item in include:
                found.append(
                    doc.problem(
                        ("oracle", "must_not_include", index),
                        f"{item!r} is in both must_include and must_not_include; no answer could pass",
                        "rule",
                    )
                )
    grep = data.get("naive_grep")
    if grep:
        for index, flag_why in flag_problems(list(grep.get("flags") or [])):
            found.append(doc.problem(("naive_grep", "flags", index), flag_why, "rule"))
        for index, scope in enumerate(grep["paths"]):
            why = path_problem(scope)
            if why:
                found.append(doc.problem(("naive_grep", "paths", index), why, "rule"))
    for key in SITE_LISTS:
        found.extend(_site_rules(doc, key, data.get(key)))
    return found


def version_rules(doc: YamlDocument, dimensions: Iterable[str] | None, suite: str | None) -> list[Problem]:
    """Rules that concern a version draft on its own (and its suite config, when known)."""
    data = doc.data
    found: list[Problem] = []
    if suite is not None and data["suite"] != suite:
        found.append(
            doc.problem(("suite",), f"draft is for suite {data['suite']!r} but sits in the drafts of {suite!r}", "rule")
        )
    binary = data.get("binary") or {"build_sha_unknown": ""}  # none: no code under test (code_rules)
    if "build_sha" in binary and "build_sha_unknown" in binary:
        found.append(
            doc.problem(
                ("binary", "build_sha_unknown"),
                "the build SHA is given, so it is not unknown; keep one of build_sha and build_sha_unknown",
                "rule",
            )
        )
    elif "build_sha" not in binary and "build_sha_unknown" not in binary:
        found.append(
            doc.problem(
                ("binary",),
                "binary.build_sha is missing: give the commit the binary was built from, or say why it is not "
                "known with build_sha_unknown: <reason> (METHOD.md will then say the tool-surface record may be "
                "incomplete)",
                "rule",
            )
        )
    seen: dict[str, int] = {}
    allowed = sorted(dimensions) if dimensions is not None else None
    for index, commit in enumerate(data.get("tool_surface_commits") or ()):
        sha = commit["sha"].lower()
        for earlier, other in seen.items():
            if earlier.startswith(sha) or sha.startswith(earlier):
                found.append(
                    doc.problem(
                        ("tool_surface_commits", index, "sha"),
                        f"commit {commit['sha']} is declared twice (also entry {other})",
                        "rule",
                    )
                )
        seen[sha] = index
        if allowed is not None and commit["dimension"] not in allowed:
            found.append(
                doc.problem(
                    ("tool_surface_commits", index, "dimension"),
                    f"unknown dimension {commit['dimension']!r}; this suite tracks: {', '.join(allowed)}",
                    "rule",
                )
            )
    return found


def set_rules(version: YamlDocument | None, fixtures: list[YamlDocument]) -> list[Problem]:
    """Rules over the whole set: unique ids, and the acceptance rules."""
    found: list[Problem] = []
    first: dict[str, YamlDocument] = {}
    for doc in fixtures:
        task_id = doc.data["task_id"]
        if task_id in first:
            other = first[task_id]
            line = other.locate(("task_id",))[0]
            found.append(
                doc.problem(
                    ("task_id",),
                    f"task_id {task_id!r} is already used by {other.display}:{line}; task ids must be unique",
                    "rule",
                )
            )
        else:
            first[task_id] = doc
    found.extend(_look_alike(fixtures))
    if version is None:
        return found
    landed = [d.data for d in fixtures if d.data["status"] == "landed"]
    classes = list(class_counts(landed))
    rules = version.data.get("acceptance") or {"min_landed": 0, "min_classes": 0}
    reference = f" ({rules['reference']})" if rules.get("reference") else ""
    if len(landed) < rules["min_landed"]:
        found.append(
            version.problem(
                ("acceptance", "min_landed"),
                f"only {len(landed)} landed fixture(s); "
                f"the acceptance rules need at least {rules['min_landed']}{reference}",
                "rule",
            )
        )
    if len(classes) < rules["min_classes"]:
        shown = ", ".join(classes) or "none"
        found.append(
            version.problem(
                ("acceptance", "min_classes"),
                f"landed fixtures span {len(classes)} class(es) ({shown}); "
                f"the acceptance rules need at least {rules['min_classes']}{reference}",
                "rule",
            )
        )
    return found


def missing_canary(canary: str, files: dict[str, bytes]) -> list[str]:
    """The files (name → bytes) that do not carry the suite's canary string."""
    needle = canary.encode("utf-8")
    return sorted(name for name, data in files.items() if needle not in data)


def _entry_problem(entry: object, files: AssetFiles) -> str | None:
    """Why an ``assets:``/``graders:`` entry names no file of the drafts, or None. An entry is a file,
    a folder (``data/``) or a git glob (``data/*.csv``), relative to the drafts folder; a folder or
    glob must match at least one asset."""
    if not isinstance(entry, str):
        return "must be a path"
    why = path_problem(entry)
    if why is not None or entry in files:
        return why
    if any(part in ("", ".") for part in entry.removesuffix("/").split("/")):
        return f"{entry!r} holds an empty or '.' folder; write the path as the drafts hold it"
    why = glob_problem(entry)
    if why is not None:
        return why
    if files.expand(entry) is None:
        if any(c in entry for c in "*?["):
            return f"the glob {entry!r} matches no asset in the drafts (paths are relative to the drafts folder)"
        return f"no file {entry!r} in the drafts (paths are relative to the drafts folder)"
    return None


def asset_rules(
    fixtures: list[YamlDocument], assets: Collection[str], fields: Sequence[str] = FILE_FIELDS
) -> list[Problem]:
    """Every entry of a fixture's asset ``fields`` (its kind's: freezer's ``assets`` and ``graders``)
    is a clean relative path to a file, a folder or a glob of the drafts, naming at least one asset."""
    found: list[Problem] = []
    files = AssetFiles(dict.fromkeys(assets, ""))
    for doc in fixtures:
        for key in fields:
            named = doc.data.get(key)
            for index, rel in enumerate(named if isinstance(named, list) else []):
                why = _entry_problem(rel, files)
                if why:
                    found.append(doc.problem((key, index), why, "rule"))
    return found


def _look_alike(fixtures: list[YamlDocument]) -> list[Problem]:
    """Two different ids that look the same or would share a page cannot both stand (taskid.clash_keys)."""
    found: list[Problem] = []
    seen: dict[tuple[str, str], YamlDocument] = {}
    for doc in fixtures:
        task_id = doc.data["task_id"]
        if not isinstance(task_id, str):
            continue
        for reason, key in taskid.clash_keys(task_id):
            other = seen.setdefault((reason, key), doc)
            if other.data["task_id"] != task_id:
                line = other.locate(("task_id",))[0]
                other_id = other.data["task_id"]
                where = taskid.first_difference(task_id, other_id)
                said = reason.format(other=f"{taskid.shown(other_id)} ({other.display}:{line})", where=where)
                found.append(doc.problem(("task_id",), f"task_id {taskid.shown(task_id)} {said}; rename one", "rule"))
                break
    return found


def identity_problems(doc: YamlDocument) -> list[Problem]:
    """What freezer itself needs of a fixture under a suite's own schema: an id and a status."""
    found = []
    data = doc.data
    if not isinstance(data, dict):
        return [doc.problem((), "a fixture must be a mapping", "schema")]
    task_id = data.get("task_id")
    if not isinstance(task_id, str) or not task_id:
        found.append(doc.problem(("task_id",), "freezer needs a task_id (a string) in every fixture", "schema"))
    if data.get("status") not in ("landed", "dropped"):
        found.append(doc.problem(("status",), "freezer needs status: landed or dropped in every fixture", "schema"))
    if data.get("status") == "dropped" and not isinstance(data.get("dropped"), dict):
        found.append(doc.problem(("dropped",), "a dropped fixture needs dropped: {stage, reason}", "schema"))
    return found


def run_rules(doc: YamlDocument, assets: Set[str]) -> list[Problem]:
    """Every harness file the run configuration names is a clean relative path to a file in the
    drafts: it is frozen with the version (as an asset), so a change to it is seen."""
    run = doc.data.get("run") if isinstance(doc.data, dict) else None
    harness = run.get("harness") if isinstance(run, dict) else None
    paths = harness.get("paths") if isinstance(harness, dict) else None
    found: list[Problem] = []
    for index, rel in enumerate(paths if isinstance(paths, list) else []):
        why = path_problem(rel) if isinstance(rel, str) else "must be a path"
        if why is None and rel not in assets:
            why = f"no file {rel!r} in the drafts (harness paths are relative to the drafts folder)"
        if why:
            found.append(doc.problem(("run", "harness", "paths", index), why, "rule"))
    return found


# Rules on a version draft that depend on its suite having code under test, and on its sources. The
# version schema cannot see freezer.yaml, so it requires the code fields only of a draft that gives
# pinned_sha; whether a draft should give them is the suite's code_repo, checked here.
# What only a suite with code under test records in version.yaml.
CODE_FIELDS = ("pinned_sha", "binary", "tool_surface_commits")


def code_rules(doc: YamlDocument, has_code: bool | None) -> list[Problem]:
    """``has_code``: the suite names a code_repo (None: the suite is not known, nothing to check)."""
    data = doc.data
    if has_code is None:
        return []
    if has_code:
        if "pinned_sha" in data:
            return []
        why = (
            "pinned_sha is missing: the suite names a code_repo, so the draft pins the code under test "
            "(pinned_sha, binary, tool_surface_commits, provenance_text, acceptance)"
        )
        return [doc.problem((), why, "rule")]
    return [
        doc.problem(
            (key,),
            f"the suite names no code_repo, so there is no code under test for {key} to describe: "
            "remove it, or name the code_repo in freezer.yaml",
            "rule",
        )
        for key in CODE_FIELDS
        if key in data
    ]


def source_rules(doc: YamlDocument) -> list[Problem]:
    """Each data source is named once: §Delta and the environment digest key them by name."""
    found = []
    seen: dict[str, int] = {}
    for index, source in enumerate(doc.data.get("sources") or ()):
        name = source["name"]
        if name in seen:
            found.append(
                doc.problem(
                    ("sources", index, "name"), f"source {name!r} is listed twice (also entry {seen[name]})", "rule"
                )
            )
        seen.setdefault(name, index)
    return found
