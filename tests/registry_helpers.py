"""Real registries for tests: the deterministic sample repository, real git, real files."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from freezer.demo.build import build_sample_repo
from freezer.demo.registry import API_CONFIG, CONFIG
from freezer.demo.samplecode import TOOL_SURFACE
from freezer.freeze.scaffold import PLACEHOLDERS
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import EXAMPLES, run_inprocess

_SAMPLE_CACHE: dict[str, Path] = {}


# The demo's api suite (the generic example), as freezer demo configures it.
API_SUITE = API_CONFIG.format(globs="\n".join(f"      - {glob!r}" for glob in TOOL_SURFACE))


# A registry of one lm-eval suite, bbh, whose tasks are drafts/bbh/tasks/*.yaml.
BBH_LMEVAL_CONFIG = """\
suites:
  bbh:
    kind: lm-eval
    drafts: drafts/bbh
    fixtures: "tasks/*.yaml"
    versions: versions
"""


def sample_repo(cache_root: Path) -> Path:
    """Build the sample repository once per test session."""
    if "repo" not in _SAMPLE_CACHE:
        path = cache_root / "sample-code"
        build_sample_repo(path)
        pack_git_objects(path)
        _SAMPLE_CACHE["repo"] = path
    return _SAMPLE_CACHE["repo"]


def pack_git_objects(root: Path) -> None:
    """Pack the loose objects of every git repository under ``root`` and drop git's sample hooks: a
    repository built once per session is copied by hundreds of tests, and a copy of the sample
    repository took 41 ms with its 300 loose files, 15 ms packed. git reads the same objects either way."""
    for git_dir in [root / ".git", *root.glob("*/.git")]:
        if not git_dir.is_dir():
            continue
        run_git(["repack", "-a", "-d", "-q"], git_dir.parent, DETERMINISTIC_ENV)
        for sample in (git_dir / "hooks").glob("*.sample"):
            sample.unlink()


def make_registry(tmp_path: Path, cache_root: Path, drafts: str = "v1") -> Path:
    root = tmp_path / "registry"
    root.mkdir(parents=True)
    shutil.copytree(sample_repo(cache_root), root / "sample-code", symlinks=True)
    globs = "\n".join(f"      - {glob!r}" for glob in TOOL_SURFACE)
    (root / "freezer.yaml").write_text(CONFIG.format(globs=globs), encoding="utf-8")
    (root / ".gitignore").write_text("/sample-code/\n", encoding="utf-8")
    set_drafts(root, drafts)
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "initial registry")
    return root


def set_drafts(root: Path, version: str) -> None:
    drafts = root / "drafts" / "graph"
    shutil.rmtree(drafts, ignore_errors=True)
    shutil.copytree(EXAMPLES / "graph" / version, drafts)


def ok(result: Any) -> Any:
    """A command's result that must have succeeded, with no traceback."""
    assert result.code == 0, result.text
    assert "Traceback" not in result.text
    return result


def cut_suite(root: Path, suite: str, label: str) -> Any:
    """``freezer cut label --suite suite``, which must succeed, then the registry committed."""
    result = ok(run_inprocess("cut", label, "--suite", suite, cwd=root))
    commit_all(root, f"freeze {suite} {label}")
    return result


def compare_arms(root: Path, old: str, new: str, suite: str) -> dict[str, dict[str, Any]]:
    """``freezer compare old new --format json``: each arm's record, by arm."""
    out = ok(run_inprocess("compare", old, new, "--suite", suite, "--format", "json", cwd=root)).out
    return {record["arm"]: record for record in json.loads(out)["result"]["arms"]}


def commit_all(root: Path, message: str) -> None:
    run_git(["add", "-A"], root, DETERMINISTIC_ENV)
    run_git(["commit", "-q", "--allow-empty", "-m", message], root, DETERMINISTIC_ENV)


def code_commit(root: Path, files: dict[str, str], message: str) -> str:
    """Add a commit to the registry's sample code repository; return its SHA."""
    code = root / "sample-code"
    for rel, text in files.items():
        (code / rel).parent.mkdir(parents=True, exist_ok=True)
        (code / rel).write_text(text, encoding="utf-8")
    commit_all(code, message)
    return run_git(["rev-parse", "HEAD"], code, DETERMINISTIC_ENV).strip()


def snapshot(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` with its bytes, to compare before and after."""
    if not path.exists():
        return {}
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def set_build_sha(version_yaml: Path, sha: str) -> None:
    """Give the draft's binary a build SHA in place of its build_sha_unknown reason."""
    import re

    text = version_yaml.read_text(encoding="utf-8")
    text = re.sub(r"  build_sha_unknown: >-\n(?:    .*\n)+", "", text)
    text = re.sub(r"  build_sha: .*\n", "", text)
    text = text.replace(
        "  path: /Users/daniel/.cargo/bin/orbit\n", f"  path: /Users/daniel/.cargo/bin/orbit\n  build_sha: {sha}\n"
    )
    version_yaml.write_text(text, encoding="utf-8")


def ssh_key(path: Path, passphrase: str = "") -> Path:
    """A fresh Ed25519 key pair at ``path`` and ``path.pub`` (its comment: the file's name), made by
    ssh-keygen itself."""
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", path.name, "-f", str(path)], check=True
    )
    return path


def public_line(key: Path) -> str:
    """The public half of ``key`` as an allowed_signers line holds it: its type and its base64 blob."""
    return " ".join(key.with_suffix(".pub").read_text().split()[:2])


def demo_signed_by_alice(base: Path, demo_build: Path) -> tuple[Path, Path]:
    """A demo registry under ``base`` (a copy of ``demo_build``) whose allowed_signers names alice, and alice's key."""
    root = base / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    key = ssh_key(base / "alice")
    (root / "allowed_signers").write_text(f"alice@example.org {public_line(key)}\n")
    commit_all(root, "allowed signers")
    return root, key


def write_own_prose(path: Path) -> None:
    """Write the author's text in place of each placeholder freezer init left in ``path``, as the first
    week asks (a cut refuses the scaffold's own wording: freezer.freeze.scaffold.PLACEHOLDERS)."""
    text = path.read_text(encoding="utf-8")
    for name, placeholder in PLACEHOLDERS.items():
        text = text.replace(placeholder, f"the author's own {name.replace('_', ' ')}")
    path.write_text(text, encoding="utf-8")


def small_code_repo(path: Path) -> Path:
    """A code repository to init a registry against: src/main.py, and tools/ for init's tool_surface
    glob (tools/**), in one commit on main."""
    (path / "src").mkdir(parents=True)
    (path / "src/main.py").write_text("def main():\n    return 0\n")
    (path / "tools").mkdir()
    (path / "tools/search.txt").write_text("search: find a symbol\n")
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "code"]):
        run_git(args, path, DETERMINISTIC_ENV)
    return path
