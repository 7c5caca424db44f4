"""A fixture's ground truth links to the code at the version's pinned SHA when the code repository's
frozen origin is on github.com or gitlab.com, and is plain text when there is no web address."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import yaml

from freezer.site.codelinks import web_address

from conftest import run_inprocess
from registry_helpers import commit_all


def test_ground_truth_links_to_the_code_at_the_pinned_sha(tmp_path: Path, demo_build: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    subprocess.run(
        ["git", "-C", str(root / "sample-code"), "remote", "add", "origin", "git@github.com:example/orbit.git"],
        check=True,
    )
    assert run_inprocess("next", "--suite", "graph", cwd=root).code == 0
    version = root / "drafts/graph/version.yaml"
    version.write_text(version.read_text().replace("# TODO(freezer next)", "# pinned as before:"))
    commit_all(root, "graph v3 drafts")
    cut = run_inprocess("cut", "v3", "--suite", "graph", cwd=root)
    assert cut.code == 0, cut.text
    built = run_inprocess("site", str(tmp_path / "site"), cwd=root)
    assert built.code == 0, built.text
    task = "impact-tool-context-struct-literals"
    fixture = yaml.safe_load((root / f"versions/graph_v3/fixtures/{task}.yaml").read_text())
    pinned = subprocess.run(
        ["git", "-C", str(root / "sample-code"), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    page = (tmp_path / f"site/graph/fixtures/{task}.html").read_text()
    for site in fixture["ground_truth"]:
        # one line is linked to that line; several (lines: [105, 239]) to the first, all of them shown
        lines = [site["line"]] if "line" in site else site["lines"]
        href = f"https://github.com/example/orbit/blob/{pinned}/{site['file']}#L{lines[0]}"
        shown = ", ".join(str(n) for n in lines)
        assert f'<a href="{href}"><code>{site["file"]}:{shown}</code></a>' in page, href
    # A fixture only graph_v2 holds (no origin frozen then) would stay text: the demo's own site shows it.


def test_without_a_web_address_a_site_is_text(tmp_path: Path, demo_build: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    built = run_inprocess("site", str(tmp_path / "site"), cwd=root)
    assert built.code == 0, built.text
    page = (tmp_path / "site/graph/fixtures/impact-tool-context-struct-literals.html").read_text()
    assert "<li><code>crates/orbit-core/src/command/tool.rs:48</code></li>" in page
    assert 'href="https://' not in page


def test_the_web_address_of_an_origin() -> None:
    expected = ("https://github.com/o/r", "blob")
    for origin in (
        "https://github.com/o/r.git",
        "git@github.com:o/r.git",
        "ssh://git@github.com/o/r",
        "https://github.com/o/r",
    ):
        assert web_address(origin) == expected, origin
    assert web_address("https://gitlab.com/group/sub/r.git") == ("https://gitlab.com/group/sub/r", "-/blob")
    unknown: tuple[str | None, ...] = (
        None,
        "",
        "/srv/git/r.git",
        "https://example.org/o/r.git",
        "https://github.com.evil.org/o/r",
    )
    for other in unknown:
        assert web_address(other) is None, other
