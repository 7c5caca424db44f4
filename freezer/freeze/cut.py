"""``freezer cut``: validate, resolve, verify, check provenance, then freeze.

Each step stops the cut with every problem it found. Nothing is written
until every check has passed, and the write itself is atomic
(:mod:`freezer.freeze.snapshot`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from freezer.compare.comparerecord import earlier_sides, environment_digest, manifest_entry
from freezer.compare.comparerecord import record as comparability_record
from freezer.compare.delta import compute as compute_delta
from freezer.domain import canonical
from freezer.domain.errors import FreezerError, IntegrityError, InvalidInput, UsageError, VersionExists
from freezer.domain.images import ImageRef
from freezer.domain.manifest import (
    Checks,
    CodeRepoIdentity,
    Comparability,
    Contents,
    FixtureSchemaRecord,
    GrepOracle,
    Manifest,
    PinnedSha,
)
from freezer.domain.model import Binary
from freezer.domain.problems import display_path
from freezer.domain.release import __version__
from freezer.domain.steps import Progress, Step, StepLog, no_progress
from freezer.freeze.codechecks import check_against_code, fail
from freezer.freeze.cutresult import CutResult
from freezer.freeze.environment import fixture_images, unpinned_warnings
from freezer.freeze.snapshot import FsOps, clear_stale_staging, write_version
from freezer.guard import audit
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.record import (
    Side,
    default_arms,
    load_yaml_files,
    side,
)
from freezer.registry.registry import STATEMENT
from freezer.render.attest import statement_bytes
from freezer.render.method import method_from_files
from freezer.render.render import MARKDOWN_RULES
from freezer.resolve.provenance import ResolvedProvenance
from freezer.runtime import resources
from freezer.runtime.lock import registry_lock
from freezer.runtime.reading import MAX_TEMPLATE_BYTES, read_whole
from freezer.validate.drafts import fixture_schema_record, hash_assets, read_drafts
from freezer.validate.validate import FixtureSet, validate_suite

# No line-ending conversion, no filter, no ident expansion, no re-encoding: whatever the
# registry's root .gitattributes says, a checkout writes the frozen bytes as they are.
# (!working-tree-encoding, not -: git refuses a boolean for that attribute.)
GITATTRIBUTES_TEXT = (
    b"# Written by freezer: every byte of this version must survive checkout unchanged.\n"
    b"* -text -filter -ident !working-tree-encoding\n"
)
# What freezer 0.3 and earlier wrote; a re-cut of such a version is not a difference of inputs.
_EARLIER_GITATTRIBUTES = (
    b"# Written by freezer: every byte of this version must survive checkout unchanged.\n* -text\n",
)
_GITATTRIBUTES_HASHES = {hashlib.sha256(text).hexdigest() for text in (GITATTRIBUTES_TEXT, *_EARLIER_GITATTRIBUTES)}


def dumps_json(data: Any) -> bytes:
    return canonical.frozen_file(data)


def sha256sums(files: dict[str, bytes], hashed: dict[str, str] | None = None) -> bytes:
    """SHA256SUMS over ``files`` and the already hashed ``hashed`` (assets, copied as they stream)."""
    digests = {**(hashed or {}), **{rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}}
    return "".join(f"{digests[rel]}  {rel}\n" for rel in sorted(digests)).encode("utf-8")


def _draft_set(suite: SuiteConfig, number: int, progress: Progress) -> FixtureSet:
    report = validate_suite(suite, progress)
    if not report.ok:
        raise fail("validate", report.problems)
    [fixture_set] = [s for s in report.sets if s.version is not None]
    assert fixture_set.version is not None
    declared = fixture_set.version.data["version"]
    if declared != number:
        raise InvalidInput(
            "cut refused at step 'validate'",
            [fixture_set.version.problem(("version",), f"the drafts say version {declared}, not {number}", "rule")],
        )
    return fixture_set


def _previous_side(
    suite: SuiteConfig, existing: registry.FrozenVersion | None
) -> tuple[registry.FrozenVersion | None, Side | None]:
    """The version a cut chains onto: the latest frozen one, or, for a version already frozen (a
    re-cut with the same inputs), the one its manifest records."""
    owner = Suite.of(suite)
    previous = owner.predecessor(existing) if existing is not None else owner.latest()
    if previous is None:
        return None, None
    # Chaining onto a damaged version would launder the damage into the new version's manifest.
    check, frozen_files = audit.integrity(suite, previous)
    if check.failures:
        listed = "; ".join(str(f) for f in check.failures[:5])
        raise IntegrityError(
            f"cut refused: the previous version {previous.name} fails its integrity check ({listed})",
            hint="restore it from git (freezer audit shows what changed) before cutting on top of it",
        )
    assert frozen_files is not None  # no failures: the integrity check read the drafts
    previous_manifest = previous.manifest_model()
    version, fixtures = load_yaml_files(frozen_files, previous_manifest.fixture_names())
    return previous, side(previous_manifest, version, fixtures)


def _template(suite: SuiteConfig) -> bytes:
    if suite.template is not None:
        try:
            return read_whole(suite.template, MAX_TEMPLATE_BYTES)
        except FreezerError as exc:
            raise UsageError(f"the METHOD.md template {exc.message}") from None
    return resources.template_text("METHOD.md.j2").encode("utf-8")


def _binary(version_data: dict[str, Any], resolved: ResolvedProvenance) -> dict[str, Any]:
    """The binary record as frozen: the draft's, with the build SHA resolved to 40 hex."""
    binary = dict(version_data["binary"])
    if resolved.build_sha:
        binary["build_sha"] = resolved.build_sha
    return binary


def record(
    suite: SuiteConfig,
    number: int,
    version_data: dict[str, Any],
    resolved: ResolvedProvenance | None,
    previous: registry.FrozenVersion | None,
    template: bytes,
    contents: Contents | None = None,
    fixture_schema: FixtureSchemaRecord | None = None,
    comparability: dict[str, Any] | None = None,
    images: Mapping[str, tuple[ImageRef, ...]] | None = None,
) -> Manifest:
    """The manifest without its file list: everything the checks used and found. With the
    ``comparability`` entry (arms, field groups, fixture digests) it is manifest format 3.
    ``resolved`` is None for a suite with no code under test: nothing of code is recorded."""
    grep = GrepOracle(resolved.grep["engine"], resolved.grep["version"]) if resolved is not None else None
    # markdown_rules: so audit renders METHOD.md with the same filters
    checks = Checks(hashlib.sha256(template).hexdigest(), grep, dict(suite.dimensions), fixture_schema, MARKDOWN_RULES)
    manifest = Manifest(
        format=3 if comparability is not None else 2,
        suite=suite.name,
        number=number,
        name=registry.version_name(suite.name, number),
        pinned=PinnedSha(resolved.pinned_sha, resolved.pinned_sha[:8], version_data["pinned_sha"])
        if resolved
        else None,
        code_repo=CodeRepoIdentity.from_data(resolved.repo_identity) if resolved else None,
        binary=Binary.from_data(_binary(version_data, resolved)) if resolved else None,
        globs=tuple(suite.tool_surface),
        commits=tuple(resolved.commits) if resolved else (),
        scan=resolved.scan if resolved else None,
        checks=checks,
        code_history=resolved.code_history if resolved else None,
        code_history_recorded=True,
        freezer_version=__version__,
        cut_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        previous=(previous.name, previous.manifest_sha256()) if previous else None,
        files={},
        contents=contents,
        canary=(suite.canary or None) if comparability is not None else None,
        images=dict(images or {}),
    )
    if comparability is not None:
        entry = Comparability.from_data({**comparability, "environment": environment_digest(manifest, version_data)})
        manifest = replace(manifest, comparability=entry)
    return manifest


def assemble(
    manifest_record: Manifest,
    drafts: dict[str, bytes],
    template: bytes,
    previous: Side | None,
    meanings: dict[str, str],
    parsed: tuple[dict[str, Any], list[dict[str, Any]]],
    template_name: str = registry.TEMPLATE_COPY,
    assets: dict[str, str] | None = None,
    earlier: Sequence[Side] | None = None,
) -> dict[str, bytes]:
    """Every file of a version but its assets, from its manifest record and its inputs: a pure
    function. ``assets`` are the sha256 of the asset files, which the caller copies as they stream;
    ``earlier`` are all earlier versions (default: ``previous`` alone), for the comparability record."""
    version_data, fixtures = parsed
    # The delta compares assets by hash: the current side knows them before its manifest is done.
    current = side(replace(manifest_record, files=dict(sorted((assets or {}).items()))), version_data, fixtures)
    delta = compute_delta([previous, current] if previous else [current], meanings)
    data_files = {
        **drafts,
        registry.DELTA: dumps_json(delta.to_json()),
        **(
            {
                registry.COMPARABILITY: dumps_json(
                    comparability_record(
                        current,
                        earlier if earlier is not None else ([previous] if previous else []),
                        meanings,
                        manifest_record.comparability.entry(),
                    )
                )
            }
            if manifest_record.comparability is not None
            else {}
        ),
        registry.TEMPLATE_COPY: template,
        # Each version carries its own attributes, so no checkout can convert its line endings,
        # whatever the registry's root .gitattributes says.
        registry.GITATTRIBUTES: GITATTRIBUTES_TEXT,
    }
    hashes = {**(assets or {}), **{rel: hashlib.sha256(data).hexdigest() for rel, data in data_files.items()}}
    manifest = replace(manifest_record, files=dict(sorted(hashes.items())))
    manifest_bytes = dumps_json(manifest.to_json())
    method = method_from_files(data_files, manifest_bytes, template_name, parsed).encode("utf-8")
    files = {**data_files, registry.MANIFEST: manifest_bytes, registry.METHOD: method}
    if manifest.format >= 3:  # format 3 also writes the provenance statement
        files[STATEMENT] = statement_bytes(manifest_bytes, method)
    files[registry.SUMS] = sha256sums(files, assets)
    return files


_NOT_INPUTS = ("cut_at", "freezer_version", "files")


def _differences(existing: registry.FrozenVersion, files: dict[str, bytes]) -> list[str]:
    """How the would-be cut differs from the frozen version, in everything that went into it."""
    frozen = existing.manifest()
    fresh = json.loads(files[registry.MANIFEST])
    labels = {
        registry.DELTA: "the computed delta (delta.json)",
        registry.COMPARABILITY: "the comparability record (comparability.json)",
        registry.TEMPLATE_COPY: "the METHOD.md template",
    }
    found = []
    if frozen.get("manifest_format") != fresh["manifest_format"]:
        found.append(
            f"{existing.name} was cut by freezer {frozen.get('freezer_version')} (manifest format "
            f"{frozen.get('manifest_format')}); this freezer records more, so the inputs cannot be shown equal"
        )
        return found
    for rel in sorted(set(frozen["files"]) | set(fresh["files"])):
        if rel == registry.GITATTRIBUTES and frozen["files"].get(rel) in _GITATTRIBUTES_HASHES:
            continue  # written by freezer, not an input
        shown = labels.get(rel, rel)
        if rel not in fresh["files"]:
            found.append(f"{shown} is frozen but no longer in the drafts")
        elif rel not in frozen["files"]:
            found.append(f"{shown} is new in the drafts")
        elif frozen["files"][rel] != fresh["files"][rel]:
            found.append(f"{shown} differs from the frozen copy")
    for key in sorted(set(frozen) | set(fresh)):
        if key not in _NOT_INPUTS and frozen.get(key) != fresh.get(key):
            found.append(f"manifest {key} differs (what the checks used or found)")
    return found


def cut(
    config: RegistryConfig,
    suite: SuiteConfig,
    label: str,
    *,
    dry_run: bool = False,
    fs: FsOps | None = None,
    steps: StepLog | None = None,
    progress: Progress = no_progress,
) -> CutResult:
    """Freeze the suite's drafts as version ``label``; see the module docstring for the steps.

    ``steps`` hears each step as it passes; ``progress`` counts the drafts as they validate.
    """
    owner = Suite.of(suite)
    number = registry.parse_version(label, suite.name)
    name = registry.version_name(suite.name, number)
    target = owner.folder / name
    upcoming = owner.next_number()
    existing = target if target.is_dir() else None
    if existing is None and number != upcoming:
        raise UsageError(f"cannot cut {name}: the next version of suite {suite.name!r} is v{upcoming}")
    steps = steps if steps is not None else StepLog()
    warnings: list[str] = []
    clock = time.perf_counter()
    fixture_set = _draft_set(suite, number, progress)
    validated = time.perf_counter()
    assert fixture_set.version is not None
    steps.append(
        Step("drafts", f"drafts valid: {len(fixture_set.fixtures)} fixture(s) in {display_path(suite.drafts)}")
    )
    previous, previous_side = _previous_side(suite, owner.find(number) if existing is not None else None)
    previous_manifest = previous_side.manifest if previous_side else None
    resolved = check_against_code(config, suite, fixture_set, previous_manifest, steps, warnings)
    checked = time.perf_counter()
    images = fixture_images(fixture_set)
    warnings.extend(unpinned_warnings(fixture_set, images))

    drafts = read_drafts(suite, fixture_set)
    fixture_rels = sorted(rel for rel in drafts if rel != "version.yaml")
    schema_record = fixture_schema_record(suite, drafts)
    fixture_schema = FixtureSchemaRecord(schema_record["kind"], schema_record["sha256"])
    asset_hashes, unreadable = hash_assets(fixture_set)
    if unreadable:
        raise fail("hash assets", unreadable)
    contents = Contents(tuple(fixture_rels), tuple(sorted(asset_hashes)))
    template = _template(suite)
    # The documents validation read are the parse of these same bytes: no need to read them again.
    version_data = fixture_set.version.data
    parsed = (version_data, [doc.data for doc in fixture_set.fixtures])
    earlier = earlier_sides(suite, number, verify=True)
    configured_arms = suite.arms or default_arms(
        list(suite.dimensions), code=resolved is not None, sources="sources" in version_data, environment=bool(images)
    )
    entry = manifest_entry(configured_arms, owner.configured_groups(), parsed[1], asset_hashes)
    manifest_record = record(
        suite, number, version_data, resolved, previous, template, contents, fixture_schema, entry, images
    )
    template_name = display_path(suite.template) if suite.template else registry.TEMPLATE_COPY
    files = assemble(
        manifest_record,
        drafts,
        template,
        previous_side,
        suite.dimensions,
        parsed,
        template_name,
        asset_hashes,
        earlier,
    )
    result = CutResult(
        name,
        target,
        "dry-run",
        steps.steps,
        warnings,
        files[registry.METHOD].decode("utf-8"),
        hashlib.sha256(files[registry.MANIFEST]).hexdigest(),
    )
    result.timings = {"validate": validated - clock, "git_checks": checked - validated}

    if dry_run:
        if existing is not None:
            steps.append(
                Step("existing", _existing_verdict(registry.FrozenVersion(suite.name, number, target), files, upcoming))
            )
        return result
    with registry_lock(config.root):
        clear_stale_staging(config.root)
        if target.is_dir():
            frozen = registry.FrozenVersion(suite.name, number, target)
            differences = _differences(frozen, files)
            if differences:
                raise VersionExists(
                    f"{name} is already frozen and the inputs differ; a frozen version is never changed",
                    hint="; ".join(differences) + f". Cut the changes as v{upcoming} instead.",
                )
            result.status = "unchanged"
            result.manifest_sha256 = frozen.manifest_sha256()
            steps.append(Step("existing", f"{name} is already frozen with identical inputs; nothing to do"))
            return result
        copies = {rel: (fixture_set.assets[rel], digest) for rel, digest in asset_hashes.items()}
        steps.now(f"writing {name}")
        write_version(config.root, target, files, fs, copies)
        owner.forget()  # the folder holds one more version now
    result.status = "cut"
    result.timings["write"] = time.perf_counter() - checked
    steps.append(Step("write", f"wrote {display_path(target)}: {len(files)} files"))
    return result


def _existing_verdict(frozen: registry.FrozenVersion, files: dict[str, bytes], upcoming: int) -> str:
    differences = _differences(frozen, files)
    if differences:
        listed = "; ".join(differences)
        return f"{frozen.name} is already frozen and differs ({listed}): a real cut would be refused; use v{upcoming}"
    return f"{frozen.name} is already frozen with identical inputs: a real cut would do nothing"
