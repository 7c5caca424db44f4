"""The outcomes of the commands that read frozen versions: list, log, show, diff, compare.

Each one carries what the command found and the verified status log beside it, whose
problems (lines that are not status) fail the command and are listed in its JSON."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from freezer.compare.deltamodel import Delta
from freezer.query import browse
from freezer.registry import registry
from freezer.registry.config import RegistryConfig, SuiteConfig
from freezer.registry.model import Suite
from freezer.registry.record import VersionData, read
from freezer.trust import lifecycle


def with_log(result: dict[str, object], known: lifecycle.StatusLog) -> dict[str, object]:
    """``result`` with the status log's problems, when it has any (the JSON shape of list, show, log, site)."""
    return {**result, "status_log": [p.to_json() for p in known.problems]} if known.problems else result


@dataclass
class VersionRows:
    """``freezer list`` and ``freezer log``: one row per frozen version, its lifecycle status added."""

    rows: Sequence[dict[str, Any]]
    known: lifecycle.StatusLog
    broken: bool  # a row says its version's files fail their hashes, or cannot be read

    @property
    def ok(self) -> bool:
        return not self.broken and not self.known.problems

    def to_json(self) -> dict[str, object]:
        return with_log({"versions": list(self.rows)}, self.known)


def _with_status(cfg: RegistryConfig, rows: Sequence[dict[str, Any]], broken: bool) -> VersionRows:
    """Each row's status by the verified events of the status log (current unless yanked or deprecated)."""
    known = lifecycle.status_log(cfg.root)
    for row in rows:
        row["status"] = known.of(row["version"]).to_json()
    return VersionRows(rows, known, broken)


def listing(cfg: RegistryConfig, suites: Sequence[SuiteConfig]) -> VersionRows:
    rows = [browse.summary_row(s, v) for s in suites for v in Suite.of(s).versions()]
    return _with_status(cfg, rows, any(r["hashes"] != "ok" for r in rows))


def history(cfg: RegistryConfig, suites: Sequence[SuiteConfig]) -> VersionRows:
    rows = [row for one in suites for row in browse.log_rows(one)]
    return _with_status(cfg, rows, any("error" in row for row in rows))


@dataclass
class Shown:
    """``freezer show``: one verified version's manifest, record and fixtures."""

    data: VersionData
    status: lifecycle.VersionStatus
    known: lifecycle.StatusLog

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
        }
        return with_log(shown, self.known)


def show(cfg: RegistryConfig, suite: SuiteConfig, label: str) -> Shown:
    data = read(browse.find(suite, label))
    known = lifecycle.status_log(cfg.root)
    return Shown(data, known.of(data.frozen.name), known)


@dataclass
class Diff:
    """``freezer diff --format json``: the full delta between two frozen versions."""

    delta: Delta
    ok: bool = True  # versions that cannot be read raise instead

    def to_json(self) -> dict[str, object]:
        return self.delta.to_json()


def diff(suite: SuiteConfig, old: str, new: str) -> Diff:
    return Diff(browse.diff(suite, browse.find(suite, old), browse.find(suite, new), full=True))


@dataclass
class Comparison:
    """``freezer compare``: per arm, which fixtures' scores can be compared across two versions."""

    records: list[Any]
    pair: tuple[registry.FrozenVersion, registry.FrozenVersion]
    known: lifecycle.StatusLog

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
    return Comparison(records, pair, lifecycle.status_log(cfg.root))
