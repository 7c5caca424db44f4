"""Every git call freezer makes, recorded as it happens: only calls that read stored objects.

A ``git`` wrapper first in ``PATH`` (an absolute entry, so freezer resolves it)
logs each argv and runs the real git. Over a registry whose own config and
code repository's config name a filter, a textconv, a diff command, a merge
driver and an fsmonitor, all switched on by attributes, every command that
reads git runs; then the log must hold only the subcommands and options that
never reach git's conversion machinery, never a working-tree comparison
(``diff``, ``status``, ``checkout``, ``show``, ``archive``, ``ls-files -m``,
``cat-file --filters``...), and the marker program must never have run.
Writing commands (``init``, ``add``, ``commit``) appear only in ``demo`` and
``init``, which make repositories of their own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hostile.git_programs import CONTENT_OPTIONS, READING, WRITING
from test_git_policy import marker_program, plain_git

from conftest import REPO, run_forked

REAL_GIT = shutil.which("git") or "git"
END = "--end-of-call--"


def wrapper(folder: Path, log: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "git"
    script.write_text(
        # One printf, so one append: git calls made in parallel never interleave their records.
        f"#!/bin/sh\nprintf '%s\\0' \"$@\" '{END}' >> '{log}'\nexec '{REAL_GIT}' \"$@\"\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return folder


def calls(log: Path) -> list[list[str]]:
    """Each logged call as (subcommand, its arguments), the policy's global options removed."""
    found: list[list[str]] = []
    current: list[str] = []
    for arg in log.read_bytes().decode("utf-8", "surrogateescape").split("\0"):
        if arg == END:
            found.append(current)
            current = []
        else:
            current.append(arg)
    result = []
    for argv in found:
        rest = iter(argv)
        for arg in rest:
            if arg in ("-c", "-C"):
                next(rest)
            elif not arg.startswith("-"):
                result.append([arg, *rest])
                break
    return result


def assert_only_reads(log: Path, writes: bool) -> None:
    seen = calls(log)
    assert seen, "the wrapper logged nothing: git was not resolved through PATH"
    for sub, *args in seen:
        allowed = READING | WRITING if writes else READING
        assert sub in allowed, f"freezer ran git {sub} {args}"
        head = args[: args.index("--")] if "--" in args else args
        options = [a for a in head if a.startswith("-")]
        if sub == "cat-file":
            assert args == ["--batch"], args
        if sub == "ls-files":
            # --others --ignored --exclude-standard lists the names git ignores (what a cut leaves out):
            # it reads folders and ignore files, never a file's content, so no filter can run.
            # --exclude-from names the user's global excludes file, which git add honours too.
            named = {a for a in options if a.startswith("--exclude-from=")}
            assert len(named) <= 1, args
            assert set(options) - named <= {"-s", "-t", "-z", "--others", "--ignored", "--exclude-standard"}, args
            assert "--others" not in options or {"--ignored", "--exclude-standard"} <= set(options), args
        if sub == "log":
            assert not [a for a in options if a.startswith(CONTENT_OPTIONS)], args
        if sub == "config":
            # --file ... --get core.excludesFile: where the user's global excludes file is, one key read
            global_excludes = args[:1] == ["--file"] and args[2:] == ["--path", "--get", "core.excludesFile"]
            assert (
                args[:1] == ["--get"] or global_excludes or (writes and args[0] in ("core.autocrlf", "commit.gpgsign"))
            ), args
        if sub == "branch":  # list mode only (-r remote-tracking, -l local): never creates or deletes one
            assert args[0] in ("-r", "-l") and "--contains" in args, args
            assert set(options) <= {"-r", "-l", "--contains", "--format=%(refname:short)"}, args
    log.unlink()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_every_git_call_reads_stored_objects_only(tmp_path: Path) -> None:
    log = tmp_path / "git.log"
    env = {"PATH": f"{wrapper(tmp_path / 'bin', log)}:{Path(REAL_GIT).parent}"}
    root = tmp_path / "demo"
    result = run_forked("demo", str(root), cwd=REPO, env=env, timeout=300)
    assert result.code == 0, result.text
    assert_only_reads(log, writes=True)
    result = run_forked("init", str(tmp_path / "new"), cwd=REPO, env=env)
    assert result.code == 0, result.text
    assert_only_reads(log, writes=True)

    script, marker = marker_program(tmp_path, "calls")
    for repo in (root, root / "sample-code"):
        (repo / ".git/info").mkdir(exist_ok=True)
        (repo / ".git/info/attributes").write_text("* filter=x diff=x merge=x ident\n", encoding="utf-8")
        for key in ("filter.x.clean", "filter.x.smudge", "diff.x.textconv", "diff.x.command", "merge.x.driver"):
            plain_git("config", key, str(script), cwd=repo, check=True)
        plain_git("config", "core.fsmonitor", str(script), cwd=repo, check=True)
        plain_git("status", cwd=repo)
        assert marker.exists(), f"the drivers in {repo} did not run under plain git"
        marker.unlink()

    commands = [
        ["validate"],
        ["status"],
        ["audit"],
        ["check", "--base", "HEAD"],
        ["check", "--base", "HEAD~1"],
        ["list"],
        ["show", "graph_v2"],
        ["diff", "graph_v1", "graph_v2"],
        ["compare", "graph_v1", "graph_v2"],
        ["log"],
        ["attest", "graph_v2"],
        ["site", str(tmp_path / "site")],
        ["next", "--suite", "graph"],
        ["cut", "--dry-run", "--suite", "graph", "v3"],
    ]
    for command in commands:
        result = run_forked(*command, cwd=root, env=env)
        assert result.code == 0, (command, result.text)
        assert not marker.exists(), f"freezer {' '.join(command)} ran the program"
        if command[0] == "next":  # issue 27: a cut refuses next's TODO line, so it is done, as a user would
            version = root / "drafts/graph/version.yaml"
            version.write_text(
                "".join(line for line in version.read_text().splitlines(True) if "TODO(freezer" not in line)
            )
    assert_only_reads(log, writes=False)
