"""Which scores can be compared across two versions, fixture by fixture and arm by arm.

Every fixture gets three digests, one per group of its fields: what the agent
sees (``input``), what grades it (``grading``) and what neither sees
(``cosmetic``: notes, evidence, design history). Which field belongs to which
group is said by the fixture schema itself (``x-freezer-group`` on each
property); a field the schema does not place counts as input, so an unknown
field can only make fewer scores comparable, never more.

A digest is the sha256 of a canonical form of the parsed fixture, so key
order, YAML formatting and comments never change it::

    sha256("freezer-fixture-digest/1 " + group + "\\n" + canonical JSON)

where the canonical JSON holds the group's fields, keys sorted, no spaces,
UTF-8; a list of files (``assets``, ``graders``) becomes {path: sha256 of the
frozen file}. The environment (pinned SHA, binary, tool-surface commits) is one
digest per version.

Whether a score is comparable also depends on the arm that produced it: a
graph-tool arm depends on the tool surface, a grep-only arm does not. A suite
declares its arms and what each depends on in freezer.yaml (``arms``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from freezer.compare.claims import file_fields_of, moved_files
from freezer.compare.delta import DELTA_FORMAT
from freezer.compare.delta import compute as compute_delta
from freezer.compare.deltamodel import Delta
from freezer.compare.environment import (
    dataset_unknowns,
    fixture_data_moves,
    fixture_image_moves,
    fixture_unknowns,
    suite_environment,
    suite_source_unknown,
    suite_sources_moved,
)
from freezer.compare.fieldchange import FieldChange
from freezer.compare.fieldtext import same
from freezer.domain.canonical import compact
from freezer.domain.jsontypes import JsonObject, json_list, json_object
from freezer.domain.manifest import TouchingCommit
from freezer.domain.model import Fixture, Raw
from freezer.kinds.yamlfiles import FILE_FIELDS, entries
from freezer.registry.record import Side
from freezer.resolve.references import closure_unknown
from freezer.validate.namedfiles import AssetFiles, digest_form

GROUPS = ("input", "grading", "cosmetic")
CLASSES = ("unchanged", "cosmetic", "changed", "added", "removed")
_DIGEST_TAG = "freezer-fixture-digest/1"
# Comparability format 3 on: a changed fixture's reason names the files whose content changed, and
# is never empty (formats 1 and 2 froze "changed ...: " with nothing after it for those).
NAMING_FORMAT = 3
# Comparability format 4 on: an image change or an unknown image of a fixture excludes that fixture
# alone, with a reason naming the image ("its image python@sha256:… → …"), where format 3 moved (or
# blinded) the environment dimension for every fixture of an arm that depends on it.
ATTRIBUTION_FORMAT = 4
# Comparability format 5 on: a version record that moved only in its title moves no arm. A title is
# a label (`freezer next` bumps the version number in it); format 4 made every fixture of the
# default arm incomparable for it. §Delta still lists the title's change. From format 5 too, a
# moved `assets` names only the files no fixture claims (those moved their fixtures instead).
TITLE_FORMAT = 5
_LABELS = frozenset({"title"})
# Comparability format 6 on: a reference that pins nothing is "cannot tell", never "did not move"
# (freezer.resolve.references): for an arm that depends on sources, a fixture whose data is read at
# no pinned revision (an lm-eval task's dataset) is excluded, that fixture alone, and a url source
# with no content digest blinds every fixture; a harness repo with no commit blinds the arms that
# depend on run; and the bytes of the harness files move run (delta format 6). Formats up to 5
# are recomputed with the delta format they were computed with (5).
REFERENCES_FORMAT = 6
_DELTA_BEFORE_REFERENCES = 5
# The delta engine's names for what moved, as arms name them.
_DELTA_NAMES = {
    "code under test": "code",
    "binary": "binary",
    "run configuration": "run",
    "version record": "record",
    "assets": "assets",
}
# How many changed fields a reason names before it says how many more.
_SHOWN_FIELDS = 4
_RUN_ORDER = ("changed", "items", "added", "removed")


def fixture_digests(
    fixture: Raw,
    groups: Mapping[str, str],
    asset_hashes: Mapping[str, str],
    file_fields: Sequence[str] = FILE_FIELDS,
) -> dict[str, str]:
    """The sha256 of each group of ``fixture``'s fields (identity fields, task_id and status, are in
    none). ``file_fields`` are the fields listing files counted by content (a version's own:
    :func:`freezer.compare.claims.file_fields_of`)."""
    parts: dict[str, JsonObject] = {group: {} for group in GROUPS}
    for key, value in fixture.items():
        group = groups.get(key, "input")
        if group in parts:
            parts[group][key] = value
    files = asset_hashes if isinstance(asset_hashes, AssetFiles) else AssetFiles(asset_hashes)
    for fields in parts.values():
        for key in file_fields:  # a named file counts by its content (and mode), a folder or glob by every file in it
            if isinstance(fields.get(key), list):
                fields[key] = digest_form(entries(fields, key), files)
    return {
        group: hashlib.sha256(f"{_DIGEST_TAG} {group}\n".encode() + compact(parts[group])).hexdigest()
        for group in GROUPS
    }


def score_digest(digests: Mapping[str, str]) -> str:
    """One digest for what a score depends on at the fixture: its input and its grading."""
    return hashlib.sha256(f"{digests['input']}:{digests['grading']}".encode()).hexdigest()


def fixture_class(old: Mapping[str, str] | None, new: Mapping[str, str] | None) -> str:
    """unchanged, cosmetic, changed, added or removed: computed from digests, never set by an author."""
    if old is None:
        return "added"
    if new is None:
        return "removed"
    if old == new:
        return "unchanged"
    if old["input"] == new["input"] and old["grading"] == new["grading"]:
        return "cosmetic"
    return "changed"


def _changed_fields(
    old: Raw,
    new: Raw,
    groups: Mapping[str, str],
    wanted: set[str],
    files: tuple[Mapping[str, str], Mapping[str, str]] | None = None,
    file_fields: Sequence[str] = FILE_FIELDS,
) -> list[str]:
    """What changed of ``wanted`` groups: the fields whose value changed, then every file a field
    of theirs names (``file_fields``: assets, graders, a folder's files) whose content changed under
    the same name. Without ``files`` (the frozen asset hashes of both ends), as comparability formats
    1 and 2 froze it: fields only, by Python's equality."""
    keys = sorted(set(old) | set(new))
    mine = [k for k in keys if groups.get(k, "input") in wanted]
    if files is None:
        return [k for k in mine if old.get(k) != new.get(k)]
    named = [k for k in mine if not same(old.get(k), new.get(k))]
    before, after = (f if isinstance(f, AssetFiles) else AssetFiles(f) for f in files)
    moved = moved_files(old, new, before, after, mine, file_fields)
    return named + [f"its file {rel} changed" for rel in moved]


def _what_changed(
    old: Raw,
    new: Raw,
    groups: Mapping[str, str],
    files: tuple[Mapping[str, str], Mapping[str, str]],
    file_fields: Sequence[str] = FILE_FIELDS,
) -> str:
    """Never empty: the fields and files that changed, else what decided "changed" (the input or
    grading digest), so no reason can end in a colon."""
    found = _changed_fields(old, new, groups, {"input", "grading"}, files, file_fields)
    return ", ".join(found) or "its input or grading digest changed"


@dataclass
class PairRecord:
    """Two versions compared for one arm."""

    old: str
    new: str
    arm: str
    depends_on: tuple[str, ...]
    moved: list[str]  # what moved of what the arm depends on
    classes: dict[str, str] = field(default_factory=dict)
    comparable: list[str] = field(default_factory=list)
    excluded: dict[str, str] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # task id → score digest, comparable fixtures

    @property
    def subset_sha256(self) -> str:
        return subset_sha256(self.comparable, self.digests)

    def to_json(self) -> JsonObject:
        return {
            "from": self.old,
            "to": self.new,
            "arm": self.arm,
            "depends_on": list(self.depends_on),
            "moved": json_list(self.moved),
            "classes": json_object(self.classes),
            "comparable": json_list(self.comparable),
            "subset_sha256": self.subset_sha256,
            "excluded": json_object(self.excluded),
        }


def _assets(side: Side) -> AssetFiles:
    return AssetFiles.of(side.manifest)


def _value(value: object) -> str:
    return "∅" if value is None else str(value)


def _field_list(items: Sequence[str]) -> str:
    more = len(items) - _SHOWN_FIELDS
    return ", ".join(items[:_SHOWN_FIELDS]) + (f", and {more} more" if more > 0 else "")


def moved_text(moved: Sequence[str], delta: Delta, *, suite_own_only: bool = False) -> str:
    """The dimensions that moved for an arm, the run configuration, the assets and the record each
    with what of it moved: ``run (timeouts.subprocess_s 600 → 1000, budgets.run_usd removed)``.
    ``suite_own_only`` (format 5): the assets named are the files no fixture claims."""
    parts = []
    for name in moved:
        details: list[str] = []
        # The run configuration, the data sources and the environment images: values that changed
        # first, for they are what a reader checks a score against.
        changes = {"run": delta.run, "sources": delta.sources, "environment": delta.environment}.get(name)
        if changes is not None:
            for change in sorted(changes, key=lambda c: _RUN_ORDER.index(c.change)):
                if change.change == "changed":
                    details.append(f"{change.path} {_value(change.old)} → {_value(change.new)}")
                elif change.change == "items":
                    gained = f" +{', '.join(map(str, change.added))}" if change.added else ""
                    lost = f" -{', '.join(map(str, change.removed))}" if change.removed else ""
                    details.append(f"{change.path}{gained}{lost}")
                elif change.change == "added":
                    details.append(f"{change.path} added ({_value(change.new)})")
                else:
                    details.append(f"{change.path} removed (was {_value(change.old)})")
        elif name == "record":
            details = [change.path.removeprefix("$.") for change in delta.version_record]
        elif name == "assets" and delta.assets is not None:
            listed = delta.assets.suite_own if suite_own_only else delta.assets.of
            details = [f"{rel} {verb}" for verb in ("added", "removed", "changed") for rel in listed(verb)]
        parts.append(f"{name} ({_field_list(details)})" if details else name)
    return ", ".join(parts)


def compare(
    chain: Sequence[Side],
    meanings: Mapping[str, str],
    arms: Mapping[str, Sequence[str]],
    groups: Mapping[str, str],
    *,
    record_format: int = REFERENCES_FORMAT,
) -> list[PairRecord]:
    """One record per arm for ``chain[0]`` → ``chain[-1]`` (every version in between accumulates).
    ``record_format`` is the comparability.json format whose reasons to give (audit recomputes old ones)."""
    old, new = chain[0], chain[-1]
    with_references = record_format >= REFERENCES_FORMAT
    delta = compute_delta(chain, meanings, delta_format=DELTA_FORMAT if with_references else _DELTA_BEFORE_REFERENCES)
    moved_names = {_DELTA_NAMES.get(name, name) for name in delta.moved}
    unknown = {_DELTA_NAMES.get(entry.dimension, entry.dimension): entry.why for entry in delta.unknown}
    landed_old = {t: f for t, f in old.fixtures.items() if f.get("status") == "landed"}
    landed_new = {t: f for t, f in new.fixtures.items() if f.get("status") == "landed"}
    assets_old, assets_new = _assets(old), _assets(new)  # once: a folder or glob entry sorts them
    fields_old, fields_new = file_fields_of(old.manifest), file_fields_of(new.manifest)
    digests_old = {t: fixture_digests(f, groups, assets_old, fields_old) for t, f in landed_old.items()}
    digests_new = {t: fixture_digests(f, groups, assets_new, fields_new) for t, f in landed_new.items()}
    named = tuple(dict.fromkeys((*fields_old, *fields_new)))
    classes = {
        task: fixture_class(digests_old.get(task), digests_new.get(task))
        for task in sorted(set(landed_old) | set(landed_new))
    }
    touching = delta.code.touching_ground_truth if delta.code else ()
    files = (assets_old, assets_new) if record_format >= NAMING_FORMAT else None
    # The delta says whether the suite's assets moved by the one rule of freezer.compare.claims: a
    # file a fixture names moves that fixture (through its digests), only an unclaimed one the suite.
    # Formats 1 and 2 froze any asset change as the suite's.
    if files is None and delta.assets is not None and delta.assets.moved:
        moved_names.add("assets")
    if record_format >= TITLE_FORMAT and "record" in moved_names and _labels_only(delta.version_record):
        moved_names.discard("record")
    own = _own_environment(chain, moved_names, unknown) if record_format >= ATTRIBUTION_FORMAT else {}
    data_blind = _own_data(chain, unknown, moved_names) if with_references else {}
    code_blind = _own_code(chain) if with_references else {}
    records = []
    for arm, needs in arms.items():
        suite_level = [n for n in needs if n != "code_sites"]
        moved = [n for n in suite_level if n in moved_names]
        record = PairRecord(old.name, new.name, arm, tuple(needs), moved, dict(classes))
        said = moved_text(moved, delta, suite_own_only=record_format >= TITLE_FORMAT) if moved else ""
        for task, kind in classes.items():
            reason = _exclusion(
                task, kind, record, unknown, touching, landed_old, landed_new, groups, delta, files, named, own, said
            )
            if task in data_blind and kind not in ("added", "removed") and "sources" in needs:
                reason = "; ".join(r for r in (reason, data_blind[task]) if r)
            if task in code_blind and kind not in ("added", "removed"):
                reason = "; ".join(r for r in (reason, code_blind[task]) if r)
            if reason:
                record.excluded[task] = reason
            else:
                record.comparable.append(task)
                record.digests[task] = score_digest(digests_new[task])
        records.append(record)
    return records


def _labels_only(changes: Sequence[FieldChange]) -> bool:
    """Whether every change of the version record is to a label (its title), none to what it says."""
    return all(re.split(r"[.\[]", change.path.removeprefix("$."), maxsplit=1)[0] in _LABELS for change in changes)


def _own_environment(chain: Sequence[Side], moved_names: set[str], unknown: dict[str, str]) -> dict[str, str]:
    """Format 4: the environment's moves and unknowns that belong to single fixtures (the images
    they name), each fixture's as its own reason. The dimension moves (or is unknown) for the arm,
    every fixture, only through the suite's own Dockerfiles, which no fixture names: ``moved_names``
    and ``unknown`` lose the environment in place when every part of it is some fixture's."""
    old, new = chain[0], chain[-1]
    moves = fixture_image_moves(old.manifest, new.manifest, set(old.fixtures) & set(new.fixtures))
    blind = fixture_unknowns((old, new))
    shared_moved, shared_unknown = suite_environment((old, new))
    if not shared_moved:
        moved_names.discard("environment")
    if shared_unknown is None:
        unknown.pop("environment", None)
    else:
        unknown["environment"] = shared_unknown
    own = {task: f"its environment moved: {why}" for task, why in moves.items()}
    for task, why in blind.items():
        reason = f"cannot tell whether its environment moved: {why}"
        own[task] = f"{own[task]}; {reason}" if task in own else reason
    return own


def _own_data(chain: Sequence[Side], unknown: dict[str, str], moved_names: set[str]) -> dict[str, str]:
    """Format 6: each landed fixture whose data is read at no pinned revision at an end (the newer
    first) → its reason. ``unknown`` keeps for ``sources`` only what version.yaml's own sources say:
    a fixture's dataset is that fixture's, not every fixture's. Likewise a hub dataset a lock pinned
    to another commit at each end moves the tasks that read it, each with its reason, and the
    ``sources`` of ``moved_names`` only when version.yaml's own sources moved."""
    ends = (chain[0], chain[-1])
    old, new = ends
    moves: dict[str, str] = {}
    if old.manifest.locked_datasets or new.manifest.locked_datasets:
        moves = fixture_data_moves(old, new, set(old.fixtures) & set(new.fixtures))
        if not suite_sources_moved(old, new):
            moved_names.discard("sources")
    suite_level = suite_source_unknown(ends)
    if suite_level is None:
        unknown.pop("sources", None)
    else:
        unknown["sources"] = suite_level
    found = {task: f"its data moved: {why}" for task, why in moves.items()}
    for end in reversed(ends):
        for task, why in dataset_unknowns(end).items():
            found.setdefault(task, f"cannot tell whether its data moved: {end.name}: {why}")
    return found


def _own_code(chain: Sequence[Side]) -> dict[str, str]:
    """Each landed fixture whose closure imports a module named at run time at an end (the newer
    first) → its reason: whatever arm, its own code may have moved with no file of it changing."""
    found: dict[str, str] = {}
    for end in reversed((chain[0], chain[-1])):
        for task, fixture in sorted(end.fixtures.items()):
            why = closure_unknown(fixture) if fixture.get("status", "landed") == "landed" else None
            if why is not None:
                found.setdefault(task, f"cannot tell whether what it runs moved: {end.name}: {why}")
    return found


def _exclusion(
    task: str,
    kind: str,
    record: PairRecord,
    unknown: Mapping[str, str],
    touching: Sequence[TouchingCommit],
    landed_old: Mapping[str, Raw],
    landed_new: Mapping[str, Raw],
    groups: Mapping[str, str],
    delta: Delta,
    files: tuple[Mapping[str, str], Mapping[str, str]] | None = None,
    file_fields: Sequence[str] = FILE_FIELDS,
    own_environment: Mapping[str, str] | None = None,
    moved_said: str = "",
) -> str | None:
    """Why ``task``'s scores cannot be compared for the record's arm (every reason), or None.
    ``files``, the frozen file hashes of both ends, lets a changed fixture name the files whose
    content changed, and its reason never be empty (None: as comparability format 2 froze it).
    ``own_environment`` (format 4): a fixture's own image moves and unknowns. ``moved_said``: what
    moved for the arm, as :func:`moved_text` says it (once per arm, not once per fixture)."""
    if kind == "added":
        return f"added in {record.new}"
    if kind == "removed":
        return f"not landed in {record.new}"
    reasons = []
    if record.moved:
        reasons.append(f"moved for arm {record.arm}: {moved_said or moved_text(record.moved, delta)}")
    if kind == "changed":
        old, new = landed_old[task], landed_new[task]
        if files is None:
            what = ", ".join(_changed_fields(old, new, groups, {"input", "grading"}))
        else:
            what = _what_changed(old, new, groups, files, file_fields)
        reasons.append(f"changed what the agent sees or what grades it: {what}")
    if own_environment and task in own_environment and "environment" in record.depends_on:
        reasons.append(own_environment[task])
    blind = [n for n in record.depends_on if n in unknown and n != "code_sites"]
    if blind:
        reasons.append(f"cannot tell whether {', '.join(blind)} moved: {unknown[blind[0]]}")
    if "code_sites" in record.depends_on:
        if delta.code is None or not delta.code.recorded:
            reasons.append("cannot tell whether its ground-truth files changed: the code history was not recorded")
        else:
            sites = Fixture.from_data(landed_new[task]).site_files()
            hits = [c for c in touching if sites & set(c.paths)]
            if hits:
                reasons.append(f"a commit between the pins touched its ground-truth files ({hits[0].sha[:8]})")
    return "; ".join(reasons) or None


def subset_sha256(tasks: Sequence[str], digests: Mapping[str, str]) -> str:
    """The digest of a comparable subset: each task id (in the order given) with its score digest."""
    lines = "".join(f"{task} {digests[task]}\n" for task in tasks)
    return hashlib.sha256(lines.encode()).hexdigest()
