"""The outcomes of the commands that read frozen versions: list, log, show, diff, compare.

Each one carries what the command found and the one verified view of the status log and the
checkpoint beside it (:mod:`freezer.trust.verified`), whose problems (lines that are not status,
a checkpoint that does not verify or that a folder contradicts) fail the command and are listed
in its JSON, and beside the version they name."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from freezer.compare.deltamodel import Delta
from freezer.domain.jsontypes import JsonObject, JsonValue
from freezer.query import browse
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.record import VersionData, read
from freezer.trust import lifecycle, verified


def with_log(result: dict[str, object], known: verified.VerifiedView) -> dict[str, object]:
    """``result`` with the status log's and the checkpoint's problems, when they have any (the JSON
    shape of list, show, log, compare, site)."""
    shown = dict(result)
    if known.log.problems:
        shown["status_log"] = [p.to_json() for p in known.log.problems]
    if known.checkpoint_problems:
        shown["checkpoint"] = [p.to_json() for p in known.checkpoint_problems]
    return shown


def against(known: verified.VerifiedView, name: str) -> JsonObject:
    """What the view holds against version ``name``, as the ``problems`` entry of its JSON (none when nothing)."""
    found = known.version_problems(name)
    return {"problems": [p.to_json() for p in found]} if found else {}


Row = TypeVar("Row", browse.SummaryRow, browse.LogRow)


@dataclass
class VersionRows(Generic[Row]):
    """``freezer list`` and ``freezer log``: one row per frozen version; each row's status is the
    verified events' (current unless yanked or deprecated), and beside it every unverified event
    that names the version and a checkpoint that contradicts it (both in ``known``)."""

    rows: Sequence[Row]
    known: verified.VerifiedView
    broken: bool  # a row says its version's files fail their hashes, or cannot be read

    @property
    def ok(self) -> bool:
        return not self.broken and not self.known.problems

    def to_json(self) -> dict[str, object]:
        versions: list[JsonValue] = [
            {**row.to_json(), "status": self.known.of(row.version).to_json(), **against(self.known, row.version)}
            for row in self.rows
        ]
        return with_log({"versions": versions}, self.known)


def listing(cfg: RegistryConfig, suites: Sequence[SuiteConfig]) -> VersionRows[browse.SummaryRow]:
    rows = [browse.summary_row(s, v) for s in suites for v in Suite.of(s).versions()]
    return VersionRows(rows, verified.view(cfg), any(r.hashes != "ok" for r in rows))


def history(cfg: RegistryConfig, suites: Sequence[SuiteConfig]) -> VersionRows[browse.LogRow]:
    rows = [row for one in suites for row in browse.log_rows(one)]
    return VersionRows(rows, verified.view(cfg), any(row.error is not None for row in rows))


@dataclass
class Shown:
    """``freezer show``: one verified version's manifest, record and fixtures."""

    data: VersionData
    status: lifecycle.VersionStatus
    known: verified.VerifiedView

    @property
    def ok(self) -> bool:
        return not self.known.problems

    def to_json(self) -> dict[str, object]:
        shown: dict[str, object] = {
            "name": self.data.frozen.name,
            "status": self.status.to_json(),
            "manifest_sha256": self.data.frozen.manifest_sha256(),
            "manifest": self.data.manifest_json,
            "version": self.data.version,
            "fixtures": self.data.fixtures,
            "fixture_digests": browse.digest_records(self.data),
        }
        return with_log({**shown, **against(self.known, self.data.frozen.name)}, self.known)


def show(cfg: RegistryConfig, suite: SuiteConfig, label: str) -> Shown:
    data = read(browse.find(suite, label))
    known = verified.view(cfg)
    return Shown(data, known.of(data.frozen.name), known)


@dataclass
class Diff:
    """``freezer diff --format json``: the full delta between two frozen versions."""

    delta: Delta
    ok: bool = True  # versions that cannot be read raise instead

    def to_json(self) -> dict[str, object]:
        return dict(self.delta.to_json())  # a JsonObject is not a dict[str, object] to mypy (dicts are invariant)


def diff(suite: SuiteConfig, old: str, new: str) -> Diff:
    return Diff(browse.diff(suite, browse.find(suite, old), browse.find(suite, new), full=True))


@dataclass
class Comparison:
    """``freezer compare``: per arm, which fixtures' scores can be compared across two versions."""

    records: list[Any]
    pair: tuple[registry.FrozenVersion, registry.FrozenVersion]
    known: verified.VerifiedView

    @property
    def ok(self) -> bool:
        return not self.known.problems

    def to_json(self) -> dict[str, object]:
        compared: dict[str, object] = {"arms": [record.to_json() for record in self.records]}
        compared["statuses"] = {v.name: self.known.of(v.name).to_json() for v in self.pair}
        return with_log(compared, self.known)


def compare(cfg: RegistryConfig, suite: SuiteConfig, old: str, new: str, arm: str | None) -> Comparison:
    pair = (browse.find(suite, old), browse.find(suite, new))
    records = browse.compare(suite, pair[0], pair[1], arm)
    return Comparison(records, pair, verified.view(cfg))
