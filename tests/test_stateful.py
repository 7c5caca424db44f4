"""A hypothesis state machine over a real registry: edits, cuts, re-cuts, tampering, audits, checks.

Invariants:
* audit passes if and only if nothing frozen was touched (a dropped latest version
  is invisible to audit alone; check against git sees it);
* check against the last commit passes if and only if nothing frozen was touched;
* the set of frozen versions only grows under freezer's own commands;
* an identical re-cut is a no-op that says so, and a re-cut with different inputs is refused;
* METHOD.md rendering is a pure function of the frozen bytes (audit re-renders it).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from freezer.domain.errors import VersionExists
from freezer.freeze import cut as cut_mod
from freezer.guard import audit, check
from freezer.registry import config as config_mod
from freezer.registry import registry

from registry_helpers import commit_all, make_registry, snapshot

# Slow (a state machine of random registry operations): CI runs it; `pytest -m slow` runs it here.
pytestmark = pytest.mark.slow

_CACHE = Path(tempfile.mkdtemp(prefix="freezer-stateful-"))


class RegistryMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.tmp = Path(tempfile.mkdtemp(prefix="freezer-sm-"))
        self.root = make_registry(self.tmp, _CACHE)
        self.versions = self.root / "versions"
        self.backup = self.tmp / "backup"
        self.frozen: list[str] = []
        self.tampered: set[str] = set()  # versions whose bytes were changed
        self.hidden_drop = False  # only the latest version was deleted: invisible to audit alone
        self.drafts_changed_since_cut = False
        self.edits = 0

    def teardown(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _config(self) -> config_mod.SuiteConfig:
        return config_mod.load_config(self.root / "freezer.yaml").suite("graph")

    def _set_draft_version(self, number: int) -> None:
        path = self.root / "drafts/graph/version.yaml"
        data = yaml.safe_load(path.read_text())
        data["version"] = number
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))

    @property
    def touched(self) -> bool:
        """What audit alone can see: a changed version still present, or a broken chain."""
        present = sorted(int(n.rsplit("_v", 1)[1]) for n in self._names())
        broken_chain = any(number != index + 1 for index, number in enumerate(present))
        return bool(self.tampered & self._names()) or broken_chain

    def _names(self) -> set[str]:
        return {p.name for p in self.versions.iterdir()} if self.versions.exists() else set()

    @rule(text=st.text(alphabet="abc |{}%<>`#\n", min_size=1, max_size=20))
    def edit_drafts(self, text: str) -> None:
        path = self.root / "drafts/graph/fixtures/locate-register-tools.yaml"
        data = yaml.safe_load(path.read_text())
        self.edits += 1
        data["question"] = f"edit {self.edits}: {text}"
        path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False))
        self.drafts_changed_since_cut = True

    @precondition(lambda self: not self.touched and not self.hidden_drop)
    @rule()
    def cut_next(self) -> None:
        before = self._names()
        number = len(self.frozen) + 1
        self._set_draft_version(number)
        config = config_mod.load_config(self.root / "freezer.yaml")
        result = cut_mod.cut(config, config.suite("graph"), f"v{number}")
        assert result.status == "cut"
        self.frozen.append(result.name)
        self.drafts_changed_since_cut = False
        commit_all(self.root, f"freeze {result.name}")
        shutil.rmtree(self.backup, ignore_errors=True)
        shutil.copytree(self.versions, self.backup, symlinks=True)
        assert self._names() >= before

    @precondition(
        lambda self: self.frozen and not self.touched and not self.hidden_drop and not self.drafts_changed_since_cut
    )
    @rule()
    def identical_recut(self) -> None:
        before = snapshot(self.versions)
        self._set_draft_version(len(self.frozen))
        config = config_mod.load_config(self.root / "freezer.yaml")
        result = cut_mod.cut(config, config.suite("graph"), f"v{len(self.frozen)}")
        assert result.status == "unchanged"
        assert snapshot(self.versions) == before

    @precondition(
        lambda self: self.frozen and not self.touched and not self.hidden_drop and self.drafts_changed_since_cut
    )
    @rule()
    def different_recut(self) -> None:
        before = snapshot(self.versions)
        self._set_draft_version(len(self.frozen))
        config = config_mod.load_config(self.root / "freezer.yaml")
        with pytest.raises(VersionExists, match="inputs differ"):
            cut_mod.cut(config, config.suite("graph"), f"v{len(self.frozen)}")
        assert snapshot(self.versions) == before

    @precondition(lambda self: bool(self.frozen))
    @rule(data=st.data())
    def tamper(self, data: st.DataObject) -> None:
        files = sorted(p for p in self.versions.rglob("*") if p.is_file()) if self.versions.exists() else []
        if not files:
            return
        target = data.draw(st.sampled_from(files))
        target.chmod(0o644)
        content = bytearray(target.read_bytes())
        position = data.draw(st.integers(0, len(content) - 1))
        content[position] ^= 0x20
        target.write_bytes(bytes(content))
        self.tampered.add(target.relative_to(self.versions).parts[0])

    @precondition(lambda self: bool(self.frozen))
    @rule(data=st.data())
    def delete_version(self, data: st.DataObject) -> None:
        present = sorted(self._names(), key=lambda n: int(n.rsplit("_v", 1)[1]))
        if not present:
            return
        name = data.draw(st.sampled_from(present))
        shutil.rmtree(self.versions / name)
        latest = name == present[-1]
        self.hidden_drop = self.hidden_drop or latest

    @precondition(lambda self: self.backup.exists())
    @rule()
    def restore(self) -> None:
        shutil.rmtree(self.versions, ignore_errors=True)
        shutil.copytree(self.backup, self.versions, symlinks=True)
        self.tampered.clear()
        self.hidden_drop = False

    @rule()
    def audit_everything(self) -> None:
        results = audit.audit_suites([(self._config(), None)], code=False)
        ok = all(r.ok for r in results)
        assert ok == (not self.touched), [str(f) for r in results for f in r.failures]

    @precondition(lambda self: bool(self.frozen))
    @rule()
    def check_against_head(self) -> None:
        report = check.check(config_mod.load_config(self.root / "freezer.yaml"), "HEAD")
        frozen_problems = [p for p in report.problems if p.layer == "frozen"]
        assert (not frozen_problems) == (not (self.touched or self.hidden_drop)), [str(p) for p in frozen_problems]

    @invariant()
    def versions_only_grow_under_freezer(self) -> None:
        if not (self.touched or self.hidden_drop):
            assert self._names() == set(self.frozen)
            for name in self.frozen:
                assert (self.versions / name / registry.METHOD).is_file()


RegistryMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("FREEZER_STATEFUL_EXAMPLES", "10")),
    stateful_step_count=12,
    deadline=None,
    # Each step runs real cuts and git; shrinking a failure can take many minutes, so CI skips it.
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestRegistryMachine = RegistryMachine.TestCase
