"""Check the wheel and the sdist that CI built (.ci/run) before anything installs them.

What `twine check` checks for a Markdown README (the metadata parses, the long description is there and
says text/markdown), and what only this project knows: the name is the distribution name, not the
command's; the version is freezer's own; the wheel carries the schemas and templates freezer reads at run
time and the `freezer` command; the sdist carries what the wheel is built from.

    python tools/check_dist.py DIST_FOLDER     (exit 0: both fine; 1: each problem printed)
"""

from __future__ import annotations

import sys
import tarfile
import zipfile
from email.parser import HeaderParser
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from freezer.domain.release import DISTRIBUTION, __version__  # noqa: E402 - after the path above

# Files freezer opens at run time from its own install (freezer/runtime/resources.py).
WHEEL_DATA = (
    "freezer/_data/schemas/manifest.schema.json",
    "freezer/_data/templates/METHOD.md.j2",
    "freezer/_data/templates/init/github-workflow.yml.j2",
    "freezer/_data/examples/graph/v2/version.yaml",
)
SDIST_FILES = ("pyproject.toml", "README.md", "freezer/__init__.py", "schemas/manifest.schema.json")


def _stem() -> str:
    """The file-name form of the distribution name (PEP 427: runs of -_. become _)."""
    return DISTRIBUTION.replace("-", "_").replace(".", "_")


def check_metadata(text: str, where: str) -> list[str]:
    problems = []
    meta = HeaderParser().parsestr(text)
    if meta["Name"] != DISTRIBUTION:
        problems.append(f"{where}: Name is {meta['Name']!r}; pyproject.toml [project] name must be {DISTRIBUTION!r}")
    if meta["Version"] != __version__:
        problems.append(f"{where}: Version is {meta['Version']!r}, freezer/domain/release.py says {__version__!r}")
    if meta["Description-Content-Type"] != "text/markdown":
        problems.append(
            f"{where}: Description-Content-Type is {meta['Description-Content-Type']!r}; "
            'the index renders README.md only as text/markdown (readme = "README.md" in pyproject.toml)'
        )
    body = meta.get_payload()
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    if not isinstance(body, str) or body.strip() != readme.strip():
        problems.append(f"{where}: the long description is not README.md")
    return problems


def check_wheel(wheel: Path) -> list[str]:
    problems = []
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        info = f"{_stem()}-{__version__}.dist-info"
        if f"{info}/METADATA" not in names:
            return [f"{wheel.name}: no {info}/METADATA: is this the wheel of {DISTRIBUTION} {__version__}?"]
        problems += check_metadata(archive.read(f"{info}/METADATA").decode("utf-8"), f"{wheel.name}: METADATA")
        problems += [
            f"{wheel.name}: {rel} is missing (force-include in pyproject.toml)"
            for rel in WHEEL_DATA
            if rel not in names
        ]
        points = archive.read(f"{info}/entry_points.txt").decode("utf-8") if f"{info}/entry_points.txt" in names else ""
        if "freezer = freezer.cli:main" not in points:
            problems.append(f"{wheel.name}: no `freezer` command in {info}/entry_points.txt ([project.scripts])")
    return problems


def check_sdist(sdist: Path) -> list[str]:
    top = f"{_stem()}-{__version__}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        member = archive.extractfile(f"{top}/PKG-INFO") if f"{top}/PKG-INFO" in names else None
        if member is None:
            return [f"{sdist.name}: no {top}/PKG-INFO: is this the sdist of {DISTRIBUTION} {__version__}?"]
        problems = check_metadata(member.read().decode("utf-8"), f"{sdist.name}: PKG-INFO")
    return problems + [
        f"{sdist.name}: {rel} is missing ([tool.hatch.build.targets.sdist])"
        for rel in SDIST_FILES
        if f"{top}/{rel}" not in names
    ]


def check_folder(folder: Path) -> list[str]:
    wheels = sorted(folder.glob("*.whl"))
    sdists = sorted(folder.glob("*.tar.gz"))
    if len(wheels) != 1 or len(sdists) != 1:
        return [f"{folder}: expected one wheel and one sdist, found {[p.name for p in wheels + sdists]}"]
    return check_wheel(wheels[0]) + check_sdist(sdists[0])


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python tools/check_dist.py DIST_FOLDER", file=sys.stderr)
        return 2
    problems = check_folder(Path(argv[0]))
    for problem in problems:
        print(f"✗ {problem}")
    if not problems:
        print(f"✓ {DISTRIBUTION} {__version__}: wheel and sdist metadata, README, data files and command")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
