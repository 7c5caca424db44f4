"""``freezer validate <file>`` leaves out what a whole validate and a cut leave out: a file git
ignores is no part of any version (said, not checked), and litter git does not ignore is refused
with what to do. What git ignores includes the user's global excludes file (``core.excludesFile``,
by default ``$XDG_CONFIG_HOME/git/ignore``): ``git add -A`` on the author's machine honours it, so a
file it ignores would be frozen and never committed. Real git, the real CLI in a process of its own."""

from __future__ import annotations

from pathlib import Path

from conftest import assert_clean_failure, run_forked
from nocode_helpers import drafts, registry, write
from registry_helpers import commit_all, snapshot

SCRATCH = "drafts/qa/fixtures/scratch.yaml"


def _registry(tmp_path: Path, ignore: str) -> Path:
    root = registry(tmp_path)
    drafts(root, 1)
    write(root / ".gitignore", ignore)
    commit_all(root, "drafts")
    write(root / SCRATCH, "notes: an author's scratch file, not a fixture\n")
    return root


def _home(tmp_path: Path, gitconfig: str | None, xdg_ignore: str | None) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    if gitconfig is not None:
        write(home / ".gitconfig", gitconfig)
    if xdg_ignore is not None:
        write(home / "xdg/git/ignore", xdg_ignore)
    return {"HOME": str(home), "XDG_CONFIG_HOME": str(home / "xdg")}


def test_validate_of_a_file_git_ignores_leaves_it_out(tmp_path: Path) -> None:
    root = _registry(tmp_path, "scratch*.yaml\n")
    result = run_forked("validate", SCRATCH, cwd=root)
    assert result.code == 0, result.text
    assert "git ignores it" in result.text and SCRATCH in result.text, result.text


def test_validate_of_litter_git_does_not_ignore_refuses_it(tmp_path: Path) -> None:
    root = _registry(tmp_path, "scratch*.yaml\n")
    write(root / "drafts/qa/fixtures/capital-city.yaml.bak", "task_id: capital-city\n")
    result = run_forked("validate", "drafts/qa/fixtures/capital-city.yaml.bak", cwd=root)
    assert_clean_failure(result)
    assert "drafts/qa/fixtures/capital-city.yaml.bak" in result.out
    assert "add it to .gitignore (a line *.bak) or delete it" in result.out, result.out


def test_the_global_excludes_file_named_by_core_excludesfile_is_read(tmp_path: Path) -> None:
    root = _registry(tmp_path, "")
    env = _home(tmp_path, "[core]\n\texcludesFile = ~/global-ignore\n", None)
    write(Path(env["HOME"]) / "global-ignore", "scratch*.yaml\n")
    whole = run_forked("validate", cwd=root, env=env)
    assert whole.code == 0, whole.text
    assert "1 file(s) git ignores left out" in whole.text, whole.text
    before = snapshot(root)
    cut = run_forked("cut", "v1", cwd=root, env=env)
    assert cut.code == 0, cut.text
    assert "scratch" not in (root / "versions/qa_v1/manifest.json").read_text(encoding="utf-8")
    assert before != snapshot(root)


def test_the_default_global_excludes_file_is_read(tmp_path: Path) -> None:
    root = _registry(tmp_path, "")
    env = _home(tmp_path, None, "scratch*.yaml\n")
    result = run_forked("validate", SCRATCH, cwd=root, env=env)
    assert result.code == 0, result.text
    assert "git ignores it" in result.text, result.text
    whole = run_forked("validate", cwd=root, env=env)
    assert whole.code == 0, whole.text
    assert "1 file(s) git ignores left out" in whole.text, whole.text
