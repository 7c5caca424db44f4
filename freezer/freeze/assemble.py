"""The files of a version, from its inputs: pure functions, so a cut and a test build the same bytes.

:func:`record` is the manifest a cut would write (without its file hashes), :func:`assemble` every
file of the version but its assets (delta.json, comparability.json, the templates, manifest.json,
METHOD.md, SHA256SUMS). :mod:`freezer.freeze.cut` runs the checks first and writes what this returns.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from freezer.compare.comparerecord import environment_digest
from freezer.compare.comparerecord import record as comparability_record
from freezer.compare.delta import compute as compute_delta
from freezer.domain import canonical
from freezer.domain.images import ImageRef
from freezer.domain.manifest import (
    Checks,
    Comparability,
    Contents,
    FixtureSchemaRecord,
    GrepOracle,
    Manifest,
    PinnedSha,
)
from freezer.domain.model import Binary
from freezer.domain.release import __version__
from freezer.registry import registry
from freezer.registry.config import SuiteConfig
from freezer.registry.record import (
    Side,
    side,
)
from freezer.registry.registry import STATEMENT
from freezer.render.attest import statement_bytes
from freezer.render.method import DELTA_BLOCKS, method_from_files
from freezer.render.render import MARKDOWN_RULES
from freezer.resolve.provenance import ResolvedProvenance
from freezer.runtime import resources

# No line-ending conversion, no filter, no ident expansion, no re-encoding: whatever the
# registry's root .gitattributes says, a checkout writes the frozen bytes as they are.
# (!working-tree-encoding, not -: git refuses a boolean for that attribute.)
GITATTRIBUTES_TEXT = (
    b"# Written by freezer: every byte of this version must survive checkout unchanged.\n"
    b"* -text -filter -ident !working-tree-encoding\n"
)
# What freezer 0.3 and earlier wrote; a re-cut of such a version is not a difference of inputs.
_EARLIER_GITATTRIBUTES = (
    b"# Written by freezer: every byte of this version must survive checkout unchanged.\n* -text\n",
)
GITATTRIBUTES_HASHES = {hashlib.sha256(text).hexdigest() for text in (GITATTRIBUTES_TEXT, *_EARLIER_GITATTRIBUTES)}


def sha256sums(files: dict[str, bytes], hashed: dict[str, str] | None = None) -> bytes:
    """SHA256SUMS over ``files`` and the already hashed ``hashed`` (assets, copied as they stream)."""
    digests = {**(hashed or {}), **{rel: hashlib.sha256(data).hexdigest() for rel, data in files.items()}}
    return "".join(f"{digests[rel]}  {rel}\n" for rel in sorted(digests)).encode("utf-8")


def _binary(version_data: dict[str, Any], resolved: ResolvedProvenance) -> dict[str, Any]:
    """The binary record as frozen: the draft's, with the build SHA resolved to 40 hex."""
    binary = dict(version_data["binary"])
    if resolved.build_sha:
        binary["build_sha"] = resolved.build_sha
    return binary


def record(
    suite: SuiteConfig,
    number: int,
    version_data: dict[str, Any],
    resolved: ResolvedProvenance | None,
    previous: registry.FrozenVersion | None,
    template: bytes,
    contents: Contents | None = None,
    fixture_schema: FixtureSchemaRecord | None = None,
    comparability: dict[str, Any] | None = None,
    images: Mapping[str, tuple[ImageRef, ...]] | None = None,
    suite_images: tuple[ImageRef, ...] = (),
    locked_sources: Mapping[str, str] | None = None,
    locked_datasets: Mapping[str, Mapping[str, str]] | None = None,
) -> Manifest:
    """The manifest without its file list: everything the checks used and found. With the
    ``comparability`` entry (arms, field groups, fixture digests) it is manifest format 3.
    ``resolved`` is None for a suite with no code under test: nothing of code is recorded."""
    grep = GrepOracle(resolved.grep["engine"], resolved.grep["version"]) if resolved is not None else None
    # markdown_rules: so audit renders METHOD.md with the same filters
    # delta_block: §Delta is rendered from freezer's own template, frozen beside the suite's
    checks = Checks(
        hashlib.sha256(template).hexdigest(),
        grep,
        dict(suite.dimensions),
        fixture_schema,
        MARKDOWN_RULES,
        DELTA_BLOCKS[-1],
    )
    manifest = Manifest(
        format=3 if comparability is not None else 2,
        suite=suite.name,
        number=number,
        name=registry.version_name(suite.name, number),
        pinned=PinnedSha(resolved.pinned_sha, resolved.pinned_sha[:8], version_data["pinned_sha"])
        if resolved
        else None,
        code_repo=resolved.repo_identity if resolved else None,
        binary=Binary.from_data(_binary(version_data, resolved)) if resolved else None,
        globs=tuple(suite.tool_surface),
        commits=tuple(resolved.commits) if resolved else (),
        scan=resolved.scan if resolved else None,
        checks=checks,
        code_history=resolved.code_history if resolved else None,
        code_history_recorded=True,
        freezer_version=__version__,
        cut_at=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        previous=(previous.name, previous.manifest_sha256()) if previous else None,
        files={},
        contents=contents,
        canary=(suite.canary or None) if comparability is not None else None,
        fixture_kind=suite.fixture_kind,
        images=dict(images or {}),
        suite_images=suite_images,
        locked_sources=dict(sorted((locked_sources or {}).items())),
        locked_datasets={name: dict(sorted(r.items())) for name, r in sorted((locked_datasets or {}).items())},
    )
    if comparability is not None:
        entry = Comparability.from_data({**comparability, "environment": environment_digest(manifest, version_data)})
        manifest = replace(manifest, comparability=entry)
    return manifest


def assemble(
    manifest_record: Manifest,
    drafts: dict[str, bytes],
    template: bytes,
    previous: Side | None,
    meanings: dict[str, str],
    parsed: tuple[dict[str, Any], list[dict[str, Any]]],
    template_name: str = registry.TEMPLATE_COPY,
    assets: dict[str, str] | None = None,
    earlier: Sequence[Side] | None = None,
) -> dict[str, bytes]:
    """Every file of a version but its assets, from its manifest record and its inputs: a pure
    function. ``assets`` are the sha256 of the asset files, which the caller copies as they stream;
    ``earlier`` are all earlier versions (default: ``previous`` alone), for the comparability record."""
    version_data, fixtures = parsed
    # The delta compares assets and fixture files by hash (a kind whose fixture is several files
    # counts them by content): the current side knows them before its manifest is done, as
    # audit's side knows them from the manifest.
    known = {**(assets or {}), **{rel: hashlib.sha256(data).hexdigest() for rel, data in drafts.items()}}
    current = side(replace(manifest_record, files=dict(sorted(known.items()))), version_data, fixtures)
    delta = compute_delta([previous, current] if previous else [current], meanings)
    data_files = {
        **drafts,
        registry.DELTA: canonical.frozen_file(delta.to_json()),
        **(
            {
                registry.COMPARABILITY: canonical.frozen_file(
                    comparability_record(
                        current,
                        earlier if earlier is not None else ([previous] if previous else []),
                        meanings,
                        manifest_record.comparability,
                    )
                )
            }
            if manifest_record.comparability is not None
            else {}
        ),
        registry.TEMPLATE_COPY: template,
        **(
            {registry.DELTA_TEMPLATE_COPY: resources.template_text("delta.md.j2").encode("utf-8")}
            if manifest_record.checks.delta_block is not None
            else {}
        ),
        # Each version carries its own attributes, so no checkout can convert its line endings,
        # whatever the registry's root .gitattributes says.
        registry.GITATTRIBUTES: GITATTRIBUTES_TEXT,
    }
    # The drafts were hashed above; only the files generated here are left to hash.
    generated = {rel: data for rel, data in data_files.items() if rel not in drafts}
    hashes = {**known, **{rel: hashlib.sha256(data).hexdigest() for rel, data in generated.items()}}
    manifest = replace(manifest_record, files=dict(sorted(hashes.items())))
    manifest_bytes = canonical.frozen_file(manifest.to_json())
    method = method_from_files(data_files, manifest_bytes, template_name, parsed).encode("utf-8")
    files = {**data_files, registry.MANIFEST: manifest_bytes, registry.METHOD: method}
    if manifest.format >= 3:  # format 3 also writes the provenance statement
        files[STATEMENT] = statement_bytes(manifest_bytes, method)
    files[registry.SUMS] = sha256sums(files, assets)
    return files
