"""What a frozen version recorded of the config that cut it, read from its manifest's JSON alone.

``freezer check`` (a pre-commit hook) compares each suite's latest version with freezer.yaml
(:mod:`freezer.guard.drift`); the typed manifest (:mod:`freezer.domain.manifest`) builds two dozen
dataclasses at import for everything else a manifest says. The fields compared are read here, and
the typed manifest reads them through the same functions, so both say the same of a manifest of
any format.
"""

from collections.abc import Mapping
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from freezer.domain.model import Raw

# Where format 1 kept the hash of the METHOD.md template: among its files, by this name.
_FORMAT_1_TEMPLATE = "METHOD.md.j2"


def code_under_test(data: "Raw") -> bool:
    return bool(data.get("code_under_test", True))


def surface_globs(data: "Raw") -> tuple[str, ...]:
    """The tool-surface globs a version scanned (none without code under test)."""
    return tuple(data["tool_surface"]["globs"]) if code_under_test(data) else ()


def template_sha256(data: "Raw") -> str:
    """The sha256 of the METHOD.md template the cut rendered (format 1: of its frozen copy)."""
    if data["manifest_format"] >= 2:
        return str(data["checks"]["template_sha256"])
    return str(data["files"].get(_FORMAT_1_TEMPLATE, ""))


def dimensions(data: "Raw") -> dict[str, str] | None:
    """The dimensions (name → meaning, in their configured order); None: not recorded (format 1)."""
    if data["manifest_format"] < 2:
        return None
    return {d["dimension"]: d["meaning"] for d in data["checks"]["dimensions"]}


def fixture_schema(data: "Raw") -> tuple[str, str] | None:
    """(kind, sha256) of the schema the fixtures met; None: not recorded (the graph's, before 0.2)."""
    schema = data["checks"].get("fixture_schema") if data["manifest_format"] >= 2 else None
    return (schema["kind"], schema["sha256"]) if schema is not None else None


def contents(data: "Raw") -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(fixtures, assets) among the data files; None: not recorded."""
    found = data.get("contents")
    return (tuple(found["fixtures"]), tuple(found["assets"])) if found else None


def sorted_arms(arms: "Raw") -> dict[str, tuple[str, ...]]:
    """A comparability record's arms, each with what it depends on (canonical order: by name)."""
    return {arm: tuple(arms[arm]) for arm in sorted(arms)}


def sorted_groups(groups: "Raw") -> dict[str, str]:
    """A comparability record's field groups (canonical order: by field)."""
    return dict(sorted(groups.items()))


class RecordedConfig(NamedTuple):
    """The fields of a manifest that freezer.yaml decided, as the version recorded them."""

    name: str
    globs: tuple[str, ...]
    template_sha256: str
    dimensions: Mapping[str, str] | None  # None: not recorded (format 1)
    fixture_schema: tuple[str, str] | None  # (kind, sha256); None: the graph schema (before 0.2)
    contents: tuple[tuple[str, ...], tuple[str, ...]] | None  # (fixtures, assets); None: not recorded
    arms: Mapping[str, tuple[str, ...]] | None  # None: no comparability record (before format 3)
    groups: Mapping[str, str] | None  # None: likewise

    @property
    def fixture_schema_kind(self) -> str:
        return self.fixture_schema[0] if self.fixture_schema is not None else "graph"

    @classmethod
    def from_data(cls, data: "Raw") -> "RecordedConfig":
        comparability = data.get("comparability")
        return cls(
            name=data["name"],
            globs=surface_globs(data),
            template_sha256=template_sha256(data),
            dimensions=dimensions(data),
            fixture_schema=fixture_schema(data),
            contents=contents(data),
            arms=sorted_arms(comparability["arms"]) if comparability is not None else None,
            groups=sorted_groups(comparability["groups"]) if comparability is not None else None,
        )
