"""``freezer cut``: validate, resolve, verify, check provenance, then freeze.

Each step stops the cut with every problem it found. Nothing is written
until every check has passed, and the write itself is atomic
(:mod:`freezer.freeze.snapshot`).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace

from freezer.compare.comparerecord import earlier_sides, manifest_entry
from freezer.domain.errors import FreezerError, IntegrityError, InvalidInput, UsageError, VersionExists
from freezer.domain.manifest import (
    REGULAR,
    Contents,
    file_state,
)
from freezer.domain.problems import display_path
from freezer.domain.progress import Progress, no_progress
from freezer.domain.steps import Step, StepLog
from freezer.freeze.assemble import GITATTRIBUTES_HASHES, assemble, record
from freezer.freeze.codechecks import check_against_code, fail
from freezer.freeze.cutresult import CutResult
from freezer.freeze.environment import (
    fixture_datasets,
    fixture_images,
    suite_images,
    suite_warnings,
    unpinned_warnings,
)
from freezer.freeze.scaffoldcheck import scaffold_problems
from freezer.freeze.snapshot import FsOps, clear_stale_staging, source_modes, write_version
from freezer.guard import audit
from freezer.kinds.lmeval import order_warnings
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.dimensions import default_arms
from freezer.registry.lockfile import drafts_lock
from freezer.registry.model import Suite
from freezer.registry.record import (
    Side,
    read_version_files,
    side,
)
from freezer.resolve.references import dataset_unknown
from freezer.runtime import resources
from freezer.runtime.limits import MAX_TEMPLATE_BYTES
from freezer.runtime.lock import registry_lock
from freezer.runtime.reading import read_whole
from freezer.validate.drafts import fixture_schema_record, hash_assets, read_drafts
from freezer.validate.fixtureset import FixtureSet
from freezer.validate.namedfiles import AssetFiles
from freezer.validate.validate import validate_suite


def _draft_set(
    suite: SuiteConfig, number: int, progress: Progress, frozen: registry.FrozenVersion | None
) -> tuple[FixtureSet, list[str]]:
    """The validated drafts of version ``number``, and what validate left out of them (files git
    ignores, Python's cache) and why. For a version already frozen, that comes first: what the
    drafts say is news for the next version, never a reason to touch this one."""
    report = validate_suite(suite, progress)
    if not report.ok:
        if frozen is not None:
            raise InvalidInput(
                f"{_frozen_line(frozen)}; nothing was written. The drafts do not validate either",
                report.problems,
                hint="fix what freezer validate reports, then cut the drafts as the next free version",
            )
        raise fail("validate", report.problems)
    [fixture_set] = [s for s in report.sets if s.version is not None]
    assert fixture_set.version is not None
    declared = fixture_set.version.data["version"]
    if declared != number:
        if frozen is not None:
            raise VersionExists(
                f"{_frozen_line(frozen)}; nothing was written. The drafts say version {declared}",
                hint=f"cut them as v{declared}: freezer cut v{declared}",
            )
        if isinstance(declared, int) and declared < number:
            hint = (
                f"these are still the drafts of v{declared}: start v{number}'s drafts with freezer next, "
                f"edit them, then freezer cut v{number}"
            )
        else:
            hint = f"cut them as v{declared}: freezer cut v{declared}"
        raise InvalidInput(
            "cut refused at step 'validate'",
            [fixture_set.version.problem(("version",), f"the drafts say version {declared}, not {number}", "rule")],
            hint=hint,
        )
    return fixture_set, report.notes


def _frozen_line(frozen: registry.FrozenVersion) -> str:
    """``bench_v2 is already frozen (versions/bench_v2, cut 2026-12-01)``: read from its manifest,
    which a damaged version may not have (the folder alone then says it is frozen)."""
    where = display_path(frozen.path)
    try:
        cut_at = str(frozen.manifest().get("cut_at") or "")
    except (FreezerError, OSError):
        cut_at = ""
    when = f", cut {cut_at[:10]}" if cut_at else ""
    return f"{frozen.name} is already frozen ({where}{when})"


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
    fixture_files = registry.frozen_fixture_files(previous_manifest)
    version, fixtures = read_version_files(frozen_files, fixture_files, previous_manifest.fixture_kind)
    return previous, side(previous_manifest, version, fixtures)


def _digest_inputs(
    suite: SuiteConfig, drafts: dict[str, bytes], asset_hashes: dict[str, str]
) -> tuple[dict[str, str], tuple[str, ...]]:
    """The file hashes and file fields a fixture's digests count: a fixture made of files (a
    folders task) lists its own files, which are fixture files, not assets; a YAML fixture's file
    fields name assets alone, as before."""
    kind = Suite.of(suite).kind
    if not kind.made_of_files:
        return asset_hashes, kind.file_fields
    hashed = {rel: hashlib.sha256(data).hexdigest() for rel, data in drafts.items()}
    return {**asset_hashes, **hashed}, kind.file_fields


def _template(suite: SuiteConfig) -> bytes:
    if suite.template is not None:
        try:
            return read_whole(suite.template, MAX_TEMPLATE_BYTES)
        except FreezerError as exc:
            raise UsageError(f"the METHOD.md template {exc.message}") from None
    return resources.template_text("METHOD.md.j2").encode("utf-8")


_NOT_INPUTS = ("cut_at", "freezer_version", "files")


def _differences(
    existing: registry.FrozenVersion, files: dict[str, bytes], own_template: bool
) -> tuple[list[str], list[str]]:
    """How the would-be cut differs from the frozen version: (in the drafts' own files, in what freezer
    computes from them and freezer.yaml). The second alone means the same drafts met another freezer or
    another config: a new release records more of them, and that is no new version."""
    frozen = existing.manifest()
    fresh = json.loads(files[registry.MANIFEST])
    labels = {
        registry.DELTA: "the computed delta (delta.json)",
        registry.COMPARABILITY: "the comparability record (comparability.json)",
        registry.TEMPLATE_COPY: "the METHOD.md template",
        registry.DELTA_TEMPLATE_COPY: "freezer's §Delta template",
    }
    computed = {registry.DELTA, registry.COMPARABILITY, registry.DELTA_TEMPLATE_COPY}
    if not own_template:  # freezer's shipped template, which a release may change
        computed.add(registry.TEMPLATE_COPY)
    in_drafts: list[str] = []
    in_freezer: list[str] = []
    newer = frozen.get("manifest_format") != fresh["manifest_format"]
    if newer:
        in_freezer.append(
            f"{existing.name} was cut by freezer {frozen.get('freezer_version')} (manifest format "
            f"{frozen.get('manifest_format')}); this freezer records more"
        )
    frozen_files, fresh_files = frozen.get("files") or {}, fresh["files"]
    for rel in sorted(set(frozen_files) | set(fresh_files)):
        if rel == registry.GITATTRIBUTES and frozen_files.get(rel) in GITATTRIBUTES_HASHES:
            continue  # written by freezer, not an input
        shown = labels.get(rel, rel)
        found = in_freezer if rel in computed else in_drafts
        if rel not in fresh_files:
            found.append(f"{shown} is frozen but no longer in the drafts")
        elif rel not in frozen_files:
            found.append(f"{shown} is new in the drafts")
        elif frozen_files[rel] != fresh_files[rel]:
            found.append(f"{shown} differs from the frozen copy")
    if not newer:
        for key in sorted(set(frozen) | set(fresh)):
            if key not in _NOT_INPUTS and frozen.get(key) != fresh.get(key):
                in_freezer.append(f"manifest {key} differs (what the checks used or found)")
    return in_drafts, in_freezer


def _refusal(frozen: registry.FrozenVersion, in_drafts: list[str], in_freezer: list[str], upcoming: int) -> str:
    """Why a re-cut of a frozen version writes nothing, what is frozen first."""
    if in_drafts:
        return (
            f"{_frozen_line(frozen)} and a frozen version is never changed; the inputs differ: "
            + "; ".join(in_drafts + in_freezer)
            + f". Cut the changes as v{upcoming} instead"
        )
    return (
        f"{_frozen_line(frozen)}; nothing was written. Its drafts are unchanged, but what this freezer "
        f"computes from them and freezer.yaml differs from what was frozen: {'; '.join(in_freezer)}. "
        f"A frozen version is never rewritten: keep it as it is (freezer audit checks it as it was frozen), "
        f"or cut what changed as v{upcoming}"
    )


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
    frozen_already = registry.FrozenVersion(suite.name, number, target) if existing is not None else None
    fixture_set, left_out = _draft_set(suite, number, progress, frozen_already)
    scaffold = scaffold_problems(suite, fixture_set)
    if scaffold:
        raise fail("scaffold", scaffold)
    validated = time.perf_counter()
    assert fixture_set.version is not None
    steps.append(
        Step("drafts", f"drafts valid: {len(fixture_set.fixtures)} fixture(s) in {display_path(suite.drafts)}")
    )
    for note in left_out:
        steps.append(Step("left out", note))
    previous, previous_side = _previous_side(suite, owner.find(number) if existing is not None else None)
    previous_manifest = previous_side.manifest if previous_side else None
    resolved = check_against_code(config, suite, fixture_set, previous_manifest, steps, warnings)
    checked = time.perf_counter()
    # An image named by tag is pinned by the drafts' lock file (freezer lock) when it holds the tag:
    # read from the file frozen with the version, never from the network.
    lock = drafts_lock(fixture_set.assets)
    shared = lock.pin_all(suite_images(fixture_set))  # the suite's own Dockerfiles, no fixture's
    warnings.extend(suite_warnings(shared))
    images = {task: lock.pin_all(refs) for task, refs in fixture_images(fixture_set).items()}
    # A git source named by a branch or tag is pinned likewise, by the commit the lock holds for it.
    locked_sources = lock.source_commits(fixture_set.version.data)
    # And a hub dataset an lm-eval task reads at a branch or tag, by the commit the lock holds.
    locked_datasets = lock.dataset_commits(fixture_datasets(fixture_set).values())
    warnings.extend(unpinned_warnings(fixture_set, images, locked_sources, locked_datasets))
    warnings.extend(order_warnings(fixture_set.fixtures))

    drafts = read_drafts(suite, fixture_set)
    fixture_rels = sorted(rel for rel in drafts if rel != "version.yaml")
    fixture_schema = fixture_schema_record(suite, drafts)
    asset_hashes, unreadable = hash_assets(fixture_set)
    if unreadable:
        raise fail("hash assets", unreadable)
    contents = Contents(tuple(fixture_rels), tuple(sorted(asset_hashes)))
    # A kind whose fixture is a folder keeps its files' modes too (an executable tests/test.sh).
    kind_files = {rel: suite.drafts / rel for rel in fixture_rels} if Suite.of(suite).kind.made_of_files else {}
    modes = source_modes({**fixture_set.assets, **kind_files})
    template = _template(suite)
    # The documents validation read are the parse of these same bytes: no need to read them again.
    version_data = fixture_set.version.data
    parsed = (version_data, [doc.data for doc in fixture_set.fixtures])
    earlier = earlier_sides(suite, number, verify=True)
    configured_arms = suite.arms or default_arms(
        list(suite.dimensions),
        code=resolved is not None,
        # A task's own dataset is a data source, as version.yaml's are: locked, or read at no pinned
        # revision (then compare cannot tell whether the task's data moved, and says so).
        sources="sources" in version_data
        or bool(locked_datasets)
        or any(dataset_unknown(data) is not None for data in parsed[1] if data.get("status", "landed") == "landed"),
        environment=bool(images or shared),
    )
    # A fixture's digests cover each file it names by its hash and mode (a folder or glob entry
    # names assets only, as audit reads it from the manifest).
    hashes, fields = _digest_inputs(suite, drafts, asset_hashes)
    states = {rel: file_state(sha, modes.get(rel, REGULAR)) for rel, sha in hashes.items()}
    entry = manifest_entry(
        configured_arms, owner.configured_groups(), parsed[1], AssetFiles(states, list(asset_hashes)), fields
    )
    manifest_record = record(
        suite,
        number,
        version_data,
        resolved,
        previous,
        template,
        contents,
        fixture_schema,
        entry,
        images,
        shared,
        locked_sources,
        locked_datasets,
    )
    manifest_record = replace(manifest_record, modes=modes)
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
                Step(
                    "existing",
                    _existing_verdict(
                        registry.FrozenVersion(suite.name, number, target), files, upcoming, suite.template is not None
                    ),
                )
            )
        return result
    with registry_lock(config.root):
        clear_stale_staging(config.root)
        if target.is_dir():
            frozen = registry.FrozenVersion(suite.name, number, target)
            in_drafts, in_freezer = _differences(frozen, files, suite.template is not None)
            if in_drafts or in_freezer:
                message, _, hint = _refusal(frozen, in_drafts, in_freezer, upcoming).partition(": ")
                raise VersionExists(message, hint=hint)
            result.status = "unchanged"
            result.manifest_sha256 = frozen.manifest_sha256()
            steps.append(Step("existing", f"{name} is already frozen with identical inputs; nothing to do"))
            return result
        copies = {rel: (fixture_set.assets[rel], digest) for rel, digest in asset_hashes.items()}
        steps.now(f"writing {name}")
        write_version(config.root, target, files, fs, copies, modes)
        owner.forget()  # the folder holds one more version now
    result.status = "cut"
    result.timings["write"] = time.perf_counter() - checked
    steps.append(Step("write", f"wrote {display_path(target)}: {len(files)} files"))
    return result


def _existing_verdict(
    frozen: registry.FrozenVersion, files: dict[str, bytes], upcoming: int, own_template: bool
) -> str:
    in_drafts, in_freezer = _differences(frozen, files, own_template)
    if in_drafts or in_freezer:
        return f"{_refusal(frozen, in_drafts, in_freezer, upcoming)}: a real cut would be refused"
    return f"{_frozen_line(frozen)} with identical inputs: a real cut would do nothing"
