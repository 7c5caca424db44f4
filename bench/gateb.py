"""Gate B and tree materialization, freezer's way, for bench/run.py.

    python bench/gateb.py gate CODE_REPO SHA FIXTURES.json   # Gate B of every fixture at SHA
    python bench/gateb.py tree CODE_REPO SHA OUT              # write SHA's tree out, as Gate B does

``gate`` runs freezer's check (the tree written out once, then one rg process
per fixture, on every core) and exits 1 if any count differs. ``tree``
measures the materialization alone (written, then removed), against
``git archive | tar -x`` into a folder that is then removed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def gate(repo_path: Path, sha: str, fixtures_file: Path) -> int:
    from freezer.git.gitrepo import CodeRepo
    from freezer.parse.document import YamlDocument
    from freezer.resolve.groundtruth import check_gate_b_all

    fixtures = json.loads(fixtures_file.read_text())
    docs = [YamlDocument(f"fx-{i}", data, {}) for i, data in enumerate(fixtures)]
    with CodeRepo(repo_path) as repo:
        return len(check_gate_b_all(repo, sha, docs))


def tree(repo_path: Path, sha: str, _out: Path) -> int:
    """Write the tree out and remove it again (a cut does both); 1 if nothing was written."""
    from freezer.git.gitrepo import CodeRepo

    with CodeRepo(repo_path) as repo:
        written = repo.checkout(sha)
        found = any(written.iterdir())
    return 0 if found else 1


if __name__ == "__main__":
    mode, repo, sha, extra = sys.argv[1:5]
    run = gate if mode == "gate" else tree
    sys.exit(1 if run(Path(repo), sha, Path(extra)) else 0)
