"""Issue 23, class 6: init and next never follow a link, never leave debris, and next copies only
bytes that match the manifest. Real folders, links, FIFOs, sockets and devices in tmp_path."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hostile import init_next as cases
from hostile.corpus import bind_socket

from conftest import REPO, Run, assert_clean_failure, run_forked, run_inprocess
from registry_helpers import commit_all, make_registry

slow = pytest.mark.slow
TODO = "# TODO(freezer next): set pinned_sha to the commit the fixtures of this version were checked against"
COMMITS_NOTE = "tool_surface_commits: []  # the commits since the previous build, when there are any"
# Issue 27: next bumps the version number in the title too (the examples' "v1 Graph Benchmark Fixtures").
TITLE_V1, TITLE_V2 = "title: v1 Graph Benchmark Fixtures", "title: v2 Graph Benchmark Fixtures"


def tree_state(path: Path, skip: tuple[str, ...] = ()) -> dict[str, tuple[object, ...]]:
    """Every entry under ``path`` (links as links), with its kind, mode and bytes or target."""
    state: dict[str, tuple[object, ...]] = {}

    def walk(here: Path, rel: str) -> None:
        info = os.lstat(here)
        if stat.S_ISLNK(info.st_mode):
            state[rel] = ("link", os.readlink(here))
        elif stat.S_ISDIR(info.st_mode):
            state[rel] = ("dir", stat.S_IMODE(info.st_mode))
            for name in sorted(os.listdir(here)):
                if not (rel == "." and name in skip):
                    walk(here / name, f"{rel}/{name}")
        elif stat.S_ISREG(info.st_mode):
            state[rel] = ("file", stat.S_IMODE(info.st_mode), here.read_bytes())
        else:
            state[rel] = ("special", stat.S_IFMT(info.st_mode))

    if os.path.lexists(path):
        walk(path, ".")
    return state


def run_without_override(*args: str, cwd: Path) -> Run:
    """The CLI with file permissions in force: as root, without the capabilities that let root read
    and write every file (so a mode-0 file is unreadable, as it is to anyone else)."""
    if os.geteuid() != 0:
        return run_inprocess(*args, cwd=cwd)
    drop = ["setpriv", "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]
    if shutil.which("setpriv") is None or subprocess.run([*drop, "true"], check=False).returncode != 0:
        pytest.skip("needs setpriv to run without root's file-permission override")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("FREEZER_DEBUG", None)
    proc = subprocess.run(
        [*drop, sys.executable, "-m", "freezer", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def outside_folder(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    (outside / "keep").mkdir(parents=True)
    (outside / "keep" / "precious.txt").write_text("precious\n")
    return outside


# --- freezer next -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def frozen_template(tmp_path_factory: pytest.TempPathFactory, cache_root: Path) -> Path:
    """A registry with graph_v1 cut from the v1 drafts plus an asset, committed (cut once per module)."""
    root = make_registry(tmp_path_factory.mktemp("init-next"), cache_root)
    config = root / "freezer.yaml"
    config.write_text(
        config.read_text().replace("    versions: versions\n", "    versions: versions\n    max_file_bytes: 1048576\n")
    )
    asset = root / "drafts/graph" / cases.LAST_ASSET
    asset.parent.mkdir()
    asset.write_bytes(b"payload\x00" * 512)
    cut = run_inprocess("cut", "v1", cwd=root)
    assert cut.code == 0, cut.text
    commit_all(root, "freeze graph_v1")
    return root


@pytest.fixture
def frozen(frozen_template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    shutil.copytree(frozen_template, root, symlinks=True)
    return root


def _staged(root: Path) -> list[str]:
    staging = root / ".freezer" / "staging"
    return sorted(os.listdir(staging)) if staging.is_dir() else []


@pytest.mark.parametrize("drafts_state", ["empty", "missing"])
def test_next_refills_drafts_with_verified_copies(frozen: Path, drafts_state: str) -> None:
    drafts = frozen / "drafts/graph"
    shutil.rmtree(drafts)
    if drafts_state == "empty":
        drafts.mkdir()
    result = run_inprocess("next", cwd=frozen)
    assert result.code == 0, result.text
    assert "copied 8 file(s)" in result.out
    version = frozen / "versions/graph_v1"
    for rel in ("fixtures/locate-register-tools.yaml", cases.LAST_ASSET):
        assert (drafts / rel).read_bytes() == (version / rel).read_bytes()
        assert os.stat(drafts / rel).st_mode & stat.S_IWUSR  # drafts again: writable
    old = (version / "version.yaml").read_text()
    assert (drafts / "version.yaml").read_text() == old.replace("\nversion: 1\n", "\nversion: 2\n", 1).replace(
        "\npinned_sha:", f"\n{TODO}\npinned_sha:", 1
    ).replace(TITLE_V1, TITLE_V2, 1)
    assert not (drafts / "manifest.json").exists() and not (drafts / "METHOD.md").exists()
    assert _staged(frozen) == []


# One case of each kind runs in the fast default; the whole corpus, and each case with missing
# drafts too, under -m slow (each case is a real next in a subprocess, about a second).
FAST = ("link-dev-zero", "tampered-fixture", "fifo", "fixtures-folder-link")
SPOILED = [
    pytest.param(spoil, state, id=f"{spoil.id}-{state}", marks=() if spoil.id in FAST and state == "empty" else slow)
    for spoil in cases.FROZEN_SPOILS
    for state in ("empty", "missing")
]


@pytest.mark.parametrize(("spoil", "drafts_state"), SPOILED)
def test_next_refuses_a_spoiled_frozen_file_and_leaves_everything(
    frozen: Path, tmp_path: Path, spoil: cases.FrozenSpoil, drafts_state: str
) -> None:
    outside = outside_folder(tmp_path)
    try:
        spoil.build(frozen / "versions/graph_v1", outside)
    except PermissionError:
        assert spoil.needs_mknod
        pytest.skip("this machine may not make device nodes")
    drafts = frozen / "drafts/graph"
    shutil.rmtree(drafts)
    if drafts_state == "empty":
        drafts.mkdir()
    registry_before = tree_state(frozen, skip=(".git", ".freezer"))
    outside_before = tree_state(outside)
    result = run_inprocess("next", cwd=frozen, timeout=60)
    assert_clean_failure(result, code=1)
    assert f"versions/graph_v1/{spoil.names}: " in result.err, result.err
    assert spoil.says in result.err and "nothing was copied" in result.err, result.err
    assert "freezer audit" in result.err
    assert tree_state(frozen, skip=(".git", ".freezer")) == registry_before
    assert tree_state(outside) == outside_before
    assert _staged(frozen) == []


def test_next_refuses_an_unreadable_frozen_file(frozen: Path) -> None:
    shutil.rmtree(frozen / "drafts/graph")
    (frozen / "drafts/graph").mkdir()
    secret = frozen / "versions/graph_v1" / cases.LAST_ASSET
    secret.chmod(0)
    before = tree_state(frozen, skip=(".git", ".freezer"))
    result = run_without_override("next", cwd=frozen)
    assert_clean_failure(result, code=1)
    assert f"versions/graph_v1/{cases.LAST_ASSET}: cannot be read: permission denied" in result.err, result.err
    assert tree_state(frozen, skip=(".git", ".freezer")) == before
    assert _staged(frozen) == []


def _edit_drafts_version(root: Path, old: str, new: str) -> str:
    path = root / "drafts/graph/version.yaml"
    text = path.read_text()
    assert text.count(old) == 1
    path.write_text(text.replace(old, new))
    return path.read_text()


def test_next_bumps_the_real_version_not_one_inside_a_quoted_title(frozen: Path) -> None:
    title = 'title: "v1 Graph Benchmark Fixtures,\nversion: 2\nof the graph suite"'
    before = _edit_drafts_version(frozen, "title: v1 Graph Benchmark Fixtures", title)
    assert before.count("\nversion: 1\n") == 1
    result = run_inprocess("next", cwd=frozen)
    assert result.code == 0, result.text
    after = (frozen / "drafts/graph/version.yaml").read_text()
    assert after == before.replace("\nversion: 1\n", "\nversion: 2\n").replace(
        "\npinned_sha:", f"\n{TODO}\npinned_sha:"
    ).replace('title: "v1 Graph', 'title: "v2 Graph', 1)
    assert title.replace("v1 Graph", "v2 Graph") in after
    assert run_inprocess("validate", cwd=frozen).code == 0


def test_next_bumps_a_version_with_a_comment_holding_another(frozen: Path) -> None:
    before = _edit_drafts_version(
        frozen, "\nversion: 1\n", "\n# version: 2 comes after the cut\nversion: 1  # version: 2 is next\n"
    )
    result = run_inprocess("next", cwd=frozen)
    assert result.code == 0, result.text
    after = (frozen / "drafts/graph/version.yaml").read_text()
    expected = before.replace("version: 1  # version: 2 is next", "version: 2  # version: 2 is next")
    assert after == expected.replace("\npinned_sha:", f"\n{TODO}\npinned_sha:").replace(TITLE_V1, TITLE_V2, 1)


def test_next_empties_a_block_of_commits_and_keeps_the_rest_byte_for_byte(frozen: Path) -> None:
    block = (
        "tool_surface_commits:\n"
        "  - sha: 56117f6c\n"
        "    dimension: indexer\n"
        "    effect: >-\n"
        "      Search results exclude benchmarks/;\n"
        "      version: 2 of the index.\n"
        "\n"
        "# a comment of the author's, kept\n"
    )
    before = _edit_drafts_version(frozen, "tool_surface_commits: []\n", block)
    result = run_inprocess("next", cwd=frozen)
    assert result.code == 0, result.text
    after = (frozen / "drafts/graph/version.yaml").read_text()
    expected = before.replace("\nversion: 1\n", "\nversion: 2\n").replace("\npinned_sha:", f"\n{TODO}\npinned_sha:")
    expected = expected.replace(TITLE_V1, TITLE_V2, 1)
    assert after == expected.replace(block, f"{COMMITS_NOTE}\n\n# a comment of the author's, kept\n")


def test_next_keeps_crlf_line_ends(frozen: Path) -> None:
    path = frozen / "drafts/graph/version.yaml"
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    result = run_inprocess("next", cwd=frozen)
    assert result.code == 0, result.text
    data = path.read_bytes()
    assert b"\r\nversion: 2\r\n" in data and f"\r\n{TODO}\r\npinned_sha:".encode() in data
    assert b"\n" not in data.replace(b"\r\n", b"")


def test_next_refuses_an_edit_that_would_change_more(frozen: Path) -> None:
    """An anchored version also used elsewhere: no edit of its text alone keeps the rest as it is."""
    before = _edit_drafts_version(frozen, "\nversion: 1\n", "\nversion: &v 1\nrounds: *v\n")
    result = run_inprocess("next", cwd=frozen)
    assert_clean_failure(result, code=1)
    assert "drafts/graph/version.yaml" in result.err
    assert (frozen / "drafts/graph/version.yaml").read_text() == before


@pytest.mark.parametrize("kind", ["fifo", "socket", "folder"])
def test_next_refuses_a_drafts_version_yaml_that_is_no_file(frozen: Path, kind: str) -> None:
    path = frozen / "drafts/graph/version.yaml"
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        bind_socket(path)
    else:
        path.mkdir()
    before = tree_state(frozen / "drafts")
    result = run_inprocess("next", cwd=frozen, timeout=60)
    assert_clean_failure(result, code=2)
    assert "drafts/graph/version.yaml: is not a regular file" in result.err
    assert tree_state(frozen / "drafts") == before


def test_next_refuses_while_another_command_holds_the_lock(frozen: Path) -> None:
    from freezer.runtime.lock import registry_lock

    before = tree_state(frozen, skip=(".git", ".freezer"))
    with registry_lock(frozen):
        result = run_forked("next", cwd=frozen)  # another process: this one's own lock would let it in
    assert_clean_failure(result, code=1)
    assert "holds the registry lock" in result.err
    assert tree_state(frozen, skip=(".git", ".freezer")) == before
    assert run_inprocess("next", cwd=frozen).code == 0


@pytest.mark.parametrize("link", ["drafts/graph", "drafts"], ids=["drafts-suite-link-inside", "drafts-link-inside"])
def test_next_never_writes_through_a_drafts_link_inside_the_registry(frozen: Path, link: str) -> None:
    """A link that stays inside the registry passes the config's checks; next still refuses it."""
    real = frozen / "elsewhere"
    shutil.move(frozen / link, real)
    (frozen / link).symlink_to(real)
    before = tree_state(real)
    result = run_inprocess("next", cwd=frozen)
    assert_clean_failure(result, code=1)
    assert "passes through a symbolic link" in result.err and "freezer writes only to real folders" in result.err
    assert tree_state(real) == before


def test_next_refuses_a_drafts_link_outside_the_registry(frozen: Path, tmp_path: Path) -> None:
    outside = outside_folder(tmp_path)
    shutil.rmtree(frozen / "drafts/graph")
    (frozen / "drafts/graph").symlink_to(outside)
    before = tree_state(outside)
    result = run_inprocess("next", cwd=frozen)
    assert_clean_failure(result, code=1)
    assert "$.suites.graph.drafts" in result.err and "outside the registry" in result.err
    assert tree_state(outside) == before


@pytest.mark.parametrize("link", [".freezer", ".freezer/staging"])
def test_next_never_stages_through_a_link(frozen: Path, tmp_path: Path, link: str) -> None:
    outside = outside_folder(tmp_path)
    shutil.rmtree(frozen / "drafts/graph")
    (frozen / "drafts/graph").mkdir()
    shutil.rmtree(frozen / ".freezer")
    (frozen / link).parent.mkdir(exist_ok=True)
    (frozen / link).symlink_to(outside)
    before = tree_state(outside)
    result = run_inprocess("next", cwd=frozen)
    assert_clean_failure(result, code=1)
    assert "symbolic link" in result.err
    assert tree_state(outside) == before
    assert list((frozen / "drafts/graph").iterdir()) == []


def test_a_folder_named_like_a_version_with_a_newline_is_no_version(frozen: Path) -> None:
    """``graph_v2\\n`` once matched the version pattern (its ``$`` allows a trailing newline)."""
    shutil.copytree(frozen / "versions/graph_v1", frozen / "versions/graph_v2\n")
    result = run_inprocess("next", cwd=frozen)
    assert result.code == 0, result.text
    assert "now says version 2" in result.out


@pytest.mark.parametrize("suite", ["graph\n", "graph\r", "graph ", "../graph"])
def test_next_refuses_a_suite_name_that_is_not_one(frozen: Path, suite: str) -> None:
    before = tree_state(frozen / "drafts")
    result = run_inprocess("next", "--suite", suite, cwd=frozen)
    assert_clean_failure(result, code=2)
    assert "unknown suite" in result.err
    assert tree_state(frozen / "drafts") == before


@pytest.mark.parametrize("label", ["v2\n", "v2\r", " v2", "graph_v2\n", "v2\x1b"])
def test_a_version_label_with_a_trailing_newline_or_space_is_refused(frozen: Path, label: str) -> None:
    result = run_inprocess("cut", "--dry-run", label, cwd=frozen)
    assert_clean_failure(result, code=2)
    assert f"{label!r} is not a version" in result.err


# --- freezer init -------------------------------------------------------------------------------


INIT_FAST = ("freezer-dir", "drafts", "github", "config-file")


@pytest.mark.parametrize(
    "case", [pytest.param(c, id=c.id, marks=() if c.id in INIT_FAST else slow) for c in cases.INIT_LINKS]
)
def test_init_never_writes_through_a_link(tmp_path: Path, case: cases.InitLink) -> None:
    outside = outside_folder(tmp_path)
    (outside / "a-file").write_text("outside\n")
    target = tmp_path / "reg"
    link = target / case.link
    link.parent.mkdir(parents=True)
    link.symlink_to(outside / "a-file" if case.to_file else outside)
    registry_before, outside_before = tree_state(target), tree_state(outside)
    result = run_inprocess("init", "reg", cwd=tmp_path)
    assert_clean_failure(result, code=2)
    assert "never through a link" in result.err, result.err
    assert f"passes through a symbolic link (reg/{case.link})" in result.err, result.err
    assert "remove that link" in result.err
    assert tree_state(outside) == outside_before
    assert tree_state(target) == registry_before


def test_init_never_writes_through_a_dangling_link(tmp_path: Path) -> None:
    target = tmp_path / "reg"
    target.mkdir()
    (target / ".pre-commit-config.yaml").symlink_to(tmp_path / "not-yet" / "hook.yaml")
    (tmp_path / "not-yet").mkdir()
    result = run_inprocess("init", "reg", cwd=tmp_path)
    assert_clean_failure(result, code=2)
    assert "(reg/.pre-commit-config.yaml)" in result.err
    assert list((tmp_path / "not-yet").iterdir()) == []


@pytest.mark.parametrize("git", ["link", "empty-file"])
def test_init_never_runs_git_init_through_a_dot_git_it_cannot_read(tmp_path: Path, git: str) -> None:
    outside = tmp_path / "outside-git"
    outside.mkdir()
    target = tmp_path / "reg"
    target.mkdir()
    if git == "link":
        (target / ".git").symlink_to(outside)
    else:
        (target / ".git").write_text("")
    before = tree_state(target)
    result = run_inprocess("init", "reg", cwd=tmp_path)
    assert_clean_failure(result, code=2)
    assert "reg/.git exists, but git does not read it as a repository" in result.err
    assert tree_state(target) == before
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize(
    "suite", [pytest.param(s, id=repr(s), marks=() if s in ("bench\n", "../x") else slow) for s in cases.BAD_SUITES]
)
def test_init_refuses_a_suite_name_that_is_not_one(tmp_path: Path, suite: str) -> None:
    result = run_inprocess("init", "x", "--suite", suite, cwd=tmp_path)
    assert_clean_failure(result, code=2)
    assert "is not a suite name" in result.err
    assert not (tmp_path / "x").exists()
    assert sorted(os.listdir(tmp_path)) == []


def test_init_builds_beside_and_leaves_no_staging(tmp_path: Path) -> None:
    result = run_inprocess("init", "a/b/reg", cwd=tmp_path)
    assert result.code == 0, result.text
    assert (tmp_path / "a/b/reg/drafts/bench/version.yaml").is_file()
    assert [p for p in tmp_path.rglob(".freezer-init-*")] == []
    assert sorted(os.listdir(tmp_path)) == ["a"]


def test_init_keeps_what_the_folder_held_and_hides_only_the_work_files(tmp_path: Path) -> None:
    target = tmp_path / "reg"
    (target / ".github" / "workflows").mkdir(parents=True)
    (target / ".github" / "workflows" / "other.yml").write_text("name: other\n")
    (target / "README.md").write_text("# mine\n")
    result = run_inprocess("init", "reg", cwd=tmp_path)
    assert result.code == 0, result.text
    assert (target / ".github/workflows/other.yml").read_text() == "name: other\n"
    assert (target / "README.md").read_text() == "# mine\n"
    assert (target / ".github/workflows/freezer.yml").is_file()
    assert [p.name for p in target.iterdir() if p.name.startswith(".freezer-init-")] == []

    def ignored(rel: str) -> bool:
        check = subprocess.run(["git", "check-ignore", "-q", rel], cwd=target, check=False)
        return check.returncode == 0

    assert ignored(".freezer/lock") and ignored(".freezer/staging/x")
    assert not ignored(".freezer/schemas/registry.schema.json") and not ignored(".freezer/.gitignore")


def test_init_that_fails_while_placing_removes_what_it_placed(tmp_path: Path) -> None:
    """With a .github that may not be written into, .freezer and .gitattributes are placed before
    .github/workflows fails, and are taken out again."""
    target = tmp_path / "reg"
    (target / ".github").mkdir(parents=True)
    (target / ".github").chmod(0o555)
    before = tree_state(target)
    result = run_without_override("init", str(target), cwd=tmp_path)
    assert_clean_failure(result, code=1)
    assert "cannot write the registry (Permission denied); nothing was written" in result.err, result.err
    assert tree_state(target) == before
    assert sorted(os.listdir(tmp_path)) == ["reg"]
