"""``freezer lock`` against a real registry on 127.0.0.1 (Debian's docker-registry): the images a
Harbor-style task set names by tag (a Dockerfile's FROM and ``COPY --from``, a compose service's
``image:``) are locked to the digest the registry serves; a cut reads the lock, never the network
(the server is stopped before every cut); a tag re-pointed between two versions moves exactly the
tasks whose image it is, in §Delta and ``compare``; ``lock --check`` is offline."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from freezer.demo.registry import OWN_FORMAT_CONFIG
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git

from conftest import REPO, run_cli, run_inprocess
from nocode_helpers import write
from ociregistry import free_port, push_image, push_index, registry_server, require_server, require_skopeo
from registry_helpers import commit_all, compare_arms, cut_suite, ok, snapshot

# One suite of Harbor-style task folders (the demo's tb alone: check reads every suite's drafts).
CONFIG = "suites:\n" + OWN_FORMAT_CONFIG.split("  swe:")[0]
VERSION = "suite: tb\nversion: {number}\ntitle: Terminal tasks\npurpose: >-\n  Tasks in containers.\n"
LOCK = "drafts/tb/freezer.lock.json"


def _registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    write(root / "freezer.yaml", CONFIG)
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    return root


def _drafts(root: Path, number: int, host: str, instruction: str = "Count the lines of /app/log.") -> None:
    tb = root / "drafts" / "tb"
    write(tb / "version.yaml", VERSION.format(number=number))
    build = tb / "tasks" / "build-app"
    write(build / "task.toml", "[metadata]\ndifficulty = 'easy'\n")
    write(build / "instruction.md", "Build the app.\n")
    write(build / "environment" / "Dockerfile", f"FROM {host}/acme/base:1\nCOPY --from={host}/acme/tool:1 /t /t\n")
    serve = tb / "tasks" / "serve-api"
    write(serve / "task.toml", "[metadata]\ndifficulty = 'easy'\n")
    write(serve / "instruction.md", "Serve the API.\n")
    write(serve / "docker-compose.yaml", f"services:\n  app:\n    image: {host}/acme/tool:1\n")
    count = tb / "tasks" / "count-lines"
    write(count / "task.toml", "[metadata]\ndifficulty = 'easy'\n")
    write(count / "instruction.md", instruction + "\n")


@pytest.mark.slow
def test_a_locked_tag_re_pointed_moves_exactly_the_tasks_whose_image_it_is(tmp_path: Path) -> None:
    require_server()
    require_skopeo()
    root, storage, port = _registry(tmp_path), tmp_path / "storage", free_port()
    host = f"127.0.0.1:{port}"
    _drafts(root, 1, host)
    with registry_server(storage, port):
        base_1 = push_image(host, "acme/base", "1", {"etc/os-release": b"ID=one\n"})
        tool = push_image(host, "acme/tool", "1", {"t": b"tool\n"})
        locked = run_cli("lock", "--suite", "tb", cwd=root)  # the real command, in its own process
        assert locked.code == 0, locked.text
        assert f"{host}/acme/base:1 locked at {base_1} (new)" in locked.out
    lock = json.loads((root / LOCK).read_bytes())
    assert lock == {"lock_format": 1, "images": {f"{host}/acme/base:1": base_1, f"{host}/acme/tool:1": tool}}
    commit_all(root, "tb drafts v1, locked")
    # The server is down: check reads no network, and a cut reads the lock alone.
    ok(run_inprocess("lock", "--check", "--suite", "tb", cwd=root))
    text = cut_suite(root, "tb", "tb_v1").text
    assert "by tag alone" not in text
    method = (root / "versions/tb_v1/METHOD.md").read_text(encoding="utf-8")
    assert f"| build-app | `{host}/acme/base:1` | `{base_1}` (pinned by lock) |" in method
    manifest = json.loads((root / "versions/tb_v1/manifest.json").read_bytes())
    assert manifest["environment_images"]["build-app"][0] == {
        "name": f"{host}/acme/base:1",
        "digest": base_1,
        "where": "tasks/build-app/environment/Dockerfile:1",
        "pinned_by": "lock",
    }
    assert manifest["files"]["freezer.lock.json"]  # the lock's bytes are frozen and hashed

    # v2: one task's instruction edited; the base tag re-pointed at other content and locked again.
    _drafts(root, 2, host, instruction="Count the words of /app/log.")
    with registry_server(storage, port):
        base_2 = push_image(host, "acme/base", "1", {"etc/os-release": b"ID=two\n"})
        relocked = ok(run_inprocess("lock", "--suite", "tb", cwd=root))
    assert base_2 != base_1
    assert f"{host}/acme/base:1 MOVED {base_1} → {base_2}" in relocked.out
    assert f"{host}/acme/tool:1 unchanged at {tool}" in relocked.out
    commit_all(root, "tb drafts v2, locked")
    cut_suite(root, "tb", "tb_v2")
    arm = compare_arms(root, "tb_v1", "tb_v2", "tb")["all"]
    assert arm["comparable"] == ["serve-api"]
    # the lock file's own change moves no dimension of every task: only the tasks its digests reach
    assert arm["moved"] == []
    assert arm["classes"] == {"build-app": "unchanged", "count-lines": "changed", "serve-api": "unchanged"}
    assert sorted(arm["excluded"]) == ["build-app", "count-lines"]
    moved_env = arm["excluded"]["build-app"]
    assert (
        f"its image {host}/acme/base:1@{base_1} (pinned by lock) → {host}/acme/base:1@{base_2} (pinned by lock) "
        "(tasks/build-app/environment/Dockerfile:1)" in moved_env
    )
    delta = json.loads((root / "versions/tb_v2/delta.json").read_bytes())
    assert [c["path"] for c in delta["environment"]] == ["build-app tasks/build-app/environment/Dockerfile:1"]
    assert "(pinned by lock)" in (root / "versions/tb_v2/METHOD.md").read_text(encoding="utf-8")
    ok(run_inprocess("audit", "--suite", "tb", cwd=root))


def test_lock_check_names_unlocked_and_stale_images_offline(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    host = "127.0.0.1:9"  # the discard port: nothing answers there, and check never asks
    _drafts(root, 1, host)
    commit_all(root, "tb drafts")
    unlocked = run_inprocess("lock", "--check", "--suite", "tb", cwd=root)
    assert unlocked.code == 1, unlocked.text
    assert "Traceback" not in unlocked.text
    assert (
        f"{host}/acme/base:1 is named by tag and not locked (build-app tasks/build-app/environment/Dockerfile:1)"
        in unlocked.out
    )
    assert f"{host}/acme/tool:1 is named by tag and not locked" in unlocked.out
    dry = run_inprocess("cut", "v1", "--suite", "tb", "--dry-run", cwd=root)
    assert f"names image {host}/acme/base:1 by tag alone" in dry.text and "or run freezer lock" in dry.text
    digest = "sha256:" + "e" * 64
    images = {f"{host}/acme/base:1": digest, f"{host}/acme/tool:1": digest, f"{host}/acme/gone:1": digest}
    write(root / LOCK, json.dumps({"lock_format": 1, "images": images}))
    stale = run_inprocess("lock", "--check", "--suite", "tb", cwd=root)
    assert stale.code == 1, stale.text
    assert f"{host}/acme/gone:1 is locked but no draft names it any more (stale)" in stale.out
    assert "not locked" not in stale.out
    images.pop(f"{host}/acme/gone:1")
    write(root / LOCK, json.dumps({"lock_format": 1, "images": images}))
    ok(run_inprocess("lock", "--check", "--suite", "tb", cwd=root))


def test_lock_with_a_registry_that_does_not_answer_writes_nothing(tmp_path: Path) -> None:
    require_skopeo()
    root = _registry(tmp_path)
    host = f"127.0.0.1:{free_port()}"  # free: no server listens there
    _drafts(root, 1, host)
    commit_all(root, "tb drafts")
    before = snapshot(root / "drafts")
    result = run_inprocess("lock", "--suite", "tb", cwd=root)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert f"image {host}/acme/base:1: cannot reach http://{host}" in result.text
    assert snapshot(root / "drafts") == before


def test_lock_without_skopeo_exits_2_saying_what_to_install_and_writes_nothing(tmp_path: Path) -> None:
    """skopeo resolves the images: on a PATH without it, lock stops before asking any registry, with
    the usage exit and the command that installs it, and the lock file keeps its bytes."""
    root = _registry(tmp_path)
    _drafts(root, 1, "127.0.0.1:9")  # nothing answers there: a registry asked would be exit 1, not 2
    digest = "sha256:" + "e" * 64
    images = {"127.0.0.1:9/acme/base:1": digest, "127.0.0.1:9/acme/tool:1": digest}
    write(root / LOCK, json.dumps({"lock_format": 1, "images": images}))
    commit_all(root, "tb drafts, locked")
    bin_dir = tmp_path / "bin"  # git alone: freezer reads the registry's repository with it
    bin_dir.mkdir()
    git = shutil.which("git")
    assert git is not None
    (bin_dir / "git").symlink_to(git)
    before = snapshot(root / "drafts")
    result = run_inprocess("lock", "--suite", "tb", cwd=root, env={"PATH": str(bin_dir)})
    assert result.code == 2, result.text
    assert "Traceback" not in result.text
    assert "resolves images with skopeo, which is not installed" in result.err
    assert "apt-get install skopeo" in result.err
    assert snapshot(root / "drafts") == before


def test_validate_and_cut_refuse_a_lock_file_that_is_not_one_naming_where(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    _drafts(root, 1, "127.0.0.1:9")
    write(root / LOCK, json.dumps({"lock_format": 1, "images": {"127.0.0.1:9/acme/base:1": "sha256:short"}}))
    commit_all(root, "tb drafts")
    result = run_inprocess("cut", "v1", "--suite", "tb", cwd=root)
    assert result.code == 1, result.text
    assert "Traceback" not in result.text
    assert "freezer.lock.json" in result.text and "$.images" in result.text
    assert "no sha256:<64 hex> digest" in result.text and "run freezer lock" in result.text
    assert not (root / "versions").exists()
    validated = run_inprocess("validate", "--suite", "tb", cwd=root)
    assert validated.code == 1, validated.text
    assert "drafts/tb/freezer.lock.json" in validated.text and "$.images" in validated.text
    # freezer lock writes the file again: its own problems do not stop it (here the registry does)
    require_skopeo()
    relock = run_inprocess("lock", "--suite", "tb", cwd=root)
    assert relock.code == 1 and "cannot reach http://127.0.0.1:9" in relock.text, relock.text


def test_with_a_lock_file_only_lock_itself_reaches_the_image_registry(tmp_path: Path) -> None:
    """The images' registry counts every connection: validate, lock --check, cut, audit, check and
    compare, with a lock file in the drafts and proxies pointed at it too, make none; lock makes one
    (the control), and a host that is no registry is refused cleanly."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        listener.settimeout(0.2)
        host = f"127.0.0.1:{listener.getsockname()[1]}"
        root = _registry(tmp_path)
        _drafts(root, 1, host)
        digest = "sha256:" + "e" * 64
        images = {f"{host}/acme/base:1": digest, f"{host}/acme/tool:1": digest}
        write(root / LOCK, json.dumps({"lock_format": 1, "images": images}))
        commit_all(root, "tb drafts, locked")
        env = {name: f"http://{host}" for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")}
        runs = [("validate", "--suite", "tb"), ("lock", "--check", "--suite", "tb"), ("cut", "v1", "--suite", "tb")]
        for args in runs:
            ok(run_inprocess(*args, cwd=root, env=env))
        commit_all(root, "freeze tb_v1")
        _drafts(root, 2, host, instruction="Count the words.")
        ok(run_inprocess("cut", "v2", "--suite", "tb", cwd=root, env=env))
        commit_all(root, "freeze tb_v2")
        for args in (
            ("audit", "--suite", "tb"),
            ("check", "--base", "HEAD~1"),
            ("compare", "tb_v1", "tb_v2", "--suite", "tb"),
        ):
            ok(run_inprocess(*args, cwd=root, env=env))
        with pytest.raises(TimeoutError):
            listener.accept()  # nothing connected
        require_skopeo()
        listener.settimeout(60)
        command = [sys.executable, "-m", "freezer", "lock", "--suite", "tb"]
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        with subprocess.Popen(command, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as lock:
            connection, _ = listener.accept()  # the control: lock asked the host
            connection.close()  # and heard no answer
            listener.settimeout(0.2)
            while lock.poll() is None:  # skopeo asks again (plain HTTP after TLS): no answer either
                with contextlib.suppress(TimeoutError):
                    listener.accept()[0].close()
            out, err = lock.communicate(timeout=60)
    assert lock.returncode == 1, out + err
    assert b"Traceback" not in err and f"image {host}/acme/".encode() in err


@pytest.mark.slow
def test_lock_logs_in_with_the_credentials_docker_and_skopeo_store(tmp_path: Path) -> None:
    require_server()
    require_skopeo()
    crypt = pytest.importorskip("crypt", reason="bcrypt for the registry's htpasswd file comes from crypt")
    htpasswd = tmp_path / "htpasswd"
    htpasswd.write_text(f"ada:{crypt.crypt('s3cret', crypt.mksalt(crypt.METHOD_BLOWFISH))}\n", encoding="utf-8")
    root, port = _registry(tmp_path), free_port()
    host = f"127.0.0.1:{port}"
    _drafts(root, 1, host)
    commit_all(root, "tb drafts")
    auth = tmp_path / "auth.json"
    with registry_server(tmp_path / "storage", port, htpasswd):
        base = push_image(host, "acme/base", "1", {"a": b"a\n"}, ("ada", "s3cret"))
        push_image(host, "acme/tool", "1", {"t": b"t\n"}, ("ada", "s3cret"))
        refused = run_inprocess("lock", "--suite", "tb", cwd=root, env={"REGISTRY_AUTH_FILE": str(auth)})
        token = base64.b64encode(b"ada:s3cret").decode()
        auth.write_text(json.dumps({"auths": {host: {"auth": token}}}), encoding="utf-8")
        locked = ok(run_inprocess("lock", "--suite", "tb", cwd=root, env={"REGISTRY_AUTH_FILE": str(auth)}))
    assert refused.code == 1, refused.text
    assert f"{host} asks for credentials to read acme/" in refused.text and "docker login" in refused.text
    assert f"{host}/acme/base:1 locked at {base} (new)" in locked.out


@pytest.mark.slow
def test_a_multi_platform_tag_locks_to_its_index_and_json_says_what_moved(tmp_path: Path) -> None:
    """The digest a multi-platform tag is pinned by is its index's (what ``name@sha256:`` names on
    every platform), not one platform's manifest; ``--format json`` gives each image's old digest."""
    require_server()
    require_skopeo()
    root, port = _registry(tmp_path), free_port()
    host = f"127.0.0.1:{port}"
    _drafts(root, 1, host)
    commit_all(root, "tb drafts")
    with registry_server(tmp_path / "storage", port):
        amd = push_image(host, "acme/base", "amd64", {"arch": b"amd64\n"})
        arm = push_image(host, "acme/base", "arm64", {"arch": b"arm64\n"})
        index = push_index(host, "acme/base", "1", {"linux/amd64": amd, "linux/arm64": arm})
        push_image(host, "acme/tool", "1", {"t": b"t\n"})
        ok(run_inprocess("lock", "--suite", "tb", cwd=root))
        moved = push_index(host, "acme/base", "1", {"linux/amd64": amd})
        result = ok(run_inprocess("lock", "--suite", "tb", "--format", "json", cwd=root))
    assert json.loads((root / LOCK).read_bytes())["images"][f"{host}/acme/base:1"] == moved
    [suite] = json.loads(result.out)["result"]["suites"]
    assert suite["written"] is True
    assert {"name": f"{host}/acme/base:1", "digest": moved, "was": index} in suite["locked"]
