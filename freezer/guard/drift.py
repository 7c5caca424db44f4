"""Config edits that would change what a frozen version means, found by ``freezer check``.

A frozen version answers every question about itself from its own record (its
arms, field groups, dimensions, template, fixture files, tool-surface globs,
the fixture schema its fixtures met: a built-in kind or the suite's own),
so editing freezer.yaml cannot change what the past says. But an edit made
after the latest cut, with no cut beside it, leaves the config saying one thing
and the latest version another: whoever reads the config believes the edit
applies to the scores already collected. ``check`` refuses such a change (an
error, exit 1), naming the freezer.yaml line and the version: cut the next
version in the same change, and its delta records the edit as moved (the
``checks`` dimension: ``arm …``, ``field group …``, ``dimension …``, the
template, the globs). Only what a version's manifest format recorded is
compared: a version cut before arms were recorded has no arms to disagree with.
The template is compared when freezer.yaml names one (the shipped template
changes with freezer itself, which is no config edit); for the same reason a
built-in schema is compared by its kind, and a suite's own schema by its bytes,
whether or not the field groups it gives moved (a new bound or a new required
field changes what a valid fixture is, and no group says so).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from freezer.domain.errors import FreezerError
from freezer.domain.manifest import Manifest
from freezer.domain.problems import Problem, display_path
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.dimensions import DEFAULT_DIMENSIONS
from freezer.registry.model import Suite
from freezer.registry.record import arms_of, default_arms, format_2_default_arms
from freezer.registry.registry import FROZEN_SCHEMA
from freezer.runtime.limits import MAX_SCHEMA_BYTES, MAX_TEMPLATE_BYTES
from freezer.runtime.reading import read_whole

HINT = "cut the next version in the same change: the next cut records this as moved (checks) in its delta"


def _origin(suite: SuiteConfig, key: str) -> tuple[str, int | None]:
    where, _, line = suite.origin(key).rpartition(":")
    return (where, int(line)) if where and line.isdigit() else (suite.origin(key), None)


def _listed(items: Sequence[str]) -> str:
    return ", ".join(items[:5]) + (" …" if len(items) > 5 else "")


def _defaulted_dimensions(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    """The dimensions the default arms are made of: the suite's, or, where freezer.yaml names none
    and the version was cut when every suite defaulted to the graph's, those."""
    recorded = manifest.checks.dimensions
    if "dimensions" not in suite.origins and recorded is not None and dict(recorded) == DEFAULT_DIMENSIONS:
        return list(DEFAULT_DIMENSIONS)
    return list(suite.dimensions)


def _arms(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    if manifest.comparability is None:
        return []
    dimensions = _defaulted_dimensions(suite, manifest)
    configured = suite.arms or default_arms(dimensions, code=suite.code_repo is not None)
    now = {arm: tuple(configured[arm]) for arm in sorted(configured)}
    frozen = arms_of(manifest)
    if not suite.arms and frozen == format_2_default_arms(dimensions):
        return []  # the default an earlier freezer recorded, not a config change
    code = suite.code_repo is not None
    defaults = [
        default_arms(dimensions, code=code, sources=sources, environment=environment)
        for sources in (False, True)
        for environment in (False, True)
    ]
    if not suite.arms and any(frozen == {a: tuple(n) for a, n in d.items()} for d in defaults):
        return []  # the default arm also depends on sources and images when a version has them
    changed = sorted(arm for arm in {*now, *frozen} if now.get(arm) != frozen.get(arm))
    return [f"arms: {_listed(changed)} differ from what {manifest.name} was cut with"] if changed else []


def _groups(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    recorded = manifest.comparability
    if recorded is None:
        return []
    now, frozen = Suite.of(suite).configured_groups(), dict(recorded.groups)
    moved = [
        f"{name} ({frozen.get(name, 'input')} → {now.get(name, 'input')})"
        for name in sorted({*now, *frozen})
        if now.get(name, "input") != frozen.get(name, "input")
    ]
    if not moved:
        return []
    return [f"the fixture schema moves fields to another group: {_listed(moved)}; {manifest.name} was cut with the old"]


def _dimensions(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    frozen = manifest.checks.dimensions
    if frozen is None or list(frozen.items()) == list(suite.dimensions.items()):
        return []
    if "dimensions" not in suite.origins and dict(frozen) == DEFAULT_DIMENSIONS:
        return []  # cut when every suite defaulted to the graph's dimensions: the default moved, not the config
    changed = [n for n in {**suite.dimensions, **frozen} if suite.dimensions.get(n) != frozen.get(n)]
    detail = _listed(changed) if changed else "their order"
    return [f"dimensions: {detail} differ from what {manifest.name} was cut with"]


def _template(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    if suite.template is None:
        return []
    digest = hashlib.sha256(read_whole(suite.template, MAX_TEMPLATE_BYTES)).hexdigest()
    if digest == manifest.checks.template_sha256:
        return []
    return [f"the METHOD.md template differs from the copy {manifest.name} froze (METHOD.md.j2)"]


def _schema_named(kind: str, suite: SuiteConfig | None = None) -> str:
    if kind == "custom":
        return f"the suite's own schema ({display_path(suite.schema)})" if suite and suite.schema else "its own schema"
    return f"the built-in {kind} schema"


def _kind(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    now = "custom" if suite.schema is not None else suite.kind
    frozen = manifest.checks.fixture_schema_kind
    if now == frozen:
        return []
    return [
        f"the fixtures now follow {_schema_named(now, suite)}, but {manifest.name} was cut with {_schema_named(frozen)}"
    ]


def _schema(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    recorded = manifest.checks.fixture_schema
    if suite.schema is None or recorded is None or recorded.kind != "custom":
        return []  # a change of kind is _kind's
    digest = hashlib.sha256(read_whole(suite.schema, MAX_SCHEMA_BYTES)).hexdigest()
    if digest == recorded.sha256:
        return []
    return [
        f"the fixture schema {display_path(suite.schema)} differs from the copy {manifest.name} froze "
        f"({FROZEN_SCHEMA}), though the field groups it gives may not"
    ]


def _fixtures(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    contents = manifest.contents
    if contents is None:
        return []
    owner = Suite.of(suite)
    lost = [rel for rel in contents.fixtures if not owner.is_draft_fixture(rel)]
    gained = [rel for rel in contents.assets if owner.is_draft_fixture(rel)]
    found = []
    if lost:
        found.append(f"the fixtures glob no longer matches {manifest.name}'s fixtures {_listed(lost)}")
    if gained:
        found.append(f"the fixtures glob now matches {manifest.name}'s assets {_listed(gained)}")
    return found


def _globs(suite: SuiteConfig, manifest: Manifest) -> list[str]:
    added = [g for g in suite.tool_surface if g not in manifest.globs]
    dropped = [g for g in manifest.globs if g not in suite.tool_surface]
    found = []
    if added:
        found.append(f"tool_surface adds {_listed(added)}, which {manifest.name} did not scan")
    if dropped:
        found.append(f"tool_surface drops {_listed(dropped)}, which {manifest.name} scanned")
    return found


def _schema_key(suite: SuiteConfig) -> str:
    """Where a change of fixture schema is written: ``schema:`` when the suite names its own, else ``kind:``."""
    return "schema" if suite.schema is not None or "schema" in suite.origins else "kind"


_CHECKS: tuple[tuple[str | Callable[[SuiteConfig], str], Callable[[SuiteConfig, Manifest], list[str]]], ...] = (
    ("arms", _arms),
    ("schema", _groups),
    (_schema_key, _kind),
    ("schema", _schema),
    ("dimensions", _dimensions),
    ("template", _template),
    ("fixtures", _fixtures),
    ("tool_surface", _globs),
)


def drift(config: RegistryConfig) -> list[Problem]:
    """Every config edit since each suite's latest version that would change what it says."""
    found: list[Problem] = []
    for suite in config.suites.values():
        latest = Suite.of(suite).latest()
        if latest is None:
            continue
        try:
            manifest = latest.manifest_model()
        except (FreezerError, OSError, KeyError, TypeError, ValueError):
            continue  # its audit reports why
        for key, check in _CHECKS:
            try:
                messages = check(suite, manifest)
            except (FreezerError, OSError, ValueError) as exc:
                detail = exc.message if isinstance(exc, FreezerError) else str(exc)
                messages = [f"cannot be compared with what {manifest.name} was cut with: {detail}"]
            name = key if isinstance(key, str) else key(suite)
            where, line = _origin(suite, name)
            for message in messages:
                text = f"suite {suite.name!r}: {message}; {HINT}"
                found.append(Problem(where, line, None, ("suites", suite.name, name), text, "frozen"))
    return found
