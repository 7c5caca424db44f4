"""Hostile checkpoints and state files (issue 23, class 8).

``BAD_HEADS`` change one field of the graph suite's chain head in a checkpoint that is then
validly signed by alice: the signature holds, the shape does not, and each must be one located
problem (json path and what it says). ``BAD_DOCUMENTS`` are checkpoint files broken around the
payload. ``STATE_FILES`` are what the machine's record of checkpoints seen can be made into.
"""

from __future__ import annotations

from typing import Any

BAD_HEADS: list[tuple[str, dict[str, Any], str, str]] = [
    ("versions-text", {"versions": "5"}, "$.payload.suites.graph.versions", "must be an integer"),
    ("versions-null", {"versions": None}, "$.payload.suites.graph.versions", "must be an integer"),
    ("versions-bool", {"versions": True}, "$.payload.suites.graph.versions", "must be an integer"),
    ("versions-float", {"versions": 2.0}, "$.payload.suites.graph.versions", "must be an integer"),
    ("versions-zero", {"versions": 0}, "$.payload.suites.graph.versions", "from 1 to"),
    ("versions-negative", {"versions": -3}, "$.payload.suites.graph.versions", "from 1 to"),
    ("versions-huge", {"versions": 10**30}, "$.payload.suites.graph.versions", "from 1 to"),
    ("latest-number", {"latest": 2}, "$.payload.suites.graph.latest", "is not a version of suite graph"),
    ("latest-other-suite", {"latest": "api_v2"}, "$.payload.suites.graph.latest", "is not a version of suite graph"),
    ("latest-newline", {"latest": "graph_v2\n"}, "$.payload.suites.graph.latest", "is not a version"),
    ("latest-below-count", {"latest": "graph_v1"}, "$.payload.suites.graph.latest", "cannot be the latest of 2"),
    ("manifest-short", {"manifest_sha256": "abc"}, "$.payload.suites.graph.manifest_sha256", "is not a sha256"),
    ("manifest-list", {"manifest_sha256": []}, "$.payload.suites.graph.manifest_sha256", "is not a sha256"),
    ("extra-field", {"note": "x"}, "$.payload.suites.graph", "unknown note"),
]


BAD_DOCUMENTS = [
    ('{"payload": 5, "signature": {"keyid": "k", "sig": "s"}}', "must be the base64"),
    ('{"payload": "!!", "signature": {"keyid": "k", "sig": "s"}}', "not the base64"),
    ('{"payload": "e30=", "signature": "s"}', "keyid and sig"),
    ('{"payload": "e30=", "signature": {"keyid": "k", "sig": 5}}', "keyid and sig"),
    ('{"payload": "e30=", "payload": "e30=", "signature": {}}', "is given twice"),
    ('{"payload": "e30="}', "exactly payload and signature"),
    ("[" * 100_000, "levels deep"),
    ('{"payload": NaN}', "NaN"),
]

STATE_FILES = ["fifo", "link-to-dev-zero", "link-to-a-file", "directory", "oversized", "damaged", "bad-shape"]
