"""How a version's fixtures are read from its files: the record of a fixture kind.

Every suite has a kind (:mod:`freezer.kinds`). freezer's own format, one YAML (or JSON) file per
fixture holding its ``task_id`` and ``status`` (suites of kind graph and generic), is the kind named
:data:`YAML_FILES`; the other kinds read a benchmark in its own format.
"""

from typing import TYPE_CHECKING, NamedTuple

from freezer.domain.jsontypes import JsonObject

if TYPE_CHECKING:
    # An annotation only: domain.model's dataclasses are not built for the hooks, which read kinds.
    from freezer.domain.model import Raw

# A kind's name, one the catalog of kinds knows (freezer.kinds.catalog.KINDS).
FixtureKindName = str
# freezer's own format: one YAML (or JSON) file per fixture. Never written into a manifest: a
# manifest without a fixture_kind record (every graph and generic version, and every version cut
# before kinds existed) is read as this kind, so those manifests stay byte for byte as they were.
YAML_FILES = "yaml"
# The fields of that format that hold file:line sites in the code under test (domain.model.Site).
SITE_LISTS = ("ground_truth", "traps")
# The rules by which a fixture's dependency closure is computed (freezer.kinds.closure): 0, what a
# fixture names (every version cut before the closure existed: a manifest without
# "dependency_closure"); 1, also what its Python modules import and an lm-eval group's overrides;
# 2, also the Dockerfile each compose file it names builds (whatever its name: Dockerfile-cuda),
# and the modules a Python file imports through a call (importlib.import_module("pkg.mod")).
# A frozen version is read by the rules it was cut with, so its digests and delta stay as recorded.
CLOSURE_RULES = 2
# The first rules under which a compose file's built Dockerfiles are part of the closure.
COMPOSE_BUILDS_SINCE = 2
# The first rules under which importlib.import_module / __import__ calls are read as imports.
IMPORT_CALLS_SINCE = 2


class FixtureKindRecord(NamedTuple):
    """How the fixtures of a version are read from its files: recorded in the manifest
    (``fixture_kind``) for the kinds that read a benchmark's own files, so that a later freezer.yaml
    cannot change how a frozen version is read."""

    kind: FixtureKindName
    # The glob (for folders, ending in "/": it names the fixture folders). Empty for kind yaml when
    # the suite names none, and in every frozen yaml version: the manifest lists its fixture files.
    fixtures: str
    task_file: str | None = None  # folders: the file in each folder holding the task's fields
    task_id: str | None = None  # the field naming a fixture; None (folders only): the folder's name
    status_field: str | None = None  # the field whose value is the status; None: landed
    dropped: tuple[str, ...] = ()  # task ids dropped by the suite (instead of a status field)
    closure: int = CLOSURE_RULES  # the dependency-closure rules (a manifest's "dependency_closure")

    @classmethod
    def from_data(cls, data: "Raw", closure: int = 0) -> "FixtureKindRecord":
        return cls(
            data["kind"],
            data["fixtures"],
            data.get("task_file"),
            data.get("task_id"),
            data.get("status_field"),
            tuple(data.get("dropped") or ()),
            closure,
        )

    @classmethod
    def of_manifest(cls, data: "Raw") -> "FixtureKindRecord":
        """The kind a manifest records, and the one place its absence is read: freezer's own YAML files.
        Its closure rules are the manifest's ``dependency_closure`` (absent: 0, before the closure)."""
        closure = data.get("dependency_closure", 0)
        recorded = data.get("fixture_kind")
        return cls.from_data(recorded, closure) if recorded else YAML_FILES_RECORD._replace(closure=closure)

    def manifest_entry(self) -> "JsonObject | None":
        """What a manifest records of this kind: nothing for freezer's own YAML files (see
        :meth:`of_manifest`), so a graph or generic version's manifest keeps its shape."""
        return None if self.kind == YAML_FILES else self.to_json()

    def to_json(self) -> JsonObject:
        out: JsonObject = {"kind": self.kind, "fixtures": self.fixtures}
        for key, value in (
            ("task_file", self.task_file),
            ("task_id", self.task_id),
            ("status_field", self.status_field),
        ):
            if value is not None:
                out[key] = value
        if self.dropped:
            out["dropped"] = list(self.dropped)
        return out


# The record of freezer's own YAML files as a manifest implies it (no glob: the manifest lists the files).
YAML_FILES_RECORD = FixtureKindRecord(YAML_FILES, "", closure=0)
