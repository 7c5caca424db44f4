"""Find the Sample-Nonce trailers that give the sample repository the seed's SHAs.

The seed's design notes name real commits (pinned 7df885db; tool-surface
commits 56117f6c, 5f861caf, 7e86d41c). The sample repository reproduces those
8-hex prefixes by adding a nonce trailer to those commits' messages, so the
provenance block copied verbatim from the seed is also true of the sample.
Rerun this only when the sample content in freezer/demo/samplecode.py
changes, then paste the printed nonces into HISTORY. Needs gcc and libssl-dev.

    gcc -O3 -o /tmp/sha_prefix_search tools/sha_prefix_search.c -lcrypto
    python tools/find_sample_nonces.py /tmp/sha_prefix_search
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from freezer.demo.build import _write_tree, commit_env
from freezer.demo.samplecode import HISTORY, base_tree
from freezer.git.gitrepo import run_git

TARGETS = {"indexer": "56117f6c", "descriptions": "5f861caf", "surface": "7e86d41c", "v2": "7df885db"}


def search(searcher: str, prefix: bytes, target: str, workers: int = 2) -> str:
    with tempfile.NamedTemporaryFile() as handle:
        handle.write(prefix)
        handle.flush()
        procs = [
            subprocess.Popen([searcher, handle.name, target, str(w), str(workers)], stdout=subprocess.PIPE, text=True)
            for w in range(workers)
        ]
        try:
            while True:
                for proc in procs:
                    if proc.poll() is not None:
                        return proc.stdout.read().strip() if proc.stdout else ""
                import time

                time.sleep(0.2)
        finally:
            for proc in procs:
                proc.kill()


def main(searcher: str) -> None:
    root = Path(tempfile.mkdtemp()) / "sample"
    root.mkdir()
    run_git(["init", "-q", "-b", "main", "."], root, commit_env(0))
    tree = base_tree()
    for index, commit in enumerate(HISTORY):
        commit.change(tree)
        _write_tree(root, tree)
        env = commit_env(index)
        run_git(["add", "-A"], root, env)
        nonce = ""
        if commit.label in TARGETS:
            tree_sha = run_git(["write-tree"], root, env).strip()
            parent = run_git(["rev-parse", "HEAD"], root, env).strip()
            stamp = env["GIT_AUTHOR_DATE"].lstrip("@")
            who = f"{env['GIT_AUTHOR_NAME']} <{env['GIT_AUTHOR_EMAIL']}> {stamp}"
            prefix = (
                f"tree {tree_sha}\nparent {parent}\nauthor {who}\ncommitter {who}\n\n{commit.subject}\n\nSample-Nonce: "
            )
            nonce = search(searcher, prefix.encode(), TARGETS[commit.label])
        message = commit.subject + (f"\n\nSample-Nonce: {nonce}" if nonce else "")
        run_git(["commit", "-q", "--allow-empty", "-m", message], root, env)
        sha = run_git(["rev-parse", "HEAD"], root, env).strip()
        print(f"{commit.label}: nonce={nonce!r} sha={sha}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
