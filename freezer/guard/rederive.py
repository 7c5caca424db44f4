"""Re-derive what a frozen version claims from its frozen data: the chain, delta.json,
METHOD.md and the provenance statement (part of ``freezer audit``)."""

from __future__ import annotations

import json
from collections.abc import Callable

from freezer.compare import delta_v1
from freezer.compare.comparerecord import frozen_differences
from freezer.compare.delta import DELTA_FORMAT
from freezer.compare.delta import compute as compute_delta
from freezer.compare.deltamodel import Delta
from freezer.domain.errors import FreezerError
from freezer.domain.jsontypes import JsonObject
from freezer.domain.manifest import Manifest
from freezer.domain.model import Raw
from freezer.domain.problems import display_path
from freezer.domain.release import __version__
from freezer.domain.steps import Step
from freezer.kinds.catalog import closure_growth, kind_of
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.registry.model import ChainBroken, Suite
from freezer.registry.record import (
    FORMAT_1_DIMENSIONS,
    dimensions_of,
    load_frozen_drafts,
    read_version_files,
    side,
)
from freezer.registry.registry import STATEMENT, frozen_fixture_files
from freezer.registry.verdict import Failure, VersionAudit
from freezer.render.attest import statement_bytes
from freezer.render.method import method_from_files
from freezer.render.named import delta_sections, unnamed_dimensions
from freezer.render.shown import Unshown
from freezer.runtime.reading import read_whole
from freezer.validate.rules import missing_canary


def check_rendered(
    suite: SuiteConfig,
    frozen: registry.FrozenVersion,
    manifest: Manifest,
    manifest_bytes: bytes,
    data: dict[str, bytes],
    files: dict[str, str],
    result: VersionAudit,
) -> None:
    """The chain, METHOD.md and the provenance statement, re-derived from the frozen data."""
    where = display_path(frozen.path)

    def fail(rel: str, message: str) -> None:
        result.failures.append(Failure(f"{where}/{rel}", message))

    _check_chain(suite, frozen, manifest, data, result)
    unshown: list[Unshown] = []
    try:
        method = method_from_files(data, manifest_bytes, unshown=unshown)
    except FreezerError as exc:
        fail(registry.METHOD, f"cannot be re-rendered: {exc.message}")
        return
    except Exception as exc:  # noqa: BLE001 - a tampered template can fail in any way
        fail(registry.METHOD, f"cannot be re-rendered: {type(exc).__name__}: {exc}")
        return
    if manifest.format >= 3 and STATEMENT in files:
        if statement_bytes(manifest_bytes, method.encode("utf-8")) != read_whole(files[STATEMENT]):
            fail(STATEMENT, "differs from the provenance statement the frozen manifest and METHOD.md give")
        else:
            result.checks.append(Step("statement", "provenance statement re-derived"))
    frozen_method = read_whole(files[registry.METHOD]) if registry.METHOD in files else None
    if frozen_method is not None and method.encode("utf-8") != frozen_method:
        cut_by = manifest.freezer_version
        note = f" (cut by freezer {cut_by}, audited by {__version__})" if cut_by != __version__ else ""
        fail(registry.METHOD, f"differs from what the frozen data renders to{note}")
    else:
        result.checks.append(Step("method", "METHOD.md reproduced"))
    if unshown:
        # Frozen before cut refused such a template: the version stands as frozen, and is said once.
        first = unshown[0]
        more = f" (and {len(unshown) - 1} more)" if len(unshown) > 1 else ""
        at = f"{where}/{registry.METHOD}:{first.line}"
        hidden = f"does not show §Delta as a viewer reads it: {first.message}{more}"
        result.hidden_delta = Failure(at, hidden)
        result.warnings.append(
            Failure(
                at,
                f"{hidden}. The version stays as frozen; a cut now refuses its template, so fix the template "
                "before the next cut",
            )
        )
    _check_named(frozen_method, data, fail)


def _check_named(frozen_method: bytes | None, data: dict[str, bytes], fail: Callable[[str, str], None]) -> None:
    """Every dimension delta.json records as moved or unknown is named in METHOD.md's §Delta, for
    every version: a template that rendered "Nothing moved" beside a moved surface fails here."""
    if frozen_method is None:
        return  # the integrity check already reports a missing METHOD.md
    try:
        delta = json.loads(data[registry.DELTA])
    except (KeyError, ValueError, RecursionError):
        return  # the delta check reports an unreadable delta.json
    text = frozen_method.decode("utf-8", errors="replace")
    missing = unnamed_dimensions(text, delta)
    if not missing:
        return
    where = "its §Delta" if delta_sections(text) else "it (it has no §Delta section: no heading names Delta)"
    fail(
        registry.METHOD,
        f"hides what moved: delta.json records {', '.join(repr(d) for d in missing)} as moved or unknown, "
        f"and {where} does not name {'it' if len(missing) == 1 else 'them'}",
    )


def _check_chain(
    suite: SuiteConfig,
    frozen: registry.FrozenVersion,
    manifest: Manifest,
    data: dict[str, bytes],
    result: VersionAudit,
) -> None:
    claimed = manifest.previous
    try:
        previous = Suite.of(suite).predecessor(frozen, claimed)
    except ChainBroken as exc:
        result.failures.append(Failure(exc.file, exc.detail))
        return
    if previous is None or claimed is None:
        result.checks.append(Step("chain", "first version of the suite"))
        _check_delta(suite, None, manifest, data, result)
        return
    try:
        actual = previous.manifest_sha256()
    except OSError:
        result.failures.append(
            Failure(display_path(previous.path), f"chain broken: {previous.name}'s manifest is missing")
        )
        return
    if actual != claimed[1]:
        result.failures.append(
            Failure(
                f"{display_path(previous.path)}/{registry.MANIFEST}",
                f"chain broken: {previous.name} was replaced or rewritten after {frozen.name} was cut "
                f"(manifest sha256 {actual} != recorded {claimed[1]})",
            )
        )
        return
    result.checks.append(Step("chain", f"chain to {previous.name} intact"))
    _check_delta(suite, previous, manifest, data, result)


def _check_delta(
    suite: SuiteConfig,
    previous: registry.FrozenVersion | None,
    manifest: Manifest,
    data: dict[str, bytes],
    result: VersionAudit,
) -> None:
    """delta.json must be what the delta engine of its manifest format computes from the chain."""
    try:
        frozen_delta = json.loads(data[registry.DELTA])
        version, fixtures = read_version_files(data, frozen_fixture_files(manifest), manifest.fixture_kind)
        current = side(manifest, version, fixtures)
        if manifest.format == 1:
            if previous is None:
                return  # 0.1.0 wrote a first version's delta without comparing anything
            before = previous.manifest_model()
            _, old_fixtures = load_frozen_drafts(previous, before)
            meanings = {entry["dimension"]: entry["meaning"] for entry in frozen_delta.get("tool_surface") or []}
            recomputed: JsonObject = delta_v1.compute(
                _v1_side(before, old_fixtures), _v1_side(manifest, fixtures), meanings or FORMAT_1_DIMENSIONS
            )
        else:
            chain = [current]
            if previous is not None:
                before = previous.manifest_model()
                old_version, old_fixtures = load_frozen_drafts(previous, before)
                chain = [side(before, old_version, old_fixtures), current]
            recomputed = compute_delta(
                chain, dimensions_of(current.manifest), delta_format=frozen_delta.get("delta_format", DELTA_FORMAT)
            ).to_json()
    except (OSError, ValueError, KeyError, TypeError, FreezerError) as exc:
        detail = exc.message if isinstance(exc, FreezerError) else str(exc)
        result.failures.append(
            Failure(f"{display_path(result.path)}/{registry.DELTA}", f"cannot be recomputed from the chain: {detail}")
        )
        return
    if recomputed != frozen_delta:
        result.failures.append(
            Failure(
                f"{display_path(result.path)}/{registry.DELTA}", "does not match the delta recomputed from the chain"
            )
        )
    else:
        result.checks.append(Step("delta", "delta.json recomputed"))
        _closure_note(manifest, data, result)
        warning = unchanged_yet_changed(frozen_delta)
        if warning:
            result.warnings.append(Failure(f"{display_path(result.path)}/{registry.DELTA}", warning))
    if manifest.canary:
        texts = {
            rel: data[rel]
            for rel in kind_of(manifest.fixture_kind).canary_files(frozen_fixture_files(manifest))
            if rel in data
        }
        for rel in missing_canary(manifest.canary, texts):
            result.failures.append(Failure(f"{display_path(result.path)}/{rel}", "does not carry the canary string"))
    if manifest.format >= 3:
        where = f"{display_path(result.path)}/{registry.COMPARABILITY}"
        found = frozen_differences(suite, current, data.get(registry.COMPARABILITY, b""))
        result.failures.extend(Failure(where, message) for message in found)
        if not found:
            result.checks.append(Step("comparability", "comparability recomputed"))


def _closure_note(manifest: Manifest, data: dict[str, bytes], result: VersionAudit) -> None:
    """Once per version cut before freezer followed imports and group overrides, if that changes any
    task: the version stands as recorded (its digests and delta were derived by its own rules)."""
    grown = closure_growth(manifest.fixture_kind, data, frozen_fixture_files(manifest))
    if grown:
        shown = ", ".join(grown[:5]) + (f" and {len(grown) - 5} more" if len(grown) > 5 else "")
        why = "cut before freezer followed Python imports and group overrides; its record stands as cut"
        result.checks.append(Step("closure", f"{why} (today {shown} would depend on more files or modules)"))


def _v1_side(manifest: Manifest, fixtures: list[JsonObject]) -> delta_v1.Side:
    """A version as 0.1.0's delta engine (kept unchanged in delta_v1) takes it."""
    commits = [c.to_json() for c in manifest.commits]
    binary = manifest.binary.raw if manifest.binary is not None else {}  # format 1 always recorded one
    return delta_v1.side(manifest.name, manifest.pinned_sha, dict(binary), commits, fixtures)


# What audit says about a frozen delta.json that recomputes byte for byte yet reads wrong: a defect
# of the delta format it was cut in, reported as a warning, never rewritten (the version is frozen)
# and never a failure (its engine computed exactly that, and comparability.json, which decides which
# scores compare, named those fixtures correctly).
def unchanged_yet_changed(frozen: Raw) -> str | None:
    """Delta format 4 listed a fixture whose own fields stayed while a file of it changed both under
    "changed through their files" and under "unchanged"; format 5 lists it as changed only. The
    warning names those fixtures and their files, or None when the delta has no such fixture."""
    try:
        delta = Delta.from_json(frozen)
    except (KeyError, TypeError, ValueError):
        return None  # not a typed delta (0.1.0's): it has no changed_through_files to contradict
    if delta.fixtures is None:
        return None
    both = delta.fixtures.unchanged_yet_changed()
    if not both:
        return None
    files = sorted({rel for f in delta.fixtures.through_files or () if f.task_id in both for rel in f.files})
    return (
        f"lists {', '.join(both)} both as unchanged and as changed through their files ({', '.join(files)}): "
        f"delta format {delta.delta_format} called a fixture unchanged when its own fields stayed, even with a "
        "file of it changed. They changed; this version's comparability.json, not that list, says which scores "
        "compare. A version cut with delta format 5 or later lists such fixtures as changed only"
    )
