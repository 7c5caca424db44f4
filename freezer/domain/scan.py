"""The tool-surface scan a manifest records (``tool_surface.scan``), typed.

Scan rules 1 (formats 2 and 3 as first written) scanned the globs' paths only.
Scan rules 2 follow content: the targets of symbolic links and the gitlinks of
submodules under or above a glob are scanned too, a glob that matches nothing
must be declared gone, the commits the previous build had and this one has not
are recorded as rolled back, and what the scan could not see is recorded as
unknown. A manifest without ``rules`` is read as rules 1, so every version cut
before audits as it was cut.
"""

from __future__ import annotations

from dataclasses import dataclass

from freezer.domain.jsontypes import JsonObject
from freezer.domain.model import Raw

SCAN_RULES = 2


@dataclass(frozen=True)
class TouchingCommit:
    """A commit of the code history that touched a file a landed fixture's sites name (or the
    tool surface: a rolled-back commit, a submodule's commit)."""

    sha: str
    subject: str
    paths: tuple[str, ...]

    @classmethod
    def from_data(cls, data: Raw) -> TouchingCommit:
        return cls(data["sha"], data["subject"], tuple(data["paths"]))

    def to_json(self) -> JsonObject:
        return {"sha": self.sha, "subject": self.subject, "paths": list(self.paths)}


@dataclass(frozen=True)
class Followed:
    """A path of the tool surface that leads elsewhere: a symbolic link to ``target`` (every link on
    the way is one entry), or a submodule's gitlink (``target`` is its own path)."""

    path: str
    via: str  # "symlink" or "gitlink"
    target: str

    @classmethod
    def from_data(cls, data: Raw) -> Followed:
        return cls(data["path"], data["via"], data["target"])

    def to_json(self) -> JsonObject:
        return {"path": self.path, "via": self.via, "target": self.target}


@dataclass(frozen=True)
class ScanUnknown:
    """A part of the tool surface the scan could not see, and why."""

    path: str
    why: str

    @classmethod
    def from_data(cls, data: Raw) -> ScanUnknown:
        return cls(data["path"], data["why"])

    def to_json(self) -> JsonObject:
        return {"path": self.path, "why": self.why}

    def __str__(self) -> str:
        return f"{self.path}: {self.why}"


@dataclass(frozen=True)
class SubmoduleScan:
    """A submodule of the tool surface whose gitlink moved, and the commits the move brings
    (``unreadable`` says why they could not be read: then they are unknown)."""

    path: str
    before: str | None
    after: str | None
    commits: tuple[TouchingCommit, ...]
    unreadable: str | None

    @classmethod
    def from_data(cls, data: Raw) -> SubmoduleScan:
        commits = tuple(TouchingCommit.from_data(c) for c in data["commits"])
        return cls(data["path"], data["before"], data["after"], commits, data["unreadable"])

    def to_json(self) -> JsonObject:
        return {
            "path": self.path,
            "before": self.before,
            "after": self.after,
            "commits": [c.to_json() for c in self.commits],
            "unreadable": self.unreadable,
        }


@dataclass(frozen=True)
class Scan:
    """The undeclared-commit scan: every commit reachable from ``tips`` and from no ``excluded``
    commit, touching ``globs`` (and, from rules 2, what ``followed`` leads to), was declared."""

    excluded: tuple[str, ...]
    tips: tuple[str, ...]
    globs: tuple[str, ...]
    build_sha_known: bool
    rules: int = 1
    followed: tuple[Followed, ...] = ()
    submodules: tuple[SubmoduleScan, ...] = ()
    rolled_back: tuple[TouchingCommit, ...] = ()
    gone: tuple[str, ...] = ()
    unknown: tuple[ScanUnknown, ...] = ()

    @classmethod
    def from_data(cls, data: Raw) -> Scan:
        return cls(
            tuple(data["excluded"]),
            tuple(data["tips"]),
            tuple(data["globs"]),
            data["build_sha_known"],
            data.get("rules", 1),
            tuple(Followed.from_data(f) for f in data.get("followed", ())),
            tuple(SubmoduleScan.from_data(s) for s in data.get("submodules", ())),
            tuple(TouchingCommit.from_data(c) for c in data.get("rolled_back", ())),
            tuple(data.get("gone", ())),
            tuple(ScanUnknown.from_data(u) for u in data.get("unknown", ())),
        )

    @property
    def literal(self) -> tuple[str, ...]:
        """The paths scanned besides the globs: what the surface's links and gitlinks lead to."""
        return tuple(dict.fromkeys(f.target for f in self.followed))

    @property
    def unseen(self) -> tuple[ScanUnknown, ...]:
        """Everything the scan could not see: its own unknowns and the submodules it could not read."""
        found = [*self.unknown]
        for sub in self.submodules:
            if sub.unreadable is not None:
                found.append(
                    ScanUnknown(
                        sub.path,
                        f"submodule bumped {_short(sub.before)} → {_short(sub.after)}; "
                        f"what it brings is unknown: {sub.unreadable}",
                    )
                )
        return tuple(found)

    def to_json(self) -> JsonObject:
        out: JsonObject = {
            "excluded": list(self.excluded),
            "tips": list(self.tips),
            "globs": list(self.globs),
            "build_sha_known": self.build_sha_known,
        }
        if self.rules >= 2:  # rules 1 wrote none of these: its manifests stay byte for byte
            out["rules"] = self.rules
            out["followed"] = [f.to_json() for f in self.followed]
            out["submodules"] = [s.to_json() for s in self.submodules]
            out["rolled_back"] = [c.to_json() for c in self.rolled_back]
            out["gone"] = list(self.gone)
            out["unknown"] = [u.to_json() for u in self.unknown]
        return out


def _short(sha: str | None) -> str:
    return sha[:8] if sha else "none"
