"""``freezer diff`` as text: the delta engine's output, one line per change.

The CLI prints it and the static site shows it; neither has its own copy.
"""

from __future__ import annotations

from typing import Literal

from freezer.compare.deltamodel import Delta, FieldChange

_VERBS: tuple[Literal["added", "removed", "changed"], ...] = ("added", "removed", "changed")


def change_text(change: FieldChange) -> str:
    if change.change == "items":
        # Shown as the lists they are in delta.json.
        return f"+{list(change.added)} -{list(change.removed)}"
    old = change.old if change.change in ("removed", "changed") else "∅"
    new = change.new if change.change in ("added", "changed") else "∅"
    return f"{old} → {new}"


def delta_lines(delta: Delta) -> list[str]:
    lines = [f"{delta.from_} → {delta.to}"]
    if delta.reversed:
        lines[0] = f"{delta.to} → {delta.from_} is reversed: shown as {delta.from_} → {delta.to}"
    if len(delta.through) > 1:
        lines.append(f"  accumulated over: {', '.join(delta.through)}")
    lines.append(f"  moved: {', '.join(delta.moved) or 'nothing'}")
    lines.append(f"  did not move: {', '.join(delta.unmoved) or 'nothing'}")
    for entry in delta.unknown:
        lines.append(f"  unknown: {entry.dimension}: {entry.why}")
    for caveat in delta.caveats:
        lines.append(f"  caveat: {caveat}")
    if delta.fixtures is not None:
        for brief in delta.fixtures.added:
            lines.append(f"  + {brief.task_id} ({brief.class_}, {brief.status})")
        for brief in delta.fixtures.removed:
            lines.append(f"  - {brief.task_id} ({brief.class_}, {brief.status})")
        for changed in delta.fixtures.changed:
            lines.append(f"  ~ {changed.task_id}")
            for change in changed.fields:
                lines.append(f"      {change.path}: {change_text(change)}")
    for verb in _VERBS:
        for rel in delta.assets.of(verb) if delta.assets else ():
            lines.append(f"  asset {verb}: {rel}")
    for changes, title in ((delta.version_record, "version.yaml"), (delta.binary, "binary"), (delta.checks, "checks")):
        for change in changes:
            lines.append(f"  {title} {change.path}: {change_text(change)}")
    for change in delta.run:  # the run configuration (delta format 4 on)
        lines.append(f"  run {change.path}: {change_text(change)}")
    for surface in delta.tool_surface:
        for commit in surface.commits:
            lines.append(
                f"  [{surface.dimension}] {commit.sha[:8]} {commit.task or ''}: {commit.effect or ''}"
                + (f" (in {commit.version})" if len(delta.through) > 1 else "")
            )
    if delta.grep_oracle.moved:
        lines.append(f"  Gate B grep oracle: {delta.grep_oracle.before} → {delta.grep_oracle.after}")
    if delta.pinned_sha is not None:
        lines.append(f"  pinned SHA: {str(delta.pinned_sha.before)[:8]} → {delta.pinned_sha.after[:8]}")
    code = delta.code
    if code is not None and code.recorded:
        lines.append(f"  code under test: +{code.ahead} -{code.behind} commit(s)")
        for touched in code.touching_ground_truth:
            lines.append(f"    {touched.sha[:8]} {touched.subject} ({', '.join(touched.paths)})")
    return lines
