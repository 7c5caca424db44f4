"""Rules on a version draft that depend on its suite having code under test, and on its sources.

The version schema cannot see freezer.yaml, so it requires the code fields only of a draft that
gives ``pinned_sha``; whether a draft should give them is the suite's ``code_repo``, checked here.
"""

from __future__ import annotations

from freezer.domain.problems import Problem
from freezer.parse.document import YamlDocument

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
