"""``freezer check``: the pre-merge guard, anchored in the base.

What was frozen is read from the base commit: its freezer.yaml says where
each suite's versions live, and its tree says which versions exist. The
change under review cannot switch the guard off: no file of a version frozen
in the base may be modified, deleted or renamed whatever the working config
now says, and a config change that moves, drops or narrows anything frozen is
reported. Every version that is new in the working tree must verify and
chain to its predecessor, and, when the code repository is reachable, pass
the same code checks that ``freezer audit`` runs (the pinned SHA, the ground
truth, Gate B, the undeclared tool-surface scan): a guard that saw less than
the audit would pass a version the audit rejects. Where the code cannot be
reached, the report says so for each new version. git is asked only for
stored object ids (the base's tree, the index) and freezer hashes the frozen
files on disk itself, so no attribute-driven program runs and no checkout
conversion hides a change; only new versions are audited.
"""

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from freezer.domain.errors import FreezerError
from freezer.domain.problems import Problem, display_path
from freezer.git.ignored import IgnoredFiles
from freezer.git.registrygit import BaseTree, Change, RegistryGit
from freezer.guard.drift import drift
from freezer.guard.place import frozen_in_base, registry_place
from freezer.registry import registry
from freezer.registry.config import CONFIG_NAME, FrozenLayout, RegistryConfig, SuiteConfig, frozen_layouts
from freezer.registry.model import Suite
from freezer.runtime import work
from freezer.runtime.paths import unsafe_folder_reason
from freezer.runtime.reading import read_whole
from freezer.trust.rootfiles import CHECKPOINT, SIGNATURES, STATUS_LOG
from freezer.validate.validate import validate_suite

if TYPE_CHECKING:
    # Types only: an audit's verdict (with its steps) is built by the audit of a new version, which a
    # check with nothing new never imports
    from freezer.registry.verdict import CodeStatus, VersionAudit

_VERBS = {"M": "modified", "D": "deleted", "A": "added", "T": "changed type", "U": "unmerged"}


class NewVersionCode(NamedTuple):
    """What the code checks said about one new version: audit's code status and its detail."""

    name: str
    status: "CodeStatus"  # verified, failed, unreachable, or not checked (--no-code, or integrity failed)
    detail: str

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "status": self.status, "detail": self.detail}


class CheckReport:
    """``freezer check``'s outcome for the change under review, judged against its base; it fails on any problem."""

    def __init__(self, base: str, base_source: str) -> None:
        self.base = base
        self.base_source = base_source
        self.problems: list[Problem] = []
        self.new_versions: list[str] = []
        self.drafts_checked = 0
        self.code: list[NewVersionCode] = []  # one per new version, in new_versions' order

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_json(self) -> dict[str, object]:
        return {
            "base": self.base,
            "base_source": self.base_source,
            "new_versions": self.new_versions,
            "code": [c.to_json() for c in self.code],
            "problems": [p.to_json() for p in self.problems],
        }


def _frozen_problem(path: str, message: str, line: int | None = None) -> Problem:
    return Problem(path, line, None, (), message, "frozen")


def _base_layouts(tree: BaseTree, base: str, report: CheckReport) -> dict[str, FrozenLayout]:
    data = tree.blob(CONFIG_NAME)
    if data is None:
        return {}  # no registry in the base: nothing was frozen
    layouts, problems = frozen_layouts(data, f"{CONFIG_NAME}@{base[:8]}")
    for problem in problems:
        report.problems.append(
            Problem(
                problem.file, problem.line, problem.col, problem.path, f"the base's config: {problem.message}", "frozen"
            )
        )
    return layouts


def _config_changes(
    layout: FrozenLayout, frozen: list[str], config: RegistryConfig, base: str, report: CheckReport
) -> None:
    """A config change that moves, drops or narrows what the base froze."""
    where = display_path(config.path)
    current = config.suites.get(layout.name)
    listed = ", ".join(frozen[:3]) + (" …" if len(frozen) > 3 else "")
    if current is None:
        report.problems.append(
            _frozen_problem(
                where, f"suite {layout.name!r} is gone from the config, but {base[:8]} froze {listed}; keep the suite"
            )
        )
        return
    now = current.versions.relative_to(config.root).as_posix() if current.versions.is_relative_to(config.root) else ""
    if now != layout.versions:
        report.problems.append(
            _frozen_problem(
                where,
                f"suite {layout.name!r} now keeps its versions in {now or current.versions!s}/, but {base[:8]} froze "
                f"{listed} in {layout.versions}/; frozen versions never move",
            )
        )
    dropped = [glob for glob in layout.tool_surface if glob not in current.tool_surface]
    if dropped:
        report.problems.append(
            _frozen_problem(
                where,
                f"suite {layout.name!r} narrows its tool surface (drops {', '.join(dropped)}) after {base[:8]} froze "
                f"{listed}; the scan keeps every glob a frozen version used, so narrowing changes nothing but the "
                "record: keep the globs",
            )
        )


def _guard_frozen(base: str, folders: dict[str, str], changed: list[Change], root: Path, report: CheckReport) -> None:
    """No file of a version frozen in the base (``folders``: its folder → its name) changes; ``changed``
    may hold others (the stored results'), which are not this guard's. A version deleted whole is one
    problem, not one per file: a CI annotation limit (GitHub shows ten) would otherwise hide every
    other finding."""
    by_folder: dict[str, list[Change]] = {}
    for change in changed:
        folder = next((f for f in folders if change.path.startswith(f + "/")), None)
        if folder is not None:
            by_folder.setdefault(folder, []).append(change)
    for folder, changes in by_folder.items():
        name = folders.get(folder, folder)
        if all(c.status == "D" for c in changes) and not (root / folder).exists():
            report.problems.append(
                _frozen_problem(
                    display_path(root / folder),
                    f"frozen version deleted: {name} ({len(changes)} files) was frozen in {base[:8]} and may never "
                    f"be removed; restore it with `git checkout {base[:8]} -- {folder}`, and withdraw a version "
                    f"with `freezer yank {name} --reason …` instead, which keeps its files",
                )
            )
            continue
        for change in changes:
            report.problems.append(_frozen_file_problem(change, name, base, root))


def _frozen_file_problem(change: Change, name: str, base: str, root: Path) -> Problem:
    verb = _VERBS.get(change.status, "changed")
    message = f"frozen file {verb}: {name} was frozen in {base[:8]} and may never change"
    if not change.staged:
        message += (
            " (only the working tree differs, the index holds the frozen entry: an edit not yet "
            "committed, or a conversion that .gitattributes asks a checkout to make, such as ident, "
            "working-tree-encoding or a filter)"
        )
    if change.status == "A":
        message += f"; remove it with `git rm -f {change.path}`"
    else:
        message += f"; restore it with `git checkout {base[:8]} -- {change.path}`"
    message += ", and put a change in the next version instead (`freezer next`, then `freezer cut`)"
    return _frozen_problem(display_path(root / change.path), message, None if change.status == "D" else 1)


class CodeChecks(NamedTuple):
    """How far ``check`` goes into the code repository for a new version."""

    run: bool = True  # False: --no-code, integrity only (as ``audit --no-code``)
    strict: bool = False  # as ``audit --strict``: unreachable code, or a pin on no branch, fails


def _new_versions(
    config: RegistryConfig, frozen_by_folder: dict[str, set[str]], code: CodeChecks, report: CheckReport
) -> None:
    """Every entry of a versions folder that the base did not freeze must be a valid new version,
    audited as ``freezer audit`` audits it (with the code checks, on every core, as audit does)."""
    pending: list[tuple[SuiteConfig, registry.FrozenVersion]] = []
    for suite in config.suites.values():
        if not suite.versions.is_dir() or not suite.versions.is_relative_to(config.root):
            continue
        folder = suite.versions.relative_to(config.root).as_posix()
        frozen = frozen_by_folder.get(folder, set())
        # Suites may share a versions folder: each checks its own entries, and leaves the others' alone.
        neighbours = [
            other.name for other in config.suites.values() if other is not suite and other.versions == suite.versions
        ]
        for entry in Suite.of(suite).entries():
            if entry in frozen or entry.startswith(".") or any(registry.number_in_name(n, entry) for n in neighbours):
                continue
            shown = display_path(suite.versions / entry)
            number = registry.number_in_name(suite.name, entry)
            if number is None:
                report.problems.append(_frozen_problem(shown, f"not part of any version of suite {suite.name!r}"))
                continue
            pending.append((suite, registry.FrozenVersion(suite.name, number, suite.versions / entry)))
    if not pending:
        return
    # start-up time: the audit (re-rendering METHOD.md, the delta, the comparability record) is a new
    # version's alone, so a check with nothing new (the pre-commit hook) never loads it; imported
    # here, before the workers fork, so that each inherits it
    from freezer.guard.audit import audit_one

    workers = work.cores(len(pending)) if code.run else 1
    for result in work.map_on_cores(partial(_audit_new, audit_one, code=code.run), pending, workers=workers):
        report.new_versions.append(result.name)
        _report_audit(result, code, report)


def _audit_new(
    audit_one: "Callable[..., VersionAudit]", pair: tuple[SuiteConfig, registry.FrozenVersion], code: bool
) -> "VersionAudit":
    return audit_one(*pair, code=code, against=None)


def _report_audit(result: "VersionAudit", code: CodeChecks, report: CheckReport) -> None:
    entry = result.name
    for failure in result.failures + result.code_failures:
        report.problems.append(_frozen_problem(failure.file, f"new version {entry}: {failure.message}"))
    if result.hidden_delta is not None:
        # audit lets a version recorded before the rule stand; a version the change adds is held to it
        hidden = result.hidden_delta
        report.problems.append(
            _frozen_problem(
                hidden.file,
                f"new version {entry}: {hidden.message}. Its manifest records checks.delta_block 1 (cut before "
                f"freezer read §Delta as shown), which only a version frozen in the base may keep: fix the "
                "template and cut it again",
            )
        )
    detail = result.code.detail
    if not code.run and result.code_status != "none":  # none: no code under test, nothing was skipped
        detail = "not checked (--no-code)"
    elif result.failures:
        detail = "not checked: the version's integrity failed first"
    report.code.append(NewVersionCode(entry, result.code_status, detail))
    if not code.strict or result.failures:
        return
    where = display_path(result.path)
    if result.code_status == "unreachable":
        report.problems.append(
            _frozen_problem(where, f"new version {entry}: --strict: its code could not be checked ({result.code})")
        )
    elif result.pin_reach == "":
        report.problems.append(
            _frozen_problem(
                where,
                f"new version {entry}: --strict: its pinned commit is on no branch (only this machine holds it)",
            )
        )


def _guard_status_log(root: Path, before: bytes | None, report: CheckReport) -> None:
    """The status log may only grow, and every line must still verify."""
    path = root / STATUS_LOG
    after = None
    if path.exists() or path.is_symlink():
        try:
            after = read_whole(path)  # never through a link, never a FIFO or device
        except FreezerError as exc:
            report.problems.append(_frozen_problem(STATUS_LOG, exc.message))
            return
    if before is None and after is None:
        return  # no status log in the base nor now: nothing was signed
    # start-up time: the log's reader (its strict JSON parser, the signature checks) serves a registry
    # that has a log; the pre-commit hook of one without never loads it
    from freezer.trust import lifecycle

    why = lifecycle.only_appended(before, after)
    if why:
        report.problems.append(_frozen_problem(STATUS_LOG, why))
    if after is not None:
        report.problems.extend(lifecycle.verify_log(root))


def _guard_checkpoint(config: RegistryConfig, before: bytes | None, report: CheckReport) -> None:
    """The checkpoint must verify, agree with the registry, and only grow from the base's."""
    path = config.root / CHECKPOINT
    if before is None and not path.exists() and not path.is_symlink():
        return  # no checkpoint in the base nor now: nothing was signed
    # start-up time: the checkpoint's reader (its strict JSON parser, the payload's records) serves a
    # registry that has one; the pre-commit hook of one without never loads it
    from freezer.trust import checkpoint

    problems, payload = checkpoint.verify(config)
    report.problems.extend(problems)
    why = checkpoint.compare_with_base(before, payload if not problems else None)
    if why:
        report.problems.append(_frozen_problem(CHECKPOINT, why))


def _guard_envelopes(root: Path, before: dict[str, bytes | None], report: CheckReport) -> None:
    """A signature, once committed, stays: an envelope may only gain signatures over the same payload."""

    folder_reason = unsafe_folder_reason(root, root / SIGNATURES)
    for name, old in sorted(before.items()):
        rel = f"{SIGNATURES}/{name}"
        path = root / rel
        if old is None:
            continue
        if folder_reason is not None:
            # Never read an envelope through a link: what lies outside the registry proves nothing.
            report.problems.append(
                _frozen_problem(rel, f"the signatures folder {folder_reason}; it must be a real folder")
            )
            continue
        if not path.exists() and not path.is_symlink():
            report.problems.append(
                _frozen_problem(rel, "a signature envelope was deleted; signatures may only be added")
            )
            continue
        try:
            was, now = json.loads(old), json.loads(read_whole(path))
            kept = now["payload"] == was["payload"] and now["signatures"][: len(was["signatures"])] == was["signatures"]
        except (ValueError, KeyError, TypeError, RecursionError, FreezerError):
            kept = False
        if not kept:
            report.problems.append(
                _frozen_problem(rel, "a signature envelope was edited; signatures may only be appended")
            )


def check(config: RegistryConfig, base: str | None, code: CodeChecks | None = None) -> CheckReport:
    git = RegistryGit(config.root)
    base_sha, source = git.default_base() if base is None else (git.resolve(base), base)
    report = CheckReport(base_sha, source)
    place, misplaced = registry_place(git, base_sha, config)
    if misplaced:
        report.problems.extend(misplaced)  # nothing read at another place than the base's would mean anything
        return report
    ignored = IgnoredFiles(suite.drafts for suite in config.suites.values())
    for suite in config.suites.values():
        drafts = validate_suite(suite, ignored=ignored)
        report.drafts_checked += drafts.files
        report.problems.extend(drafts.problems)
    frozen_by_folder: dict[str, set[str]] = {}
    with git.at(base_sha, place) as tree:
        layouts = _base_layouts(tree, base_sha, report)
        frozen_by_layout = {name: frozen_in_base(tree, layout) for name, layout in layouts.items()}
        status_log_before = tree.blob(STATUS_LOG)
        checkpoint_before = tree.blob(CHECKPOINT)
        envelopes_before = {name: tree.blob(f"{SIGNATURES}/{name}") for name in tree.names(SIGNATURES)}
        stored_before = _stored_in_base(tree)
    _guard_envelopes(config.root, envelopes_before, report)
    _guard_status_log(config.root, status_log_before, report)
    _guard_checkpoint(config, checkpoint_before, report)
    for name, layout in layouts.items():
        frozen = frozen_by_layout[name]
        if not frozen:
            continue
        frozen_by_folder.setdefault(layout.versions, set()).update(frozen)
        _config_changes(layout, frozen, config, base_sha, report)
    folders = {f"{versions}/{name}": name for versions, names in frozen_by_folder.items() for name in sorted(names)}
    here = config.root / registry.RESULTS_FOLDER
    results_guarded = bool(stored_before) or here.exists() or here.is_symlink()
    # The frozen versions' and the stored results' changes in one ls-tree and one ls-files, not two
    # of each: every git process costs a pre-commit hook milliseconds.
    changes = git.changes(base_sha, sorted(folders) + ([registry.RESULTS_FOLDER] if results_guarded else []))
    _guard_frozen(base_sha, folders, changes, config.root, report)
    _new_versions(config, frozen_by_folder, code or CodeChecks(), report)
    report.problems.extend(drift(config))
    if results_guarded:
        # Local: the stored results' guard (its row schema, its records) serves a registry that has some.
        from freezer.guard import storedresults

        stored_changes = [c for c in changes if c.path.startswith(f"{registry.RESULTS_FOLDER}/")]
        report.problems.extend(storedresults.append_only(stored_changes, config.root))
        unchanged = stored_before - {change.path for change in stored_changes}
        report.problems.extend(storedresults.verify(config, unchanged=unchanged))
    return report


def _stored_in_base(tree: BaseTree) -> set[str]:
    """The stored results files the base holds; none, without importing their guard, when it has no results folder."""
    if not tree.names(registry.RESULTS_FOLDER):
        return set()
    from freezer.guard import storedresults  # local: as in check()

    return storedresults.in_base(tree)
