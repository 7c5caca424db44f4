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
from freezer.domain.manifestfields import RecordedConfig
from freezer.domain.problems import Problem, display_path
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.dimensions import DEFAULT_DIMENSIONS, default_arms, format_2_default_arms
from freezer.registry.model import Suite
from freezer.registry.registry import FROZEN_SCHEMA
from freezer.runtime.limits import MAX_SCHEMA_BYTES, MAX_TEMPLATE_BYTES
from freezer.runtime.reading import read_whole

HINT = "cut the next version in the same change: the next cut records this as moved (checks) in its delta"


def _origin(suite: SuiteConfig, key: str) -> tuple[str, int | None]:
    where, _, line = suite.origin(key).rpartition(":")
    return (where, int(line)) if where and line.isdigit() else (suite.origin(key), None)


def _listed(items: Sequence[str]) -> str:
    return ", ".join(items[:5]) + (" …" if len(items) > 5 else "")


def _defaulted_dimensions(suite: SuiteConfig, frozen: RecordedConfig) -> list[str]:
    """The dimensions the default arms are made of: the suite's, or, where freezer.yaml names none
    and the version was cut when every suite defaulted to the graph's, those."""
    recorded = frozen.dimensions
    if "dimensions" not in suite.origins and recorded is not None and dict(recorded) == DEFAULT_DIMENSIONS:
        return list(DEFAULT_DIMENSIONS)
    return list(suite.dimensions)


def _arms(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    if recorded.arms is None:
        return []
    dimensions = _defaulted_dimensions(suite, recorded)
    configured = suite.arms or default_arms(dimensions, code=suite.code_repo is not None)
    now = {arm: tuple(configured[arm]) for arm in sorted(configured)}
    frozen = dict(recorded.arms)
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
    return [f"arms: {_listed(changed)} differ from what {recorded.name} was cut with"] if changed else []


def _groups(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    if recorded.groups is None:
        return []
    now, frozen = Suite.of(suite).configured_groups(), dict(recorded.groups)
    moved = [
        f"{name} ({frozen.get(name, 'input')} → {now.get(name, 'input')})"
        for name in sorted({*now, *frozen})
        if now.get(name, "input") != frozen.get(name, "input")
    ]
    if not moved:
        return []
    return [f"the fixture schema moves fields to another group: {_listed(moved)}; {recorded.name} was cut with the old"]


def _dimensions(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    frozen = recorded.dimensions
    if frozen is None or list(frozen.items()) == list(suite.dimensions.items()):
        return []
    if "dimensions" not in suite.origins and dict(frozen) == DEFAULT_DIMENSIONS:
        return []  # cut when every suite defaulted to the graph's dimensions: the default moved, not the config
    changed = [n for n in {**suite.dimensions, **frozen} if suite.dimensions.get(n) != frozen.get(n)]
    detail = _listed(changed) if changed else "their order"
    return [f"dimensions: {detail} differ from what {recorded.name} was cut with"]


def _template(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    if suite.template is None:
        return []
    digest = hashlib.sha256(read_whole(suite.template, MAX_TEMPLATE_BYTES)).hexdigest()
    if digest == recorded.template_sha256:
        return []
    return [f"the METHOD.md template differs from the copy {recorded.name} froze (METHOD.md.j2)"]


def _schema_named(kind: str, suite: SuiteConfig | None = None) -> str:
    if kind == "custom":
        return f"the suite's own schema ({display_path(suite.schema)})" if suite and suite.schema else "its own schema"
    return f"the built-in {kind} schema"


def _kind(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    now = "custom" if suite.schema is not None else suite.kind
    frozen = recorded.fixture_schema_kind
    if now == frozen:
        return []
    return [
        f"the fixtures now follow {_schema_named(now, suite)}, but {recorded.name} was cut with {_schema_named(frozen)}"
    ]


def _schema(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    schema = recorded.fixture_schema
    if suite.schema is None or schema is None or schema[0] != "custom":
        return []  # a change of kind is _kind's
    digest = hashlib.sha256(read_whole(suite.schema, MAX_SCHEMA_BYTES)).hexdigest()
    if digest == schema[1]:
        return []
    return [
        f"the fixture schema {display_path(suite.schema)} differs from the copy {recorded.name} froze "
        f"({FROZEN_SCHEMA}), though the field groups it gives may not"
    ]


def _fixtures(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    if recorded.contents is None:
        return []
    fixtures, assets = recorded.contents
    owner = Suite.of(suite)
    lost = [rel for rel in fixtures if not owner.is_draft_fixture(rel)]
    gained = [rel for rel in assets if owner.is_draft_fixture(rel)]
    found = []
    if lost:
        found.append(f"the fixtures glob no longer matches {recorded.name}'s fixtures {_listed(lost)}")
    if gained:
        found.append(f"the fixtures glob now matches {recorded.name}'s assets {_listed(gained)}")
    return found


def _globs(suite: SuiteConfig, recorded: RecordedConfig) -> list[str]:
    added = [g for g in suite.tool_surface if g not in recorded.globs]
    dropped = [g for g in recorded.globs if g not in suite.tool_surface]
    found = []
    if added:
        found.append(f"tool_surface adds {_listed(added)}, which {recorded.name} did not scan")
    if dropped:
        found.append(f"tool_surface drops {_listed(dropped)}, which {recorded.name} scanned")
    return found


def _schema_key(suite: SuiteConfig) -> str:
    """Where a change of fixture schema is written: ``schema:`` when the suite names its own, else ``kind:``."""
    return "schema" if suite.schema is not None or "schema" in suite.origins else "kind"


_CHECKS: tuple[tuple[str | Callable[[SuiteConfig], str], Callable[[SuiteConfig, RecordedConfig], list[str]]], ...] = (
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
            recorded = RecordedConfig.from_data(latest.manifest())
        except (FreezerError, OSError, KeyError, TypeError, ValueError, AttributeError):
            continue  # its audit reports why
        for key, check in _CHECKS:
            try:
                messages = check(suite, recorded)
            except (FreezerError, OSError, ValueError) as exc:
                detail = exc.message if isinstance(exc, FreezerError) else str(exc)
                messages = [f"cannot be compared with what {recorded.name} was cut with: {detail}"]
            name = key if isinstance(key, str) else key(suite)
            where, line = _origin(suite, name)
            for message in messages:
                text = f"suite {suite.name!r}: {message}; {HINT}"
                found.append(Problem(where, line, None, ("suites", suite.name, name), text, "frozen"))
    return found
