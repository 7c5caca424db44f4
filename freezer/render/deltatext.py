"""``freezer diff`` as text: the delta engine's output, one line per change.

The CLI prints it and the static site shows it; neither has its own copy.
"""

from __future__ import annotations

from typing import Literal

from freezer.compare import fieldtext
from freezer.compare.deltamodel import Delta
from freezer.compare.fieldchange import FieldChange

_VERBS: tuple[Literal["added", "removed", "changed"], ...] = ("added", "removed", "changed")


def change_text(change: FieldChange) -> str:
    """One line for a change; a reader can always tell its two sides apart (never ``X → X``).
    A change with a line diff says so: :func:`change_lines` gives the diff itself."""
    if change.change == "items":
        # Shown as the lists they are in delta.json, unless two items would read alike.
        added, removed = [repr(x) for x in change.added], [repr(x) for x in change.removed]
        if not all(fieldtext.tellable(a, r) for a in added for r in removed):
            added, removed = fieldtext.shown_items(change.added, change.removed, width=None)
        return f"+[{', '.join(added)}] -[{', '.join(removed)}]"
    if change.lines:
        return f"{change.change}, line by line:"
    if change.change == "changed":
        old, new = fieldtext.shown_pair(change.old, change.new, width=None)
        # A field set to null reads as the YAML and JSON the author wrote, never as Python's None.
        return f"{_null_or(change.old, old)} → {_null_or(change.new, new)}"
    if change.change == "added":
        return f"∅ → {_null_or(change.new, change.new)}"
    return f"{_null_or(change.old, change.old)} → ∅"


def _null_or(value: object, shown: object) -> str:
    return "null" if value is None else str(shown)


def change_lines(change: FieldChange, lead: str) -> list[str]:
    """The change's own line, then its line diff (if any) indented beneath it."""
    return [f"{lead}{change.path}: {change_text(change)}", *(f"          {line}" for line in change.lines)]


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
                lines.extend(change_lines(change, "      "))
        for through in delta.fixtures.through_files or ():
            lines.append(f"  ~ {through.task_id} through its files: {', '.join(through.files)} changed")
        for rel in delta.fixtures.files_in_bytes or ():
            lines.append(f"  ~ fixture file {rel}: its bytes changed")
    for verb in _VERBS:
        for rel in delta.assets.of(verb) if delta.assets else ():
            mode = delta.assets.modes.get(rel) if delta.assets else None
            owners = delta.assets.claimed.get(rel) if delta.assets else None  # delta format 5
            lines.append(
                f"  asset {verb}: {rel}"
                + (f" ({mode.text()})" if mode else "")
                + (f", a file of {', '.join(owners)}, not a suite asset" if owners else "")
            )
    for changes, title in ((delta.version_record, "version.yaml"), (delta.binary, "binary"), (delta.checks, "checks")):
        for change in changes:
            lines.extend(change_lines(change, f"  {title} "))
    for change in delta.run:  # the run configuration (delta format 4 on)
        lines.extend(change_lines(change, "  run "))
    for change in delta.sources:  # the data sources (delta format 4 on)
        lines.extend(change_lines(change, "  source "))
    for change in delta.environment:  # the container images of the fixtures (delta format 4 on)
        lines.extend(change_lines(change, "  image "))
    for surface in delta.tool_surface:
        for commit in surface.commits:
            lines.append(
                f"  [{surface.dimension}] {commit.sha[:8]} {commit.task or ''}: {commit.effect or ''}"
                + (f" (in {commit.version})" if len(delta.through) > 1 else "")
            )
    if delta.grep_oracle.moved:
        lines.append(f"  Gate B grep oracle: {delta.grep_oracle.before} → {delta.grep_oracle.after}")
    if delta.pinned_sha is not None:
        lines.append(f"  pinned SHA: {str(delta.pinned_sha.before)[:8]} → {str(delta.pinned_sha.after)[:8]}")
    code = delta.code
    if code is not None and code.recorded:
        lines.append(f"  code under test: +{code.ahead} -{code.behind} commit(s)")
        for touched in code.touching_ground_truth:
            lines.append(f"    {touched.sha[:8]} {touched.subject} ({', '.join(touched.paths)})")
    return lines
