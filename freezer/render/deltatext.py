"""``freezer diff`` as text: the delta engine's output, one line per change.

The CLI prints it and the static site shows it; neither has its own copy.
"""

from __future__ import annotations

from typing import Any


def change_text(change: dict[str, Any]) -> str:
    if change["change"] == "items":
        return f"+{change['added']} -{change['removed']}"
    return f"{change.get('old', '∅')} → {change.get('new', '∅')}"


def delta_lines(delta: dict[str, Any]) -> list[str]:
    lines = [f"{delta['from']} → {delta['to']}"]
    if delta["reversed"]:
        lines[0] = f"{delta['to']} → {delta['from']} is reversed: shown as {delta['from']} → {delta['to']}"
    if len(delta["through"]) > 1:
        lines.append(f"  accumulated over: {', '.join(delta['through'])}")
    lines.append(f"  moved: {', '.join(delta['moved']) or 'nothing'}")
    lines.append(f"  did not move: {', '.join(delta['unmoved']) or 'nothing'}")
    for entry in delta["unknown"]:
        lines.append(f"  unknown: {entry['dimension']}: {entry['why']}")
    for caveat in delta["caveats"]:
        lines.append(f"  caveat: {caveat}")
    fixtures = delta["fixtures"]
    for entry in fixtures["added"]:
        lines.append(f"  + {entry['task_id']} ({entry['class']}, {entry['status']})")
    for entry in fixtures["removed"]:
        lines.append(f"  - {entry['task_id']} ({entry['class']}, {entry['status']})")
    for entry in fixtures["changed"]:
        lines.append(f"  ~ {entry['task_id']}")
        for change in entry["fields"]:
            lines.append(f"      {change['path']}: {change_text(change)}")
    for verb in ("added", "removed", "changed"):
        for rel in (delta.get("assets") or {}).get(verb, []):
            lines.append(f"  asset {verb}: {rel}")
    for section, title in (("version_record", "version.yaml"), ("binary", "binary"), ("checks", "checks")):
        for change in delta[section]:
            lines.append(f"  {title} {change['path']}: {change_text(change)}")
    for entry in delta["tool_surface"]:
        dimension = entry["dimension"]
        for commit in entry["commits"]:
            lines.append(
                f"  [{dimension}] {commit['sha'][:8]} {commit.get('task') or ''}: {commit.get('effect') or ''}"
                + (f" (in {commit['version']})" if len(delta["through"]) > 1 else "")
            )
    oracle = delta.get("grep_oracle") or {}
    if oracle.get("before") != oracle.get("after"):
        lines.append(f"  Gate B grep oracle: {oracle.get('before')} → {oracle.get('after')}")
    pinned = delta["pinned_sha"]
    lines.append(f"  pinned SHA: {pinned['before'][:8]} → {pinned['after'][:8]}")
    code = delta["code"]
    if code["recorded"]:
        lines.append(f"  code under test: +{code['ahead']} -{code['behind']} commit(s)")
        for commit in code["touching_ground_truth"]:
            lines.append(f"    {commit['sha'][:8]} {commit['subject']} ({', '.join(commit['paths'])})")
    return lines
