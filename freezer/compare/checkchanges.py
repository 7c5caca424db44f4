"""What the checks of two versions used, compared: the METHOD.md template, the tool-surface globs,
the fixture schema, the dimensions and (format 3 on) the arms and field groups; and the Gate B
grep oracle each recorded. Part of the delta (:mod:`freezer.compare.delta`)."""

from __future__ import annotations

from freezer.compare.fieldlevel import field_changes
from freezer.domain.jsontypes import JsonObject, json_list
from freezer.domain.manifest import Manifest
from freezer.registry.record import arms_of


def _comparability_changes(old: Manifest, new: Manifest, full: bool, delta_format: int) -> list[JsonObject]:
    """Arms and field groups that moved between two versions that both recorded them (format 3)."""
    before, after = old.comparability, new.comparability
    if before is None or after is None:
        return []
    changes: list[JsonObject] = []
    old_arms = {arm: list(needs) for arm, needs in arms_of(old).items()}
    new_arms = {arm: list(needs) for arm, needs in arms_of(new).items()}
    for change in field_changes(old_arms, new_arms, full=full, delta_format=delta_format):
        changes.append({**change, "path": "arm " + str(change["path"]).removeprefix("$.")})
    for change in field_changes(dict(before.groups), dict(after.groups), full=full, delta_format=delta_format):
        changes.append({**change, "path": "field group " + str(change["path"]).removeprefix("$.")})
    return changes


def check_changes(old: Manifest, new: Manifest, full: bool, delta_format: int) -> list[JsonObject]:
    hashed = 64 if full else 16
    changes: list[JsonObject] = []
    if old.checks.template_sha256 != new.checks.template_sha256:
        changes.append(
            {
                "path": "METHOD.md template (sha256)",
                "change": "changed",
                "old": old.checks.template_sha256[:hashed],
                "new": new.checks.template_sha256[:hashed],
            }
        )
    if old.globs != new.globs:
        changes.append(
            {
                "path": "tool_surface globs",
                "change": "items",
                "added": json_list(g for g in new.globs if g not in old.globs),
                "removed": json_list(g for g in old.globs if g not in new.globs),
            }
        )
    before_kind, after_kind = old.checks.fixture_schema_kind, new.checks.fixture_schema_kind
    before_sha = old.checks.fixture_schema.sha256 if old.checks.fixture_schema else ""
    after_sha = new.checks.fixture_schema.sha256 if new.checks.fixture_schema else ""
    if before_kind != after_kind or (before_sha and after_sha and before_sha != after_sha):
        changes.append(
            {
                "path": "fixture schema",
                "change": "changed",
                "old": f"{before_kind} {before_sha[:hashed]}".strip(),
                "new": f"{after_kind} {after_sha[:hashed]}".strip(),
            }
        )
    if old.checks.dimensions is not None and new.checks.dimensions is not None:
        dimensions = (dict(old.checks.dimensions), dict(new.checks.dimensions))
        for change in field_changes(*dimensions, full=full, delta_format=delta_format):
            changes.append({**change, "path": "dimension " + str(change["path"]).removeprefix("$.")})
    if delta_format >= 3:
        changes.extend(_comparability_changes(old, new, full, delta_format))
    return changes


def oracle(manifest: Manifest) -> str | None:
    return str(manifest.checks.grep) if manifest.checks.grep is not None else None
