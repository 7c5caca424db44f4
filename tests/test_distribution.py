"""freezer is published as freezer-bench: every place that names the distribution says so, the hooks
install from a tag, and the builder id of a version follows the release that cut it."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import subprocess
import tarfile
import zipfile
from importlib import metadata
from pathlib import Path
from types import ModuleType

import pytest
import yaml

from freezer.domain.release import (
    DISTRIBUTION,
    REPOSITORY,
    __version__,
    action_ref,
    distribution_of,
    release_tag,
    version_line,
)
from freezer.render.attest import statement

from conftest import REPO, run_forked, run_inprocess
from doc_pages import page

# Spelled in pieces, so that this file does not match itself.
_OLD = "free" + "zer"
OLD_INSTALL = re.compile(r"pip\s+install\s+(?:-[-a-zA-Z]+\s+)*[\"']?" + _OLD + r"(?![-\w.])")
OLD_PIN = re.compile(r"(?<![-\w])" + _OLD + r"==")


def _tracked_text_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    found = []
    for name in listed.decode("utf-8").split("\0"):
        path = REPO / name
        if name and path.is_file() and not path.is_symlink():
            found.append(path)
    return found


def test_nothing_in_the_repository_installs_the_old_distribution_name() -> None:
    offenders = []
    for path in _tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary fixtures (tarballs) install nothing
        for pattern in (OLD_INSTALL, OLD_PIN):
            offenders += [f"{path.relative_to(REPO)}: {m.group(0)!r}" for m in pattern.finditer(text)]
    assert offenders == []


@pytest.mark.parametrize(
    ("text", "old"),
    [
        ("pip install " + _OLD, True),
        ('pip install "' + _OLD + '==0.3.0"', True),
        ("pip install -q " + _OLD + " rich", True),
        ("pip install " + _OLD + "-bench", False),
        ("pip install -e '.[dev]'", False),
        ("uv pip install " + _OLD + "\n", True),
        ("(`pip install\n" + _OLD + "`, or this repository)", True),
    ],
)
def test_the_old_spelling_pattern_catches_what_it_must(text: str, old: bool) -> None:
    assert bool(OLD_INSTALL.search(text) or OLD_PIN.search(text)) is old


def test_pyproject_and_the_installed_metadata_use_the_new_name() -> None:
    project = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert f'\nname = "{DISTRIBUTION}"\n' in project
    assert metadata.version(DISTRIBUTION) == __version__
    scripts = [e for e in metadata.distribution(DISTRIBUTION).entry_points if e.group == "console_scripts"]
    assert [(e.name, e.value) for e in scripts] == [("freezer", "freezer.cli:main")]  # the command keeps its name


@pytest.mark.parametrize("args", [["--version"], ["-C", ".", "--version"]])
def test_version_says_the_name_it_is_installed_under(args: list[str]) -> None:
    result = run_forked(*args, cwd=REPO)
    assert result.code == 0, result.text
    assert result.out == version_line() + "\n" == f"freezer {__version__} (installed as {DISTRIBUTION})\n"


@pytest.mark.parametrize(
    ("release", "name"),
    [("0.1.0", "freezer"), ("0.3.0", "freezer"), ("0.3.9.post1", "freezer"), ("0.4.0.dev0", DISTRIBUTION)],
)
def test_a_release_is_named_as_it_was_published(release: str, name: str) -> None:
    assert distribution_of(release) == name


def test_versions_cut_before_the_rename_keep_their_builder_id_and_new_cuts_name_freezer_bench(
    demo_build: Path,
) -> None:
    old = REPO / "tests/cases/format-3-registry/versions/graph_v1"
    frozen = json.loads((old / "provenance.json").read_text(encoding="utf-8"))
    assert frozen["predicate"]["runDetails"]["builder"]["id"] == "pkg:pypi/freezer@0.3.0"
    again = statement((old / "manifest.json").read_bytes(), (old / "METHOD.md").read_bytes())
    assert again == frozen  # re-derived as it was frozen, so audit (and its signatures) still hold
    for name in ("graph_v1", "swe_v1"):
        new = json.loads((demo_build / "versions" / name / "provenance.json").read_text(encoding="utf-8"))
        assert new["predicate"]["runDetails"]["builder"]["id"] == f"pkg:pypi/{DISTRIBUTION}@{__version__}"


# --- pre-commit hooks and the README's snippets -----------------------------------------------------


def _yaml_blocks(text: str) -> list[object]:
    """A page's YAML snippets that are whole documents (some are excerpts, with "...")."""
    found = []
    for block in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL):
        try:
            found.append(yaml.safe_load(block))
        except yaml.YAMLError:
            continue
    return found


def test_the_hooks_install_this_repository_and_run_the_freezer_command() -> None:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert [hook["id"] for hook in hooks] == ["freezer-validate", "freezer-check"]
    for hook in hooks:
        assert hook["language"] == "python"  # pre-commit pip-installs the tag's checkout: the command comes with it
        assert hook["entry"].split()[0] == "freezer"
        assert "additional_dependencies" not in hook
        assert hook["pass_filenames"] is False


def test_the_readme_names_the_repository_and_a_release_tag_for_the_hooks() -> None:
    readme = page("docs/guarding.md")
    remote = [
        repo
        for block in _yaml_blocks(readme)
        if isinstance(block, dict)
        for repo in block.get("repos", [])
        if repo["repo"] != "local"
    ]
    assert remote == [
        {
            "repo": f"https://github.com/{REPOSITORY}",
            "rev": release_tag(),
            "hooks": [{"id": "freezer-validate"}, {"id": "freezer-check"}],
        }
    ]
    assert release_tag() == "v" + __version__.split(".dev")[0]
    header = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    assert f"repo: https://github.com/{REPOSITORY}" in header and f"rev: {release_tag()}" in header


def test_the_readme_action_snippet_uses_the_inputs_action_yml_declares() -> None:
    readme = page("docs/guarding.md")
    declared = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))["inputs"]
    uses = [
        step
        for block in _yaml_blocks(readme)
        if isinstance(block, dict) and "jobs" in block
        for step in block["jobs"]["check"]["steps"]
        if str(step.get("uses", "")).startswith(REPOSITORY)
    ]
    assert len(uses) == 1
    assert uses[0]["uses"] == f"{REPOSITORY}@{action_ref()}"
    assert set(uses[0]["with"]) == set(declared)
    assert "GitHub home is not decided" in readme


def test_the_init_workflow_pins_this_release_by_its_index_name_from_one_place(tmp_path: Path) -> None:
    template = (REPO / "templates/init/github-workflow.yml.j2").read_text(encoding="utf-8")
    assert DISTRIBUTION not in template and __version__ not in template  # both come from release.py
    assert "pip install" not in (REPO / "templates/init/pre-commit-config.yaml").read_text(encoding="utf-8")
    made = run_inprocess("init", str(tmp_path / "new"), cwd=tmp_path)
    assert made.code == 0, made.text
    workflow = (tmp_path / "new/.github/workflows/freezer.yml").read_text(encoding="utf-8")
    assert f'pip install --disable-pip-version-check "{DISTRIBUTION}=={__version__}"' in workflow


def test_init_names_the_placeholder_home_from_one_place_and_never_as_a_step(tmp_path: Path) -> None:
    made = run_inprocess("init", str(tmp_path / "new"), cwd=tmp_path)
    assert made.code == 0, made.text
    workflow = (tmp_path / "new/.github/workflows/freezer.yml").read_text(encoding="utf-8")
    assert f"#   - uses: {REPOSITORY}@{action_ref()}\n" in workflow  # what replaces the steps once published
    assert f"- uses: {REPOSITORY}" not in workflow.replace(
        f"#   - uses: {REPOSITORY}", ""
    )  # a step would fail at set-up
    assert made.out.count(f"uses: {REPOSITORY}@{action_ref()}") == 1


# --- tools/check_dist.py ---------------------------------------------------------------------------


def _check_dist() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_dist", REPO / "tools/check_dist.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _metadata(name: str, version: str, content_type: str = "text/markdown") -> str:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return (
        f"Metadata-Version: 2.4\nName: {name}\nVersion: {version}\nDescription-Content-Type: {content_type}\n\n{readme}"
    )


def _wheel(folder: Path, name: str = DISTRIBUTION, leave_out: str = "", content_type: str = "text/markdown") -> Path:
    stem = DISTRIBUTION.replace("-", "_")
    info = f"{stem}-{__version__}.dist-info"
    path = folder / f"{stem}-{__version__}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"{info}/METADATA", _metadata(name, __version__, content_type))
        archive.writestr(f"{info}/entry_points.txt", "[console_scripts]\nfreezer = freezer.cli:main\n")
        for rel in _check_dist().WHEEL_DATA:
            if rel != leave_out:
                archive.writestr(rel, "{}")
    return path


def _sdist(folder: Path, version: str = __version__) -> Path:
    top = f"{DISTRIBUTION.replace('-', '_')}-{version}"
    path = folder / f"{top}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        files = {"PKG-INFO": _metadata(DISTRIBUTION, version), **{rel: "x" for rel in _check_dist().SDIST_FILES}}
        for rel, text in files.items():
            data = text.encode("utf-8")
            member = tarfile.TarInfo(f"{top}/{rel}")
            member.size = len(data)
            archive.addfile(member, io.BytesIO(data))
    return path


def test_check_dist_passes_a_wheel_and_sdist_as_build_makes_them(tmp_path: Path) -> None:
    _wheel(tmp_path)
    _sdist(tmp_path)
    assert _check_dist().check_folder(tmp_path) == []


def test_check_dist_refuses_the_old_name_a_missing_schema_and_a_plain_text_readme(tmp_path: Path) -> None:
    check = _check_dist()
    for folder in "abc":
        (tmp_path / folder).mkdir()
    named = _wheel(tmp_path / "a", name=_OLD)
    assert any(f"Name is '{_OLD}'" in p for p in check.check_wheel(named))
    bare = _wheel(tmp_path / "b", leave_out="freezer/_data/schemas/manifest.schema.json")
    assert check.check_wheel(bare) == [
        f"{bare.name}: freezer/_data/schemas/manifest.schema.json is missing (force-include in pyproject.toml)"
    ]
    plain = _wheel(tmp_path / "c", content_type="text/plain")
    assert any("Description-Content-Type is 'text/plain'" in p for p in check.check_wheel(plain))


def test_check_dist_refuses_an_sdist_of_another_version_and_a_folder_without_both(tmp_path: Path) -> None:
    check = _check_dist()
    other = _sdist(tmp_path, version="0.0.1")
    assert check.check_sdist(other) == [
        f"{other.name}: no {DISTRIBUTION.replace('-', '_')}-{__version__}/PKG-INFO: "
        f"is this the sdist of {DISTRIBUTION} {__version__}?"
    ]
    assert "expected one wheel and one sdist" in check.check_folder(tmp_path)[0]
