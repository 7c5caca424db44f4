"""``freezer next``: start the drafts of the next version from the latest frozen one.

The drafts are edited as text so the author's comments and layout survive:
the version is bumped, the tool-surface commits are emptied (they are the
commits since the previous build, so none carry over), and the pinned SHA
gets a TODO, since only the author knows which commit the new fixtures were
written against. A drafts folder that is missing or empty is first filled
with the frozen drafts (version.yaml, fixtures, assets). ``versions/`` is
only read.
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from freezer import registry
from freezer.config import SuiteConfig
from freezer.errors import InvalidInput, UsageError
from freezer.paths import require_safe
from freezer.problems import Problem, display_path
from freezer.yamlload import load_bytes

_VERSION = re.compile(r"^version:[ \t]*(\d+)[ \t]*$", re.M)
_COMMITS = re.compile(r"^tool_surface_commits:.*\n(?:(?:[ \t-].*)?\n)*", re.M)
_PINNED = re.compile(r"^pinned_sha:", re.M)
TODO = "# TODO(freezer next): set pinned_sha to the commit the fixtures of this version were checked against\n"


@dataclass
class NextResult:
    number: int
    drafts: Path
    copied: int  # files copied from the latest frozen version (0 when the drafts were kept)


def _copy_frozen(root: Path, frozen: registry.FrozenVersion, drafts: Path) -> int:
    manifest = frozen.manifest()
    generated = (
        registry.DELTA,
        registry.COMPARABILITY,
        registry.TEMPLATE_COPY,
        registry.GITATTRIBUTES,
        "fixture.schema.json",
    )
    names = [rel for rel in manifest["files"] if rel not in generated]
    for rel in names:
        target = require_safe(root, drafts / rel, "a draft file", folder=False)
        require_safe(root, target.parent, "a drafts folder").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(frozen.path / rel, target)  # the copy is writable: these are drafts again
    return len(names)


def start_next(root: Path, suite: SuiteConfig) -> NextResult:
    """Start the next version's drafts; ``root`` is the registry's, where every write must stay."""
    versions = registry.frozen_versions(suite)
    if not versions:
        raise UsageError(f"suite {suite.name!r} has no frozen version yet; cut v1 first")
    latest = versions[-1]
    upcoming = latest.number + 1
    drafts = require_safe(root, suite.drafts, "the drafts folder")
    copied = 0
    if not drafts.exists() or not any(drafts.iterdir()):
        drafts.mkdir(parents=True, exist_ok=True)
        copied = _copy_frozen(root, latest, drafts)
    version_file = require_safe(root, drafts / "version.yaml", "the drafts' version.yaml", folder=False)
    if not version_file.is_file():
        raise UsageError(f"{display_path(version_file)} is missing; the drafts folder is not empty, so it is kept")
    text = version_file.read_text(encoding="utf-8")
    match = _VERSION.search(text)
    if match is None:
        raise InvalidInput(
            f"{display_path(version_file)}: no 'version: N' line to bump",
            [Problem(display_path(version_file), None, None, ("version",), "write it as version: N", "rule")],
        )
    current = int(match.group(1))
    if current == upcoming:
        raise UsageError(f"the drafts already say version {upcoming}: the next version is started")
    if current != latest.number:
        raise UsageError(
            f"the drafts say version {current}, but the latest frozen version is {latest.name}; "
            f"set version: {upcoming} by hand if these drafts are meant for it"
        )
    text = _VERSION.sub(f"version: {upcoming}", text, count=1)
    text = _COMMITS.sub("tool_surface_commits: []  # the commits since the previous build, when there are any\n", text)
    if TODO not in text:
        text = _PINNED.sub(TODO.rstrip("\n") + "\npinned_sha:", text, count=1)
    if load_bytes(text.encode("utf-8"), display_path(version_file)).document is None:
        raise UsageError(f"{display_path(version_file)}: editing it would break its YAML; edit it by hand")
    version_file.write_text(text, encoding="utf-8")
    return NextResult(upcoming, drafts, copied)
