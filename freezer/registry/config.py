"""The registry config (``freezer.yaml``) as plain records.

The registry root is the folder holding ``freezer.yaml``; every relative
path in the config is resolved against it.
"""

from pathlib import Path, PurePosixPath
from typing import NamedTuple

from freezer.domain.errors import InvalidInput, UsageError
from freezer.domain.fixturekind import FixtureKindRecord
from freezer.domain.jsontypes import JsonObject
from freezer.domain.problems import Problem, display_path
from freezer.git.globs import glob_problem
from freezer.kinds.catalog import config_problems, fixture_kind_name
from freezer.kinds.yamlfiles import schema_name
from freezer.parse.document import YamlDocument
from freezer.parse.yamlload import load_bytes, load_file
from freezer.registry.dimensions import default_dimensions
from freezer.registry.registry import parse_label
from freezer.runtime.limits import MAX_FILE_BYTES
from freezer.runtime.paths import unsafe_folder_reason
from freezer.schema import schemas, suiteschema

CONFIG_NAME = "freezer.yaml"
DEFAULT_VERSIONS = "versions"


# What an arm can depend on besides the suite's tool-surface dimensions: the binary, the code
# under test as a whole (the pinned SHA), the code at one fixture's ground-truth files, the run
# configuration (version.yaml's run:), the asset files (harness scripts among them) and the
# version record (the rest of version.yaml: purpose, provenance, caveats, sweep notes, ...).
# The data sources (version.yaml's sources:) and the environment (the container images the
# fixtures name) too.
ARM_DIMENSIONS = ("binary", "code", "code_sites", "run", "assets", "record", "sources", "environment")
# What exists only where there is code under test: an arm of a suite without code_repo cannot depend on it.
CODE_DIMENSIONS = ("binary", "code", "code_sites")


class SuiteConfig(NamedTuple):
    """One suite of freezer.yaml: its drafts, where its versions are frozen, and how the next cut reads them."""

    name: str
    drafts: Path
    versions: Path
    code_repo: Path | None  # None: no code under test (no pinned SHA, binary, tool surface nor code checks)
    tool_surface: tuple[str, ...]  # empty when there is no code under test
    dimensions: dict[str, str]
    # Arm name -> the suite-level dimensions its scores depend on (see freezer.compare.comparability).
    arms: dict[str, tuple[str, ...]]
    # "freezer.yaml:12" for each field, so problems found later can point back at the config.
    origins: dict[str, str]
    # Tool-surface globs that match nothing because that part of the surface is gone (a cut refuses
    # a scan glob that matches nothing unless it is listed here or was gone in the previous version).
    tool_surface_gone: tuple[str, ...] = ()
    template: Path | None = None
    kind: str = "graph"  # graph or generic (one YAML file a fixture), folders or records (freezer.kinds)
    schema: Path | None = None  # the suite's own fixture schema, instead of the kind's
    fixtures: str | None = None  # glob of the fixture files in the drafts; None: every YAML file
    # Kinds folders and records (see FixtureKindRecord): the task file, the field naming a fixture,
    # and which fixtures are dropped (a field holding the status, or a list of task ids).
    task_file: str | None = None
    task_id: str | None = None
    status_field: str | None = None
    dropped: tuple[str, ...] = ()
    max_file_bytes: int = MAX_FILE_BYTES
    # How many distinct allowed keys must sign a version for it to count as signed.
    signatures_required: int = 1
    # A string every fixture file must carry, so a copy found in training data can be recognised.
    canary: str | None = None

    def origin(self, key: str) -> str:
        return self.origins.get(key, CONFIG_NAME)

    @property
    def schema_key(self) -> str:
        """The fixture schema's name for :mod:`freezer.schema.schemas`: a built-in one or ``file:<path>``
        (a suite of kind folders or records without its own has none: see :attr:`fixture_kind`)."""
        if self.schema is not None:
            return f"file:{self.schema.resolve()}"
        return schema_name(self.kind)

    @property
    def fixture_kind(self) -> FixtureKindRecord:
        """How the next cut reads the suite's fixtures (recorded in its manifest unless they are
        freezer's own YAML files: see :meth:`FixtureKindRecord.of_manifest`)."""
        return FixtureKindRecord(
            fixture_kind_name(self.kind),
            self.fixtures or "",
            self.task_file,
            self.task_id,
            self.status_field,
            self.dropped,
        )


class RegistryConfig(NamedTuple):
    """freezer.yaml as loaded: the registry (its root is the folder holding the file) and its suites."""

    root: Path
    path: Path
    suites: dict[str, SuiteConfig]
    # Who publishes the benchmark and under which license (optional): the site's citation files
    # state them only when the config does, never a guess.
    license: str | None = None
    maintainer: str | None = None

    def suites_named(self, name: str | None) -> list[SuiteConfig]:
        """The named suite alone (a --suite option), or every suite when ``name`` is None or empty."""
        return [self.suite(name)] if name else list(self.suites.values())

    def suite(self, name: str | None) -> SuiteConfig:
        """The named suite, or the only one when ``name`` is None."""
        if name is None:
            if len(self.suites) == 1:
                return next(iter(self.suites.values()))
            names = ", ".join(sorted(self.suites))
            raise UsageError(
                f"{self.path}: several suites are configured ({names}); name one",
                hint="pass --suite NAME, or write the version as <suite>_vN",
            )
        if name not in self.suites:
            names = ", ".join(sorted(self.suites))
            raise UsageError(f"unknown suite {name!r}; {self.path} configures: {names}")
        return self.suites[name]


def suite_of_label(config: RegistryConfig, label: str, suite: str | None) -> SuiteConfig:
    """The suite a version label names (``graph_v2``), or ``suite``, or the only one."""
    owner, _ = parse_label(label)
    if owner is not None:
        if suite is not None and owner != suite:
            raise UsageError(f"{label!r} names suite {owner!r}, but the suite asked for is {suite!r}")
        return config.suite(owner)
    return config.suite(suite)


def versions_folder(raw: JsonObject) -> str:
    """Where a suite of a config keeps its versions, relative to the registry root: the one place
    that reads the ``versions`` key (the working config and a base commit's config alike)."""
    return str(raw.get("versions", DEFAULT_VERSIONS))


def find_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` that holds a freezer.yaml."""
    here = start.resolve()
    for candidate in (here, *here.parents):
        config = candidate / CONFIG_NAME
        if config.is_file():
            return candidate
        if config.exists() or config.is_symlink():
            raise UsageError(f"{display_path(config)}: is not a regular file; the registry config must be one")
    return None


def locate(registry: Path | None) -> Path:
    """The config file for ``--registry`` (a folder or file) or the current folder."""
    if registry is not None:
        path = registry / CONFIG_NAME if registry.is_dir() else registry
        if not path.exists():
            raise UsageError(
                f"{path}: no registry config here",
                hint=f"create {CONFIG_NAME} or point --registry at a registry root",
            )
        return path
    root = find_root(Path.cwd())
    if root is None:
        raise UsageError(
            f"no {CONFIG_NAME} found in {Path.cwd()} or any parent folder",
            hint="run inside a registry, pass --registry PATH, or try `freezer demo`",
        )
    return root / CONFIG_NAME


def _inside(
    root: Path, rel: str, doc: YamlDocument, where: tuple[str, str], problems: list[Problem], must_be: str = ""
) -> Path:
    """``rel`` under the registry root; ``must_be`` ("dir" or "file") also requires it to exist."""
    path = Path(rel)
    resolved = (root / path).resolve()
    if path.is_absolute() or ".." in path.parts or not resolved.is_relative_to(root.resolve()):
        problems.append(doc.problem(("suites", *where), f"{rel!r} points outside the registry root", "rule"))
    elif must_be == "dir" and not (root / path).is_dir():
        problems.append(doc.problem(("suites", *where), f"folder {rel!r} does not exist in the registry", "rule"))
    elif must_be == "file" and not (root / path).is_file():
        problems.append(doc.problem(("suites", *where), f"file {rel!r} does not exist in the registry", "rule"))
    return root / path


_RESERVED = (".git", ".freezer")


def _kind_problems(raw: JsonObject, doc: YamlDocument, name: str) -> list[Problem]:
    """What the suite's kind needs of its keys, and what it must not have (asked of the kind)."""
    kind = raw.get("kind", "graph")
    if not isinstance(kind, str):
        return []  # the schema says it is a name
    return [doc.problem(("suites", name, key), message, "config") for key, message in config_problems(kind, raw)]


def _layout_problems(root: Path, drafts: Path, versions: Path, doc: YamlDocument, name: str) -> list[Problem]:
    """The versions folder is written by every cut: it must be a folder of its own, inside the registry,
    apart from the drafts and from git's and freezer's own folders."""
    found: list[Problem] = []

    def refuse(key: str, message: str) -> None:
        found.append(doc.problem(("suites", name, key), message, "config"))

    real_root, real_versions, real_drafts = root.resolve(), versions.resolve(), drafts.resolve()
    if not real_versions.is_relative_to(real_root):
        return found  # already reported as outside the registry root
    if real_versions == real_root:
        refuse("versions", "the versions folder cannot be the registry root; name a folder, e.g. versions")
    elif real_drafts == real_root:
        refuse("drafts", "the drafts folder cannot be the registry root: the versions and freezer.yaml would be drafts")
    elif real_drafts.is_relative_to(real_versions) or real_versions.is_relative_to(real_drafts):
        refuse("versions", f"the versions folder and the drafts folder {display_path(drafts)} overlap; keep them apart")
    rel = versions.relative_to(root) if versions.is_relative_to(root) else None
    if rel is not None and rel.parts and rel.parts[0] in _RESERVED:
        refuse(
            "versions",
            f"{rel.parts[0]}/ belongs to {'git' if rel.parts[0] == '.git' else 'freezer'}; keep the versions elsewhere",
        )
    why = unsafe_folder_reason(root, versions)
    if why is not None:
        refuse("versions", f"the versions folder {why}")
    return found


def load_config(path: Path) -> RegistryConfig:
    """Read and check a registry config; raises with every problem found."""
    display = display_path(path)
    result = load_file(path, display)
    if result.document is None:
        raise InvalidInput(f"{display}: the registry config cannot be read", result.problems)
    doc = result.document
    problems = [doc.problem(p, m, "schema") for p, m in schemas.schema_errors(schemas.REGISTRY, doc.data)]
    if problems:
        raise InvalidInput(f"{display}: the registry config is invalid", problems)
    root = path.resolve().parent
    suites: dict[str, SuiteConfig] = {}
    for name, raw in doc.data["suites"].items():
        # A missing drafts folder is validate's and cut's to report: it must not block auditing what is frozen.
        drafts = _inside(root, raw["drafts"], doc, (name, "drafts"), problems)
        if drafts.exists() and not drafts.is_dir():
            problems.append(doc.problem(("suites", name, "drafts"), f"{raw['drafts']!r} is not a folder", "rule"))
        versions = _inside(root, versions_folder(raw), doc, (name, "versions"), problems)
        problems.extend(_layout_problems(root, drafts, versions, doc, name))
        for index, glob in enumerate(raw.get("tool_surface") or ()):
            why = glob_problem(glob)
            if why:
                problems.append(doc.problem(("suites", name, "tool_surface", index), why, "config"))
        template = raw.get("template")
        schema = raw.get("schema")
        schema_path = _inside(root, schema, doc, (name, "schema"), problems, "file") if schema else None
        if schema_path is not None and not problems:
            why = suiteschema.problem(schema_path)
            if why:
                problems.append(doc.problem(("suites", name, "schema"), why, "config"))
        if raw.get("fixtures"):
            why = glob_problem(raw["fixtures"])
            if why:
                problems.append(doc.problem(("suites", name, "fixtures"), why, "config"))
        problems.extend(_kind_problems(raw, doc, name))
        has_code = "code_repo" in raw
        for key in ("tool_surface", "tool_surface_gone"):
            if key in raw and not has_code:
                why = f"{key} names paths in the code under test, but the suite names no code_repo"
                problems.append(doc.problem(("suites", name, key), why, "config"))
        dimensions = dict(
            raw.get("dimensions")
            or default_dimensions(
                raw.get("kind", "graph"),
                has_code,
                bool(raw.get("tool_surface")),
                {need for needs in (raw.get("arms") or {}).values() for need in needs},
            )
        )
        arms = {arm: tuple(needs) for arm, needs in (raw.get("arms") or {}).items()}
        known = {*dimensions, *ARM_DIMENSIONS}
        for arm, needs in arms.items():
            for index, need in enumerate(needs):
                if need in CODE_DIMENSIONS and not has_code:
                    why = (
                        f"arm {arm!r} depends on {need!r}, but the suite names no code_repo: with no code "
                        f"under test there is no {need} to move; depend on the suite's other dimensions "
                        f"({', '.join([*dimensions, *(d for d in ARM_DIMENSIONS if d not in CODE_DIMENSIONS)])})"
                    )
                    problems.append(doc.problem(("suites", name, "arms", arm, index), why, "config"))
                elif need not in known:
                    why = (
                        f"arm {arm!r} depends on {need!r}, which is not a dimension: use one of the suite's "
                        f"dimensions ({', '.join(dimensions)}) or {', '.join(ARM_DIMENSIONS)}"
                    )
                    problems.append(doc.problem(("suites", name, "arms", arm, index), why, "config"))
        code = Path(raw["code_repo"]) if has_code else None
        origins = {key: f"{display}:{doc.locate(('suites', name, key))[0]}" for key in raw}
        suites[name] = SuiteConfig(
            name=name,
            drafts=drafts,
            versions=versions,
            code_repo=None if code is None else code if code.is_absolute() else root / code,
            tool_surface=tuple(raw.get("tool_surface") or ()),
            tool_surface_gone=tuple(raw.get("tool_surface_gone") or ()),
            dimensions=dimensions,
            arms=arms,
            signatures_required=raw.get("signatures_required", 1),
            canary=raw.get("canary"),
            template=_inside(root, template, doc, (name, "template"), problems, "file") if template else None,
            kind=raw.get("kind", "graph"),
            schema=schema_path,
            fixtures=raw.get("fixtures"),
            task_file=raw.get("task_file"),
            task_id=raw.get("task_id"),
            status_field=raw.get("status_field"),
            dropped=tuple(raw.get("dropped") or ()),
            max_file_bytes=raw.get("max_file_bytes", MAX_FILE_BYTES),
            origins=origins,
        )
    if problems:
        raise InvalidInput(f"{display}: the registry config is invalid", problems)
    return RegistryConfig(
        root=root, path=path, suites=suites, license=doc.data.get("license"), maintainer=doc.data.get("maintainer")
    )


class FrozenLayout(NamedTuple):
    """What a registry config (at some commit) says about one suite's frozen versions."""

    name: str
    versions: str  # relative to the registry root, '/'-separated
    tool_surface: tuple[str, ...]


def frozen_layouts(data: bytes, display: str) -> tuple[dict[str, FrozenLayout], list[Problem]]:
    """The suites of a config read from git: no file system checks, since its folders need not exist now."""
    result = load_bytes(data, display)
    if result.document is None:
        return {}, result.problems
    doc = result.document
    problems = [doc.problem(p, m, "schema") for p, m in schemas.schema_errors(schemas.REGISTRY, doc.data)]
    if problems:
        return {}, problems
    layouts = {}
    for name, raw in doc.data["suites"].items():
        folder = PurePosixPath(versions_folder(raw))
        if folder.is_absolute() or ".." in folder.parts:
            problems.append(doc.problem(("suites", name, "versions"), "points outside the registry root", "config"))
            continue
        layouts[name] = FrozenLayout(name, folder.as_posix(), tuple(raw.get("tool_surface") or ()))
    return layouts, problems


def load(registry: Path | None) -> RegistryConfig:
    return load_config(locate(registry))
