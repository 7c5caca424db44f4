"""Issue 23, acceptance: no command, on any input, sends a request anywhere.

A local HTTP server (127.0.0.1, an ephemeral port, stopped by the test) counts
every connection it accepts. A hostile registry names its URL everywhere a URL
could go: the suite schema's ``$id``, ``$comment``, defaults and examples (and,
in registries freezer must refuse, ``$ref``, ``$schema``, ``$dynamicRef``), the
config's fields, the code repository's git config and ``.gitmodules``, fixture
and version text, Markdown images and links, the METHOD.md template, a results
file; the proxy variables point at the server too, so a request meant for any
host would arrive there. Then every command runs, in this process, and the
server must have seen nothing.
"""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import freezer
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.runtime.resources import template_text

from conftest import EXAMPLES, Run, run_forked, run_inprocess
from hub_helpers import LOGIC, REASONING, drafts, point, registry
from registry_helpers import commit_all


class _Counting(ThreadingHTTPServer):
    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.connections = 0
        self.requests: list[str] = []

    def verify_request(self, request: Any, client_address: Any) -> bool:
        self.connections += 1
        return True


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        server = self.server
        assert isinstance(server, _Counting)
        server.requests.append(f"{self.command} {self.path}")
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b'{"type": "object"}')

    do_POST = do_HEAD = do_CONNECT = do_PUT = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_Counting]:
    counting = _Counting()
    # shutdown() waits for the loop's next poll: 0.5 s by default, paid by each of these tests
    thread = threading.Thread(target=counting.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield counting
    finally:
        counting.shutdown()
        counting.server_close()
        thread.join(timeout=10)


def _url(server: _Counting) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"


def _schema(url: str) -> dict[str, Any]:
    text = {"type": "string", "description": f"see {url}/doc", "examples": [f"{url}/ex"], "default": f"{url}/d"}
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": f"{url}/suite.schema.json",
        "$comment": f"mirrored at {url}/mirror.json",
        "type": "object",
        "required": ["task_id", "status", "instruction"],
        "properties": {
            "task_id": {"type": "string", "x-freezer-group": "identity"},
            "status": {"enum": ["landed", "dropped"], "x-freezer-group": "identity"},
            "class": {"type": "string"},
            "instruction": {"$ref": "#/$defs/text", "x-freezer-group": "input"},
            "homepage": {"type": "string", "format": "uri", "default": f"{url}/home"},
            "prompt": text,
            "metadata": {"type": "object"},
            "dropped": {"type": "object"},
        },
        "$defs": {"text": text, "unused": {"$comment": f"{url}/unused.json", "contentMediaType": "text/html"}},
    }


def _hostile(root: Path, url: str) -> None:
    """The api suite, with its own schema, template and URLs in every text freezer reads."""
    code = root / "sample-code"
    run_git(["config", "remote.origin.url", f"{url}/code.git"], code, DETERMINISTIC_ENV)
    run_git(["config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"], code, DETERMINISTIC_ENV)
    run_git(["config", "http.proxy", url], code, DETERMINISTIC_ENV)
    run_git(["config", f"url.{url}/.insteadOf", "https://github.com/"], code, DETERMINISTIC_ENV)
    (code / ".gitmodules").write_text(f'[submodule "x"]\n\tpath = vendor/x\n\turl = {url}/x.git\n')
    commit_all(code, "a submodule that lives on the server")
    (root / "suite.schema.json").write_text(json.dumps(_schema(url), indent=2))
    (root / "method.md.j2").write_text(
        template_text("METHOD.md.j2") + f"\n<!-- {url}/comment -->\n![pixel]({url}/pixel.png)\n"
    )
    config = root / "freezer.yaml"
    config.write_text(
        config.read_text()
        + "  api:\n    schema: suite.schema.json\n    template: method.md.j2\n    drafts: drafts/api\n"
        + f"    versions: versions\n    code_repo: sample-code\n    canary: 'canary {url}/canary'\n"
        + "    tool_surface: ['crates/orbit-graph/src/tools/**']\n"
    )
    drafts = root / "drafts" / "api"
    (drafts / "fixtures").mkdir(parents=True)
    version = (EXAMPLES / "generic/v1/version.yaml").read_text().replace("min_landed: 2", "min_landed: 1")
    version = version.replace("Tasks written against", f"Tasks ({url}/provenance) written against")
    # A git source named by a branch on the server: only freezer lock may ask it (git ls-remote).
    version += f"sources:\n  - name: {url}/data.git\n    kind: git\n    revision: main\n"
    (drafts / "version.yaml").write_text(version)
    (drafts / "README.md").write_text(f"# Tasks\n\n![logo]({url}/logo.png) <img src='{url}/x.png'>\n")
    (drafts / "fixtures" / "hello.yaml").write_text(
        f"# canary {url}/canary\ntask_id: hello\nstatus: landed\nclass: fetch\n"
        f"instruction: 'Fetch {url}/task and print it. ![x]({url}/img.png)'\n"
        f"homepage: '{url}/home'\nprompt: \"<img src='{url}/p.png'> [link]({url}/link)\"\n"
        f"metadata: {{source: '{url}/source', image: '![i]({url}/i.png)'}}\nassets: [README.md]\n"
    )
    commit_all(root, "hostile api suite")


def _run(root: Path, *args: str) -> Run:
    result = run_inprocess(*args, cwd=root)
    assert "Traceback" not in result.text and "internal error" not in result.text, (args, result.text)
    return result


def test_no_command_reaches_the_network(
    reg: Path, server: _Counting, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    url = _url(server)
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    _hostile(reg, url)
    succeeded: dict[str, int] = {}

    def run(*args: str) -> Run:
        result = _run(reg, *args)
        succeeded[" ".join(args)] = result.code
        return result

    run("validate")
    run("validate", "drafts/api")
    run("cut", "api_v1", "--dry-run")
    run("cut", "api_v1")
    commit_all(reg, "freeze api_v1")
    version = reg / "drafts/api/version.yaml"
    version.write_text(version.read_text().replace("version: 1\n", "version: 2\n"))
    # v2 with a lock file pinning the branch: read from the drafts, never checked against the server
    lock = {"lock_format": 1, "images": {}, "git": {f"{url}/data.git": {"main": "b" * 40}}}
    (reg / "drafts/api/freezer.lock.json").write_text(json.dumps(lock))
    hello = reg / "drafts/api/fixtures/hello.yaml"
    hello.write_text(hello.read_text().replace("/task and print", "/task2 and print"))
    run("cut", "api_v2")
    commit_all(reg, "freeze api_v2")
    frozen = freezer.load("api_v2", registry=reg)
    rows = tmp_path / "runs.jsonl"
    row = {"manifest_sha256": frozen.manifest_sha256, "task_id": "hello", "arm": "all", "score": 1.0}
    rows.write_text(json.dumps({**row, "run": f"{url}/run", "fixture_digest": frozen.fixture_digest("hello")}) + "\n")
    for args in (
        ["audit"],
        ["check", "--base", "HEAD"],
        ["status", "--suite", "api"],
        ["list"],
        ["show", "api_v2"],
        ["diff", "api_v1", "api_v2"],
        ["log", "--suite", "api"],
        ["site", str(tmp_path / "site")],
        ["verify"],
        ["results", "check", str(rows)],
        ["compare", "api_v1", "api_v2"],
        ["attest", "api_v2"],
        ["next", "--suite", "api"],
    ):
        run(*args)
    ran_to_the_end = [
        "validate",
        "validate drafts/api",
        "cut api_v1 --dry-run",
        "cut api_v1",
        "cut api_v2",
        "audit",
        "list",
        "show api_v2",
        "diff api_v1 api_v2",
        "log --suite api",
        f"site {tmp_path / 'site'}",
        f"results check {rows}",
        "compare api_v1 api_v2",
        "next --suite api",
    ]
    assert {args: succeeded[args] for args in ran_to_the_end} == dict.fromkeys(ran_to_the_end, 0)
    assert url in (reg / "versions/api_v2/METHOD.md").read_text()  # the URL really went through
    # the lock really pinned the source in v2 (an unlocked one in v1)
    manifest = json.loads((reg / "versions/api_v2/manifest.json").read_bytes())
    assert manifest["locked_sources"] == {f"{url}/data.git": "b" * 40} and "locked_sources" not in json.loads(
        (reg / "versions/api_v1/manifest.json").read_bytes()
    )
    assert server.connections == 0 and server.requests == []
    _the_server_would_have_seen_it(server, url)
    # The control for the git source: freezer lock, the one command that reads it, asks the server.
    locked = _run(reg, "lock", "--suite", "api")
    assert locked.code == 1 and f"git source {url}/data.git: " in locked.text, locked.text
    assert any("/data.git/info/refs" in request for request in server.requests), server.requests


def test_lock_reads_the_datasets_from_the_hub_cache_with_no_request(
    server: _Counting, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """freezer lock, the one command that may reach the network, pins an lm-eval suite's Hugging
    Face datasets from the local hub cache alone: with HF_ENDPOINT and every proxy pointing at the
    counting server, locking, cutting, auditing and comparing ask it nothing."""
    url = _url(server)
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "all_proxy", "HF_ENDPOINT"):
        monkeypatch.setenv(name, url)
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    cache = tmp_path / "hub"
    monkeypatch.setenv("HF_HUB_CACHE", str(cache))
    point(cache, REASONING, "1" * 40)
    point(cache, LOGIC, "2" * 40)
    root = registry(tmp_path)
    # lock in a fresh process (huggingface_hub reads HF_HUB_CACHE and HF_ENDPOINT when it is imported),
    # with this environment: the proxies and HF_ENDPOINT still point at the counting server.
    locked = run_forked("lock", "--suite", "bbh", cwd=root)
    assert "Traceback" not in locked.text
    assert locked.code == 0 and f"dataset {REASONING} main locked at {'1' * 40} (new)" in locked.out, locked.text
    commit_all(root, "bbh v1, locked")
    for args in (["cut", "bbh_v1"], ["audit"], ["lock", "--check"]):
        assert _run(root, *args).code == 0, args
    commit_all(root, "freeze bbh_v1")
    point(cache, REASONING, "3" * 40)
    drafts(root, 2)
    assert "MOVED" in run_forked("lock", "--suite", "bbh", cwd=root).out
    commit_all(root, "bbh v2, locked")
    for args in (["cut", "bbh_v2"], ["compare", "bbh_v1", "bbh_v2"]):
        assert _run(root, *args).code == 0, args
    assert json.loads((root / "versions/bbh_v2/manifest.json").read_bytes())["locked_datasets"][REASONING] == {
        "main": "3" * 40
    }
    assert server.connections == 0 and server.requests == []
    _the_server_would_have_seen_it(server, url)


def _the_server_would_have_seen_it(server: _Counting, url: str) -> None:
    """The control: jsonschema left to itself fetches a $ref from the server, and the server counts it."""
    import urllib.request
    import warnings

    import jsonschema

    # urlopen keeps the proxies of its first call in this process: take this test's, and leave none
    # behind (a later test's urlopen would go through this test's proxy, gone by then)
    urllib.request.install_opener(None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            jsonschema.Draft202012Validator({"$ref": f"{url}/x.json"}).is_valid(1)
    finally:
        urllib.request.install_opener(None)
    assert server.requests in (["GET /x.json"], [f"GET {url}/x.json"]) and server.connections == 1


REFUSED = {
    "schema-ref": lambda url, schema: {**schema, "properties": {**schema["properties"], "x": {"$ref": f"{url}/x"}}},
    "schema-file-ref": lambda url, schema: {**schema, "properties": {"x": {"$ref": "file:///etc/passwd"}}},
    "schema-meta": lambda url, schema: {**schema, "$schema": f"{url}/meta"},
    "schema-dynamic": lambda url, schema: {**schema, "properties": {"x": {"$dynamicRef": f"{url}/d#x"}}},
    "schema-sub-id": lambda url, schema: {**schema, "properties": {"x": {"$id": f"{url}/sub", "$ref": "#/$defs/text"}}},
}
CONFIG_URLS = ("schema", "template", "drafts", "code_repo", "versions")


@pytest.mark.parametrize("case", [*REFUSED, *CONFIG_URLS])
def test_refused_registries_reach_nothing_either(
    reg: Path, server: _Counting, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    url = _url(server)
    monkeypatch.setenv("https_proxy", url)
    monkeypatch.setenv("http_proxy", url)
    _hostile(reg, url)
    if case in REFUSED:
        schema = json.loads((reg / "suite.schema.json").read_text())
        (reg / "suite.schema.json").write_text(json.dumps(REFUSED[case](url, schema), indent=2))
    else:
        config = reg / "freezer.yaml"
        lines = config.read_text().split("\n")
        at = max(i for i, line in enumerate(lines) if line.startswith(f"    {case}:"))
        lines[at] = f"    {case}: {url}/{case}"
        config.write_text("\n".join(lines))
    shutil.rmtree(reg / "versions", ignore_errors=True)
    for args in (
        ["validate"],
        ["cut", "api_v1", "--dry-run"],
        ["cut", "api_v1"],
        ["audit"],
        ["check"],
        ["status"],
        ["list"],
        ["log"],
        ["site", str(reg.parent / "site")],
        ["verify"],
        ["next", "--suite", "api"],
    ):
        result = _run(reg, *args)
        # A refused schema stops every command; a URL as a folder is only a folder that is not there.
        assert result.code in ((1, 2) if case in REFUSED else (0, 1, 2)), (args, result.text)
    assert server.connections == 0 and server.requests == []
    _the_server_would_have_seen_it(server, url)
