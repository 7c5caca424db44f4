"""How `freezer site` scales: a registry of N versions x F fixtures, timed as versions are added.

    python bench/site.py --fixtures 2000 --versions 20

Each version is cut by freezer (one fixture's question changes per version, so every
version differs); the site is built after a few of the cuts, and the time and output
size are reported per version, to show they grow linearly. Not part of CI: it takes minutes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402

FREEZER = [sys.executable, "-m", "freezer"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--fixtures", type=int, default=2000)
    parser.add_argument("--versions", type=int, default=20)
    args = parser.parse_args()
    checkpoints = sorted({max(1, args.versions // 4), max(1, args.versions // 2), args.versions})
    rows = []
    with tempfile.TemporaryDirectory(prefix="freezer-site-bench-") as scratch:
        root = generate.registry(Path(scratch) / "registry", args.fixtures)
        for number in range(1, args.versions + 1):
            if number > 1:
                version_file = root / "drafts" / "version.yaml"
                text = version_file.read_text().replace(f"version: {number - 1}", f"version: {number}")
                version_file.write_text(text)
                first = root / "drafts" / "fixtures" / f"fx-{number % args.fixtures:06d}.yaml"
                first.write_text(first.read_text().replace("question: ", f"question: (v{number}) ", 1))
            started = time.perf_counter()
            subprocess.run([*FREEZER, "cut", f"v{number}"], cwd=root, check=True, capture_output=True)
            cut_seconds = time.perf_counter() - started
            if number in checkpoints:
                out = Path(scratch) / f"site-{number}"
                started = time.perf_counter()
                subprocess.run([*FREEZER, "site", str(out)], cwd=root, check=True, capture_output=True)
                seconds = time.perf_counter() - started
                size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
                pages = sum(1 for _ in out.rglob("*.html"))
                rows.append(
                    {
                        "versions": number,
                        "site_seconds": round(seconds, 2),
                        "seconds_per_version": round(seconds / number, 3),
                        "pages": pages,
                        "megabytes": round(size / 1e6, 1),
                        "last_cut_seconds": round(cut_seconds, 2),
                    }
                )
                print(json.dumps(rows[-1]), flush=True)
    print(json.dumps({"fixtures": args.fixtures, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
