"""The provenance statement of a version: an in-toto Statement v1 with a SLSA Provenance v1 predicate.

It is a pure function of the frozen manifest and METHOD.md, written at cut
time as ``provenance.json`` beside them (manifest format 3) and re-derived by
the audit. The subjects are the manifest, METHOD.md and every frozen data file
with their sha256; the resolved dependencies are the pinned code commit, the
binary, each tool-surface commit and the previous version's manifest.
Signatures (DSSE envelopes) are kept outside the frozen folder, in
``signatures/``, so a version can gain signers without changing.
"""

from __future__ import annotations

import hashlib
import json

from freezer.domain import canonical
from freezer.domain.jsontypes import JsonObject, JsonValue, json_list
from freezer.domain.manifest import Manifest
from freezer.domain.release import distribution_of
from freezer.registry import registry

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
PREDICATE_TYPE = "https://slsa.dev/provenance/v1"
BUILD_TYPE = "https://freezer.dev/cut/v1"
PAYLOAD_TYPE = "application/vnd.in-toto+json"
# Files of a version that freezer computes rather than takes from the drafts.
# freezer's §Delta template is freezer's, not the suite's (only versions since checks.delta_block hold it).
_DERIVED = (registry.DELTA, registry.COMPARABILITY, registry.GITATTRIBUTES, registry.DELTA_TEMPLATE_COPY)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _dependencies(manifest: Manifest) -> list[JsonValue]:
    found: list[JsonValue] = []
    binary = manifest.binary.raw if manifest.binary is not None else None
    if manifest.pinned is not None:
        found.append({"name": "code under test (pinned SHA)", "digest": {"gitCommit": manifest.pinned.full}})
    if binary is None:
        pass  # no code under test: no binary ran it
    elif binary.get("build_sha"):
        found.append({"name": f"binary {binary['name']}", "digest": {"gitCommit": binary["build_sha"]}})
    else:
        found.append(
            {
                "name": f"binary {binary['name']}",
                "uri": f"urn:freezer:binary:{binary['name']}",
                "annotations": {"build_sha_unknown": binary.get("build_sha_unknown") or "not recorded"},
            }
        )
    for commit in manifest.commits:
        annotations: JsonObject = {
            key: value for key, value in (("task", commit.task), ("effect", commit.effect)) if value
        }
        found.append(
            {
                "name": f"tool surface: {commit.dimension}",
                "digest": {"gitCommit": commit.sha},
                "annotations": annotations,
            }
        )
    if manifest.previous:
        name, digest = manifest.previous
        found.append({"name": f"{name}/{registry.MANIFEST}", "digest": {"sha256": digest}})
    return found


def statement(manifest_bytes: bytes, method_bytes: bytes) -> JsonObject:
    """The in-toto statement for a version, from its frozen manifest and METHOD.md."""
    manifest = Manifest.from_data(json.loads(manifest_bytes))
    name = manifest.name
    subjects: list[JsonValue] = [
        {"name": f"{name}/{registry.MANIFEST}", "digest": {"sha256": _sha256(manifest_bytes)}},
        {"name": f"{name}/{registry.METHOD}", "digest": {"sha256": _sha256(method_bytes)}},
    ]
    subjects += [
        {"name": f"{name}/{rel}", "digest": {"sha256": digest}} for rel, digest in sorted(manifest.files.items())
    ]
    drafts: JsonObject = {rel: digest for rel, digest in sorted(manifest.files.items()) if rel not in _DERIVED}
    recorded = manifest.format >= 2  # format 1 recorded no checks
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": PREDICATE_TYPE,
        "predicate": {
            "buildDefinition": {
                "buildType": BUILD_TYPE,
                "externalParameters": {"suite": manifest.suite, "version": manifest.number, "drafts": drafts},
                "internalParameters": {
                    "tool_surface_globs": json_list(manifest.globs),
                    "template_sha256": manifest.checks.template_sha256 if recorded else None,
                    "grep": manifest.checks.grep.to_json() if recorded and manifest.checks.grep else None,
                },
                "resolvedDependencies": _dependencies(manifest),
            },
            "runDetails": {
                "builder": {
                    # The name the cutting release was published under: a version cut before the
                    # rename keeps the statement it was frozen (and signed) with.
                    "id": f"pkg:pypi/{distribution_of(manifest.freezer_version)}@{manifest.freezer_version}",
                    "version": {"freezer": manifest.freezer_version},
                },
                "metadata": {"invocationId": name, "startedOn": manifest.cut_at, "finishedOn": manifest.cut_at},
            },
        },
    }


def statement_bytes(manifest_bytes: bytes, method_bytes: bytes) -> bytes:
    """provenance.json as frozen: sorted keys, two-space indent, one trailing newline."""
    return canonical.frozen_file(statement(manifest_bytes, method_bytes))


def pae(payload_type: str, payload: bytes) -> bytes:
    """DSSE's pre-authentication encoding: what a DSSE signature signs."""
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %s %d %s" % (len(kind), kind, len(payload), payload)
