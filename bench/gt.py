"""Ground-truth verification of many file:line refs at one SHA, two ways, for bench/run.py.

    python bench/gt.py freezer|catfile CODE_REPO SHA REFS.json

``freezer`` runs freezer's own check (one tree listing, one long-lived
``git cat-file --batch``, freezer.git.catfile); ``catfile`` is the minimal
comparator: one ``git cat-file --batch`` process fed every file once.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def with_freezer(repo_path: Path, sha: str, refs: list[dict[str, object]]) -> int:
    from freezer.git.gitrepo import CodeRepo
    from freezer.parse.document import YamlDocument
    from freezer.resolve.groundtruth import check_sites

    doc = YamlDocument("refs", {"ground_truth": refs}, {})
    with CodeRepo(repo_path) as repo:
        return len(check_sites(repo, sha, doc))


def with_catfile(repo_path: Path, sha: str, refs: list[dict[str, object]]) -> int:
    proc = subprocess.Popen(
        ["git", "cat-file", "--batch"], cwd=repo_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    cache: dict[str, list[bytes]] = {}
    bad = 0
    for ref in refs:
        path = str(ref["file"])
        if path not in cache:
            proc.stdin.write(f"{sha}:{path}\n".encode())
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            size = int(header[2])
            data = proc.stdout.read(size)
            proc.stdout.read(1)
            cache[path] = data.split(b"\n")
        lines = cache[path]
        line = int(ref["line"])  # type: ignore[call-overload]
        if line > len(lines) or str(ref["symbol"]).encode() not in lines[line - 1]:
            bad += 1
    proc.stdin.close()
    proc.wait()
    return bad


if __name__ == "__main__":
    mode, repo, sha, refs_file = sys.argv[1:5]
    refs = json.loads(Path(refs_file).read_text())
    run = with_freezer if mode == "freezer" else with_catfile
    failures = run(Path(repo), sha, refs)
    sys.exit(1 if failures else 0)
