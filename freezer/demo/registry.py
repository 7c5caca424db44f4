"""``freezer demo``: a sample code repository and a scratch registry with v1 and v2 frozen."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from freezer.demo import results as demo_results
from freezer.demo.build import build_sample_repo
from freezer.demo.samplecode import TOOL_SURFACE
from freezer.domain.errors import UsageError
from freezer.domain.problems import display_path
from freezer.freeze.cut import cut
from freezer.freeze.cutresult import CutResult
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.guard.audit import audit_suites
from freezer.registry import config as config_mod
from freezer.registry.verdict import VersionAudit
from freezer.runtime import resources
from freezer.validate.drafts import PYTHON_CACHE

CONFIG = """\
# A freezer registry made by `freezer demo`.
freezer: 1
suites:
  graph:
    drafts: drafts/graph
    versions: versions
    code_repo: sample-code
    # The arms the suite is run with, and what their scores depend on (freezer compare).
    arms:
      graph-tools: [indexer, descriptions, surface, binary, code, run]
      grep-only: [code_sites]
    tool_surface:
{globs}
"""
# The demo's second suite, a generic one: prompts, ground truth, an oracle, assets and metadata; no grep.
API_CONFIG = """\
  api:
    kind: generic
    drafts: drafts/api
    versions: versions
    code_repo: sample-code
    tool_surface:
{globs}
"""
# Two suites with no code under test, frozen in the benchmarks' own formats (issue 26): Harbor-like
# task folders, each folder one fixture with its file modes kept, and SWE-bench-like JSONL records.
OWN_FORMAT_CONFIG = """\
  tb:
    kind: folders
    drafts: drafts/tb
    fixtures: "tasks/*/"
    task_file: task.toml
    versions: versions
  swe:
    kind: records
    drafts: drafts/swe
    fixtures: "instances/*.jsonl"
    task_id: instance_id
    versions: versions
"""
# A suite of lm-evaluation-harness task files (a BBH-style slice): each task file one fixture,
# with the template it includes and the module its !function tags name as its own files.
LMEVAL_CONFIG = """\
  bbh:
    kind: lm-eval
    drafts: drafts/bbh
    fixtures: "tasks/*.yaml"
    versions: versions
"""
SUITES = ("graph", "api", "tb", "swe", "bbh")
# What the demo points at once it is done: path under the demo registry, and what it shows.
LOOK_AT = (
    ("versions/graph_v2/METHOD.md", "the rendered METHOD.md with its §Delta vs v1"),
    ("versions/api_v1/", "a generic suite's version: prompts, assets, no Gate B"),
    ("versions/tb_v1/", "task folders frozen byte for byte, tests/test.sh still executable"),
    ("versions/swe_v1/", "JSONL records, one fixture each, named by instance_id"),
    ("versions/bbh_v2/METHOD.md", "lm-eval tasks: §Delta names the three moved through tasks/utils.py"),
    ("results/bbh_v2/", "two models' lm-eval runs stored beside their version: freezer results table"),
    ("freezer.yaml", "the registry config"),
    ("sample-code", "the code under test (git log shows the tool-surface commits)"),
)
COMPARE_HINT = "freezer compare bbh_v1 bbh_v2"


@dataclass
class DemoResult:
    """``freezer demo``'s outcome: the scratch registry it made; it fails unless every version cut there audits."""

    root: Path
    shas: dict[str, str]
    cuts: list[CutResult] = field(default_factory=list)
    audits: list[VersionAudit] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(audited.ok for audited in self.audits)

    def to_json(self) -> dict[str, object]:
        return {
            "root": display_path(self.root),
            "cuts": [{"name": c.name, "manifest_sha256": c.manifest_sha256} for c in self.cuts],
            "audits": [audited.to_json() for audited in self.audits],
        }


def _prepare(target: Path | None) -> Path:
    if target is None:
        return Path(tempfile.mkdtemp(prefix="freezer-demo-"))
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UsageError(f"{display_path(target)} exists and is not an empty folder", hint="pick a new folder")
    target.mkdir(parents=True, exist_ok=True)
    return target


def _set_drafts(root: Path, version: str, suite: str = "graph", example: str = "graph") -> None:
    drafts = root / "drafts" / suite
    shutil.rmtree(drafts, ignore_errors=True)
    # pip byte-compiles the examples' .py files where it installs them (tasks/__pycache__, holding
    # the venv's path): the demo's drafts are the examples as shipped, not that cache.
    source = resources.data_path("examples") / example / version
    shutil.copytree(source, drafts, ignore=shutil.ignore_patterns(PYTHON_CACHE))


def _commit(root: Path, message: str) -> None:
    run_git(["add", "-A"], root, DETERMINISTIC_ENV)
    run_git(["commit", "-q", "-m", message], root, DETERMINISTIC_ENV)


def run_demo(target: Path | None, progress: Callable[[str], None] = lambda _: None) -> DemoResult:
    root = _prepare(target)
    progress(f"building the sample code repository in {display_path(root / 'sample-code')}")
    shas = build_sample_repo(root / "sample-code")
    globs = "\n".join(f"      - {glob!r}" for glob in TOOL_SURFACE)
    config_text = CONFIG.format(globs=globs) + API_CONFIG.format(globs=globs) + OWN_FORMAT_CONFIG + LMEVAL_CONFIG
    (root / "freezer.yaml").write_text(config_text, encoding="utf-8")
    (root / ".gitignore").write_text("/sample-code/\n", encoding="utf-8")
    (root / ".gitattributes").write_text("versions/** -text\n", encoding="utf-8")
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    result = DemoResult(root, shas)
    for suite, example in (("api", "generic"), ("tb", "tb"), ("swe", "swe")):
        _set_drafts(root, "v1", suite, example)
    for version in ("v1", "v2"):
        _set_drafts(root, version)
        _commit(root, f"drafts: graph {version}")
        config = config_mod.load_config(root / config_mod.CONFIG_NAME)
        progress(f"cutting graph {version}")
        result.cuts.append(cut(config, config.suite("graph"), version))
        _commit(root, f"freeze graph_{version}")
    config = config_mod.load_config(root / config_mod.CONFIG_NAME)
    progress("cutting api v1 (a generic suite with assets)")
    result.cuts.append(cut(config, config.suite("api"), "v1"))
    _commit(root, "freeze api_v1")
    for suite, what in (("tb", "task folders"), ("swe", "JSONL records")):
        progress(f"cutting {suite} v1 ({what}, no code under test)")
        result.cuts.append(cut(config, config.suite(suite), "v1"))
        _commit(root, f"freeze {suite}_v1")
    for version in ("v1", "v2"):
        _set_drafts(root, version, "bbh", "bbh")
        _commit(root, f"drafts: bbh {version}")
        progress(f"cutting bbh {version} (lm-eval task files, no code under test)")
        result.cuts.append(cut(config, config.suite("bbh"), version))
        _commit(root, f"freeze bbh_{version}")
    progress("storing two models' lm-eval runs of bbh_v1 and bbh_v2 (freezer results add)")
    demo_results.store(config)
    _commit(root, "results: two models' lm-eval runs of bbh_v1 and bbh_v2")
    progress("auditing the frozen versions")
    result.audits = audit_suites([(config.suite(suite), None) for suite in SUITES])
    return result
