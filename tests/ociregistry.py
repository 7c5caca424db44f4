"""A real OCI registry on 127.0.0.1 for the tests of ``freezer lock``: Debian's ``docker-registry``
(the CNCF distribution registry) serving a temporary folder, and a push that speaks the
distribution API's upload itself (POST blobs/uploads, PUT the blob, PUT the manifest), so an image
is built from a tar of a few files here, never downloaded."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import shutil
import socket
import subprocess
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

BINARY = shutil.which("docker-registry") or "/usr/bin/docker-registry"
OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_INDEX = "application/vnd.oci.image.index.v1+json"


def require_server() -> str:
    if not Path(BINARY).is_file():
        pytest.skip("Debian's docker-registry is not installed (apt-get install docker-registry; .ci/run does)")
    return BINARY


def require_skopeo() -> str:
    """skopeo, which freezer lock resolves images with; the test is skipped without it."""
    found = shutil.which("skopeo")
    if found is None:
        pytest.skip(
            "skopeo is not installed (apt-get install skopeo; .ci/run does): freezer lock resolves images with it"
        )
    return found


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def registry_server(storage: Path, port: int, htpasswd: Path | None = None) -> Iterator[str]:
    """The registry serving ``storage`` on 127.0.0.1:``port`` while the block runs; its host:port.
    With ``htpasswd`` (bcrypt lines) it asks every request for Basic credentials."""
    binary = require_server()
    storage.mkdir(parents=True, exist_ok=True)
    config = storage.parent / f"registry-{port}.yml"
    config.write_text(
        f"version: 0.1\nlog:\n  level: error\nstorage:\n  filesystem:\n    rootdirectory: {storage}\n"
        f"http:\n  addr: 127.0.0.1:{port}\n"
        + (f"auth:\n  htpasswd:\n    realm: test\n    path: {htpasswd}\n" if htpasswd else ""),
        encoding="utf-8",
    )
    log = (storage.parent / f"registry-{port}.log").open("wb")
    server = subprocess.Popen([binary, "serve", str(config)], stdout=log, stderr=subprocess.STDOUT)
    host = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://{host}/v2/", timeout=2):
                    break
            except urllib.error.HTTPError as exc:
                if exc.code == 401:  # up, and asking for credentials
                    break
                raise
            except (urllib.error.URLError, OSError):
                if server.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError((storage.parent / f"registry-{port}.log").read_text()) from None
                time.sleep(0.05)
        yield host
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


def _layer(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(data), 0, 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _digest(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _upload(host: str, repository: str, blob: bytes, headers: dict[str, str]) -> None:
    start = urllib.request.Request(
        f"http://{host}/v2/{repository}/blobs/uploads/", method="POST", data=b"", headers=headers
    )
    with urllib.request.urlopen(start, timeout=10) as answer:
        location = urllib.parse.urljoin(f"http://{host}/", answer.headers["Location"])
    joiner = "&" if "?" in location else "?"
    put = urllib.request.Request(
        f"{location}{joiner}digest={_digest(blob)}",
        method="PUT",
        data=blob,
        headers={"Content-Type": "application/octet-stream", **headers},
    )
    with urllib.request.urlopen(put, timeout=10) as answer:
        assert answer.status == 201, answer.status


def push_image(
    host: str, repository: str, tag: str, files: dict[str, bytes], login: tuple[str, str] | None = None
) -> str:
    """Push a one-layer image of ``files`` as ``host/repository:tag`` (as ``login``, Basic, when
    given); the digest of its manifest."""
    headers = {"Authorization": "Basic " + base64.b64encode(":".join(login).encode()).decode()} if login else {}
    layer = _layer(files)
    config = json.dumps(
        {"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": [_digest(layer)]}},
        sort_keys=True,
    ).encode()
    for blob in (layer, config):
        _upload(host, repository, blob, headers)
    manifest = json.dumps(
        {
            "schemaVersion": 2,
            "mediaType": OCI_MANIFEST,
            "config": {
                "mediaType": "application/vnd.oci.image.config.v1+json",
                "digest": _digest(config),
                "size": len(config),
            },
            "layers": [
                {"mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": _digest(layer), "size": len(layer)}
            ],
        },
        sort_keys=True,
    ).encode()
    put = urllib.request.Request(
        f"http://{host}/v2/{repository}/manifests/{tag}",
        method="PUT",
        data=manifest,
        headers={"Content-Type": OCI_MANIFEST, **headers},
    )
    with urllib.request.urlopen(put, timeout=10) as answer:
        assert answer.status == 201, answer.status
        assert answer.headers["Docker-Content-Digest"] == _digest(manifest)
    return _digest(manifest)


def push_index(host: str, repository: str, tag: str, manifests: dict[str, str]) -> str:
    """Push an OCI index (a multi-platform image) of the manifests given by platform
    (``linux/amd64`` → digest, each pushed to ``repository`` before); the digest of the index."""
    entries = []
    for platform, digest in manifests.items():
        with urllib.request.urlopen(
            urllib.request.Request(
                f"http://{host}/v2/{repository}/manifests/{digest}", headers={"Accept": OCI_MANIFEST}
            ),
            timeout=10,
        ) as answer:
            size = len(answer.read())
        system, architecture = platform.split("/")
        entries.append(
            {
                "mediaType": OCI_MANIFEST,
                "digest": digest,
                "size": size,
                "platform": {"os": system, "architecture": architecture},
            }
        )
    index = json.dumps({"schemaVersion": 2, "mediaType": OCI_INDEX, "manifests": entries}, sort_keys=True).encode()
    put = urllib.request.Request(
        f"http://{host}/v2/{repository}/manifests/{tag}", method="PUT", data=index, headers={"Content-Type": OCI_INDEX}
    )
    with urllib.request.urlopen(put, timeout=10) as answer:
        assert answer.status == 201, answer.status
    return _digest(index)
