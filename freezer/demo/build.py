"""Build the deterministic sample code repository on disk."""

from __future__ import annotations

import shutil
from pathlib import Path

from freezer.demo.samplecode import HISTORY, Tree, base_tree
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

EPOCH = 1776938400  # 2026-04-23T10:00:00Z, the day of the seed's tasks


def _write_tree(root: Path, tree: Tree) -> None:
    for rel, text in tree.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")


def commit_env(index: int) -> dict[str, str]:
    stamp = f"@{EPOCH + index * 3600} +0000"
    return {**DETERMINISTIC_ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


def build_sample_repo(path: Path) -> dict[str, str]:
    """Create the sample repository at ``path`` (must not exist); return SHAs by label."""
    if path.exists():
        raise FileExistsError(path)
    path.mkdir(parents=True)
    try:
        env = commit_env(0)
        run_git(["init", "-q", "-b", "main", "."], path, env)
        run_git(["config", "core.autocrlf", "false"], path, env)
        run_git(["config", "commit.gpgsign", "false"], path, env)
        tree = base_tree()
        shas: dict[str, str] = {}
        for index, commit in enumerate(HISTORY):
            commit.change(tree)
            _write_tree(path, tree)
            env = commit_env(index)
            run_git(["add", "-A"], path, env)
            message = commit.subject + (f"\n\n{commit.body}" if commit.body else "")
            if commit.nonce:
                message += f"\n\nSample-Nonce: {commit.nonce}"
            run_git(["commit", "-q", "--allow-empty", "-m", message], path, env)
            shas[commit.label] = run_git(["rev-parse", "HEAD"], path, env).strip()
        return shas
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 2:
        sys.exit("usage: python -m freezer.demo.build PATH   (PATH must not exist)")
    for label, sha in build_sample_repo(Path(sys.argv[1])).items():
        print(f"{label:>12}  {sha}")
