"""The content digest a registry gives today for an image named by tag: freezer's only network call.

Only ``freezer lock`` calls it, never validate, cut, check, audit nor the Action. It speaks the OCI
distribution API as ``docker pull``, skopeo and crane do: ``GET /v2/<repository>/manifests/<tag>``
with the Accept headers of an OCI index and manifest and of Docker's manifest list and v2 manifest,
so a multi-platform image resolves to its index (the digest ``name@sha256:`` pins, whatever the
platform). The digest is the sha256 of the manifest's bytes, checked against the registry's
``Docker-Content-Digest`` header when it sends one: a registry that answers with other bytes than
it names is refused.

Names are read as Docker reads them: ``ubuntu:24.04`` is ``docker.io/library/ubuntu:24.04`` (asked
of ``registry-1.docker.io``), a first component with a dot, a colon or ``localhost`` is a registry
host, and no tag is ``latest``. A registry on the loopback address (``localhost``, ``127.0.0.1``,
``[::1]``) is spoken to over plain HTTP, as Docker treats it; every other over HTTPS.

Credentials are the ones ``docker login``, skopeo and podman write: the file ``REGISTRY_AUTH_FILE``
names, else ``$DOCKER_CONFIG/config.json``, else ``~/.docker/config.json``, its ``auths`` entry for
the host (``auth``: base64 of user:password, or ``username`` and ``password``). A registry asking
for a Bearer token (Docker Hub, ghcr.io, quay.io) gets one from the realm it names, anonymously or
with those credentials; one asking for Basic gets them. Credential helpers (``credsStore``,
``credHelpers``) are not run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from email.message import Message
from pathlib import Path

from freezer.domain.errors import FreezerError
from freezer.runtime.limits import MAX_DOCUMENT_BYTES, MAX_IMAGE_MANIFEST_BYTES
from freezer.runtime.reading import ReadRefused, read_bounded

MANIFEST_TYPES = (
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
    "application/vnd.docker.distribution.manifest.v2+json",
)
TIMEOUT_SECONDS = 30.0
_DOCKER_HUB = "docker.io"
_DOCKER_HUB_API = "registry-1.docker.io"
_LOOPBACK = ("localhost", "127.0.0.1", "[::1]")
_CHALLENGE_ITEM = re.compile(r'(\w+)="([^"]*)"')


@dataclass(frozen=True)
class ImageName:
    """An image reference read as Docker reads it."""

    host: str  # as written, with its port: docker.io, ghcr.io, 127.0.0.1:5000
    repository: str  # library/ubuntu, org/name
    tag: str

    @property
    def api_host(self) -> str:
        return _DOCKER_HUB_API if self.host == _DOCKER_HUB else self.host

    @property
    def scheme(self) -> str:
        bare = self.host.rsplit(":", 1)[0] if not self.host.startswith("[") else self.host.split("]")[0] + "]"
        return "http" if bare in _LOOPBACK else "https"


def parse_name(text: str) -> ImageName:
    """``text`` (``[host/]repository[:tag]``, no digest) as a registry, a repository and a tag."""
    first, _, rest = text.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        host, path = first, rest
    else:
        host, path = _DOCKER_HUB, text
    last = path.rsplit("/", 1)[-1]
    repository, tag = path.rsplit(":", 1) if ":" in last else (path, "latest")
    if host == _DOCKER_HUB and "/" not in repository:
        repository = f"library/{repository}"
    if not repository or not tag or repository != repository.lower() or " " in text:
        raise FreezerError(f"{text!r} is not an image reference a registry can answer ([host/]repository[:tag])")
    return ImageName(host, repository, tag)


def _auth_file() -> Path:
    named = os.environ.get("REGISTRY_AUTH_FILE")
    if named:
        return Path(named)
    folder = os.environ.get("DOCKER_CONFIG")
    return Path(folder) / "config.json" if folder else Path.home() / ".docker" / "config.json"


def credentials(host: str) -> tuple[str, str] | None:
    """The user and password the credentials file holds for ``host``, or None."""
    path = _auth_file()
    try:
        document = json.loads(read_bounded(path, MAX_DOCUMENT_BYTES))
    except (OSError, ValueError, ReadRefused):
        return None  # no file, or none freezer can read: asked anonymously, as docker would
    auths = document.get("auths") if isinstance(document, dict) else None
    if not isinstance(auths, dict):
        return None
    keys = [host, f"https://{host}", f"http://{host}"]
    if host == _DOCKER_HUB:
        keys += ["https://index.docker.io/v1/", "index.docker.io", _DOCKER_HUB_API]
    entry = next((auths[k] for k in keys if isinstance(auths.get(k), dict)), None)
    if entry is None:
        return None
    if isinstance(entry.get("auth"), str):
        try:
            user, _, password = base64.b64decode(entry["auth"]).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            return None
        return user, password
    if isinstance(entry.get("username"), str) and isinstance(entry.get("password"), str):
        return entry["username"], entry["password"]
    return None


def _basic(user_password: tuple[str, str]) -> str:
    return "Basic " + base64.b64encode(":".join(user_password).encode("utf-8")).decode("ascii")


def _challenge(headers: Message) -> tuple[str, dict[str, str]]:
    header = headers.get("WWW-Authenticate", "")
    scheme, _, rest = header.partition(" ")
    return scheme.lower(), dict(_CHALLENGE_ITEM.findall(rest))


def _token(image: ImageName, params: dict[str, str], login: tuple[str, str] | None) -> str:
    realm = params.get("realm")
    if not realm:
        raise FreezerError(f"{image.host} asks for a Bearer token but names no realm to get one from")
    query = {"scope": params.get("scope") or f"repository:{image.repository}:pull"}
    if params.get("service"):
        query["service"] = params["service"]
    request = urllib.request.Request(f"{realm}?{urllib.parse.urlencode(query)}")
    if login is not None:
        request.add_header("Authorization", _basic(login))
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
        document = json.loads(answer.read(MAX_IMAGE_MANIFEST_BYTES))
    token = document.get("token") or document.get("access_token") if isinstance(document, dict) else None
    if not isinstance(token, str):
        raise FreezerError(f"{realm} gave no token for {image.repository}")
    return token


def _get(url: str, authorization: str | None) -> tuple[bytes, Message]:
    request = urllib.request.Request(url, headers={"Accept": ", ".join(MANIFEST_TYPES)})
    if authorization is not None:
        request.add_header("Authorization", authorization)
    with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as answer:
        body = answer.read(MAX_IMAGE_MANIFEST_BYTES + 1)
        return body, answer.headers


def _fetch(image: ImageName, url: str) -> tuple[bytes, Message]:
    """The manifest's bytes and headers, authenticating once when the registry asks."""
    try:
        return _get(url, None)
    except urllib.error.HTTPError as exc:
        if exc.code != 401:
            raise
        scheme, params = _challenge(exc.headers)
    login = credentials(image.host)
    if scheme == "bearer":
        return _get(url, f"Bearer {_token(image, params, login)}")
    if scheme == "basic" and login is not None:
        return _get(url, _basic(login))
    raise FreezerError(
        f"{image.host} asks for credentials to read {image.repository} and none are stored for it",
        hint=f"log in as docker or skopeo do (docker login {image.host}; or REGISTRY_AUTH_FILE), then lock again",
    )


def resolve_digest(name: str) -> str:
    """The ``sha256:<hex>`` digest of the manifest the registry serves for the image ``name`` today,
    or :class:`FreezerError` saying why not (no such tag, no route to the registry, a digest that
    does not match the bytes)."""
    image = parse_name(name)
    url = f"{image.scheme}://{image.api_host}/v2/{image.repository}/manifests/{urllib.parse.quote(image.tag)}"
    try:
        body, headers = _fetch(image, url)
    except urllib.error.HTTPError as exc:
        why = "no such image or tag" if exc.code == 404 else f"HTTP {exc.code} {exc.reason}"
        raise FreezerError(f"image {name}: {url} answered {why}") from None
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise FreezerError(
            f"image {name}: cannot reach {image.scheme}://{image.api_host}: {reason}",
            hint="freezer lock is the one command that reads the network: run it where the registry is reachable",
        ) from None
    if len(body) > MAX_IMAGE_MANIFEST_BYTES:
        raise FreezerError(
            f"image {name}: {url} sent more than the {MAX_IMAGE_MANIFEST_BYTES:,}-byte limit; no manifest is that large"
        )
    digest = "sha256:" + hashlib.sha256(body).hexdigest()
    claimed = headers.get("Docker-Content-Digest")
    if claimed and claimed.startswith("sha256:") and claimed != digest:
        raise FreezerError(
            f"image {name}: {url} names the digest {claimed} but sent a manifest whose sha256 is {digest}; "
            "nothing was locked"
        )
    return digest
