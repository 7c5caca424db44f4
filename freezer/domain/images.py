"""A container image a fixture names, as the manifest records it.

An image named by digest (``name@sha256:...``) is pinned: the same digest is the same bytes. An
image named by a tag alone (``python:3.12``, ``ubuntu:latest``) can be rebuilt under the same name,
which is how an environment moves without any file of the benchmark changing; freezer says so. An
image a Dockerfile names through a build argument with no default (``FROM ${BASE}``) is not even a
name until the build gives it one: it is unknown for that reason (``unresolved``), not for a tag.
An image named by tag that the drafts' lock file (``freezer lock``) resolved is pinned by lock: the
digest the registry gave for the tag when the maintainer locked it, frozen with the version.
"""

from typing import TYPE_CHECKING, NamedTuple

from freezer.domain.jsontypes import JsonObject

if TYPE_CHECKING:  # start-up time: a type only, and domain.model builds the fixture records validate never needs
    from freezer.domain.model import Raw


class ImageRef(NamedTuple):
    """One place a fixture names a container image, as the manifest records it: pinned by a digest, or not."""

    name: str  # registry/repository[:tag], without the digest; as written when unresolved
    digest: str | None  # "sha256:<64 hex>", or None: named by tag alone (or not named at all)
    where: str  # the file and line ("environment/Dockerfile:1") or the field ("$.image") naming it
    # Why the Dockerfile names no image freezer can read ("the build argument BASE has no default");
    # None when it names one. Written only when set, so a manifest from before has none.
    unresolved: str | None = None
    # True: the fixture names a tag and the digest is the lock file's, not the fixture's own.
    # Written only when set ("pinned_by": "lock"), so a manifest from before has none.
    locked: bool = False

    @property
    def pinned(self) -> bool:
        return self.digest is not None

    @property
    def unknown_why(self) -> str | None:
        """Why the image is unknown, as recorded (a tag alone when no other reason was); None when pinned."""
        if self.pinned:
            return None
        return self.unresolved if self.unresolved is not None else "tag only"

    @property
    def shown(self) -> str:
        if self.digest is None:
            return self.name
        return f"{self.name}@{self.digest} (pinned by lock)" if self.locked else f"{self.name}@{self.digest}"

    @classmethod
    def from_data(cls, data: "Raw") -> "ImageRef":
        return cls(data["name"], data["digest"], data["where"], data.get("unresolved"), data.get("pinned_by") == "lock")

    def to_json(self) -> JsonObject:
        out: JsonObject = {"name": self.name, "digest": self.digest, "where": self.where}
        if self.unresolved is not None:
            out["unresolved"] = self.unresolved
        if self.locked:
            out["pinned_by"] = "lock"
        return out
