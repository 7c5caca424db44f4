"""The content digest a registry gives today for an image named by tag, read with skopeo.

Only ``freezer lock`` calls it, never validate, cut, check, audit nor the Action. skopeo defines what
an image reference means and how a registry is spoken to, so freezer calls it rather than speaking
the distribution API itself: ``skopeo inspect --raw docker://<name>`` prints the bytes of the
manifest the tag names (for a multi-platform tag, its index), and the digest locked is the sha256
of exactly those bytes, the digest ``name@sha256:`` pins whatever the platform.

skopeo reads names as Docker does (``ubuntu:24.04`` is ``docker.io/library/ubuntu:24.04``) and
finds credentials where docker, podman and skopeo store them (``REGISTRY_AUTH_FILE``, the
containers ``auth.json``, ``~/.docker/config.json``, credential helpers): freezer holds none.
A registry on the loopback address (``localhost``, ``127.0.0.1``, ``[::1]``) is asked with
``--tls-verify=false``, which lets skopeo speak plain HTTP to it, as Docker treats such a registry;
every other keeps TLS verified.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

from freezer.domain.errors import FreezerError, UsageError
from freezer.runtime.limits import MAX_IMAGE_MANIFEST_BYTES, MAX_TOOL_MESSAGE_BYTES
from freezer.runtime.programs import find_program, trusted_path

# skopeo's own deadline for one inspect; the process is waited for a little longer, then killed.
TIMEOUT_SECONDS = 30
_DOCKER_HUB = "docker.io"
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]")
# skopeo logs through logrus: a fatal error is one line `time="…" level=fatal msg="<message>"`.
_LOGRUS_MESSAGE = re.compile(r'level=\w+ msg="((?:[^"\\]|\\.)*)"')
_NO_SKOPEO = "freezer lock resolves images with skopeo, which is not installed"
INSTALL_SKOPEO = "apt-get install skopeo (or brew install skopeo)"


@dataclass(frozen=True)
class ImageName:
    """Where an image reference points, read as Docker reads it: enough to choose TLS and to say
    which registry refused what."""

    host: str  # as written, with its port: docker.io, ghcr.io, 127.0.0.1:5000
    repository: str  # library/ubuntu, org/name

    @property
    def loopback(self) -> bool:
        bare = self.host.rsplit(":", 1)[0] if not self.host.startswith("[") else self.host.split("]")[0] + "]"
        return bare in _LOOPBACK


def parse_name(text: str) -> ImageName:
    """The registry host and repository of ``text`` (``[host/]repository[:tag]``): a first component
    holding a dot, a colon or ``localhost`` is a registry host, else the image is Docker Hub's."""
    first, _, rest = text.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        host, path = first, rest
    else:
        host, path = _DOCKER_HUB, text
    last = path.rsplit("/", 1)[-1]
    repository = path.rsplit(":", 1)[0] if ":" in last else path
    if host == _DOCKER_HUB and "/" not in repository:
        repository = f"library/{repository}"
    return ImageName(host, repository)


def skopeo_executable() -> str:
    """The absolute path of the skopeo ``freezer lock`` runs; :class:`UsageError` saying what to
    install when there is none."""
    found = find_program("skopeo")
    if found is None:
        raise UsageError(_NO_SKOPEO, hint=INSTALL_SKOPEO)
    return found


def _said(stderr: bytes, code: int) -> str:
    """skopeo's message: the last line it wrote, unwrapped from its log format."""
    lines = [line.strip() for line in stderr.decode("utf-8", errors="replace").splitlines() if line.strip()]
    if not lines:
        return f"skopeo exited {code} and said nothing"
    found = _LOGRUS_MESSAGE.search(lines[-1])
    return found.group(1).replace('\\"', '"').replace("\\\\", "\\") if found else lines[-1]


def _refusal(name: str, image: ImageName, message: str) -> FreezerError:
    """What a failed inspect means for the user: the registry unreachable, credentials asked for, or
    anything else skopeo said, each naming the image and carrying skopeo's own words."""
    if "pinging container registry" in message:
        scheme = "http" if image.loopback else "https"
        return FreezerError(
            f"image {name}: cannot reach {scheme}://{image.host}: {message}",
            hint="freezer lock is the one command that reads the network: run it where the registry is reachable",
        )
    if "unauthorized" in message or "authentication required" in message:
        return FreezerError(
            f"image {name}: {image.host} asks for credentials to read {image.repository}: {message}",
            hint=f"log in as docker, podman or skopeo do (docker login {image.host}, skopeo login {image.host}, "
            "or a REGISTRY_AUTH_FILE), then lock again",
        )
    return FreezerError(f"image {name}: skopeo could not read its manifest: {message}")


def resolve_digest(skopeo: str, name: str) -> str:
    """The ``sha256:<hex>`` digest of the manifest the registry serves for the image ``name`` today,
    read by the skopeo at ``skopeo``; :class:`FreezerError` naming the image and skopeo's message
    when it cannot be read (no such tag, no route to the registry, credentials refused)."""
    image = parse_name(name)
    argv = [skopeo, "--command-timeout", f"{TIMEOUT_SECONDS}s", "inspect", "--raw"]
    if image.loopback:
        argv.append("--tls-verify=false")
    argv.append(f"docker://{name}")
    # skopeo's stderr goes to a file, so a chatty failure never fills a pipe while its stdout is read.
    with tempfile.TemporaryFile() as stderr:
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=stderr,
                env=_env(),
            )
        except OSError as exc:
            raise FreezerError(f"image {name}: cannot run {skopeo}: {exc}") from None
        with process:
            assert process.stdout is not None
            body = process.stdout.read(MAX_IMAGE_MANIFEST_BYTES + 1)
            if len(body) > MAX_IMAGE_MANIFEST_BYTES:
                process.kill()
                raise FreezerError(
                    f"image {name}: skopeo printed more than the {MAX_IMAGE_MANIFEST_BYTES:,}-byte limit; "
                    "no manifest is that large"
                )
            try:
                code = process.wait(timeout=TIMEOUT_SECONDS + 10)
            except subprocess.TimeoutExpired:
                process.kill()
                raise FreezerError(f"image {name}: skopeo gave no answer in {TIMEOUT_SECONDS + 10} s") from None
        if code != 0:
            size = stderr.seek(0, 2)
            stderr.seek(max(0, size - MAX_TOOL_MESSAGE_BYTES))
            raise _refusal(name, image, _said(stderr.read(), code))
    return "sha256:" + hashlib.sha256(body).hexdigest()


def _env() -> dict[str, str]:
    """The caller's environment (skopeo reads its credentials, proxies and registries.conf through
    it), with a ``PATH`` of absolute entries: a credential helper is never found in the current folder."""
    return {**os.environ, "PATH": trusted_path()}
