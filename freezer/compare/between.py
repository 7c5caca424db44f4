"""What happened *between* two versions of a suite, accumulated over the chain: the tool-surface
commits each version declared or rolled back, what a scan could not see, and the code history.
The delta engine (:mod:`freezer.compare.delta`) puts these beside what differs end to end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from freezer.compare.deltamodel import CodeDelta, DeltaCommit, SurfaceEntry, Unknown
from freezer.registry.record import Side

_ROLLED_BACK = "tool surface"


def build_unknown(side_: Side) -> str | None:
    binary = side_.manifest.binary
    if binary is None or binary.build_known:  # None: no code under test, so no binary to build
        return None
    return f"{side_.name}: {binary.build_sha_unknown or 'no build SHA was recorded'}"


def surface(through: Sequence[Side], meanings: Mapping[str, str], chain: Sequence[Side]) -> tuple[SurfaceEntry, ...]:
    # In order: the suite's dimensions, then any other a commit names. The order is part of the rendered delta.
    meaning = dict(meanings)
    commits: dict[str, list[DeltaCommit]] = {name: [] for name in meanings}
    for version in through:
        for commit in version.manifest.commits:
            commits.setdefault(commit.dimension, []).append(
                DeltaCommit(version.name, commit.sha, commit.declared_as, commit.task, commit.effect, commit.subject)
            )
    # A rollback moves the surface back: each dropped commit under the dimension a version declared it
    # in, else under "tool surface" (it came before the suite's first version, or was never declared).
    declared = {c.sha: c for side in chain for c in side.manifest.commits}
    for version in through:
        scan = version.manifest.scan
        for back in scan.rolled_back if scan is not None else ():
            was = declared.get(back.sha)
            effect = f"rolled back: the previous build had it, this one has not ({', '.join(back.paths[:5])})"
            commits.setdefault(was.dimension if was else _ROLLED_BACK, []).append(
                DeltaCommit(version.name, back.sha, None, was.task if was else None, effect, back.subject)
            )
            meaning.setdefault(_ROLLED_BACK, "tool-surface commits a rollback dropped, under no declared dimension")
    return tuple(SurfaceEntry(name, meaning.get(name, ""), tuple(found)) for name, found in commits.items())


def unseen(through: Sequence[Side]) -> list[Unknown]:
    """What the tool-surface scan of a version along the chain could not see (scan rules 2)."""
    found = []
    for version in through:
        scan = version.manifest.scan
        for part in scan.unseen if scan is not None else ():
            found.append(Unknown(f"tool surface at {part.path}", f"{version.name}: {part.why}"))
    return found


def code_between(through: Sequence[Side]) -> CodeDelta:
    missing = tuple(s.name for s in through if not s.manifest.code_history_recorded)
    histories = [s.manifest.code_history for s in through if s.manifest.code_history is not None]
    return CodeDelta(
        not missing,
        missing,
        sum(h.ahead for h in histories),
        sum(h.behind for h in histories),
        tuple(c for h in histories for c in h.touching_ground_truth),
    )
