"""Issue 26: a Dockerfile's ``FROM $ARG`` resolved the way Docker resolves it, from the ``ARG``
lines before the first FROM. A default pinned by digest is pinned; an argument with no default is
unknown with that reason (a ``--build-arg`` fills it in), never "tag only"; a FROM that names an
earlier stage, also through an argument, is not an image."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from freezer.domain.images import ImageRef
from freezer.resolve.images import dockerfile_images

from conftest import run_inprocess
from nocode_helpers import DIGEST_A, DIGEST_B, cut, drafts, frozen, manifest, ok, registry

# A Python service built in one stage and run in a slim one, its base chosen by arguments.
PYTHON_SERVICE = f"""\
# syntax=docker/dockerfile:1.7
ARG PYTHON_VERSION=3.12
ARG BASE=python:${{PYTHON_VERSION}}-slim@{DIGEST_A}

FROM ${{BASE}} AS builder
ARG PIP_INDEX
RUN pip wheel --wheel-dir /wheels -r requirements.txt

FROM $BASE
COPY --from=builder /wheels /wheels
"""
# A Go tool: the builder's platform flag, a stage chosen by an argument, scratch at the end.
GO_TOOL = f"""\
ARG GO_IMAGE="golang:1.22@{DIGEST_B}" RUNTIME
ARG FINAL=scratch
FROM --platform=$BUILDPLATFORM ${{GO_IMAGE}} AS build
RUN go build -o /out/tool ./cmd/tool
FROM build AS test
RUN go test ./...
ARG STAGE=test
FROM ${{RUNTIME:-gcr.io/distroless/static:nonroot}}
FROM ${{FINAL}}
COPY --from=build /out/tool /tool
"""
# A CI image whose base the pipeline passes in: no default, so nothing here names it.
CI_IMAGE = """\
ARG REGISTRY=ghcr.io/acme
ARG BASE_IMAGE
FROM ${REGISTRY}/${BASE_IMAGE}
FROM $REGISTRY/tools:${TOOLS_TAG:-latest}
FROM ${REGISTRY}/lint:${LINT_TAG}
"""


def test_global_args_resolve_and_a_pinned_default_is_pinned() -> None:
    assert dockerfile_images("env/Dockerfile", PYTHON_SERVICE.encode()) == [
        ImageRef("python:3.12-slim", DIGEST_A, "env/Dockerfile:5"),
        ImageRef("python:3.12-slim", DIGEST_A, "env/Dockerfile:9"),
    ]


def test_stages_scratch_and_defaults_through_arguments() -> None:
    found = dockerfile_images("Dockerfile", GO_TOOL.encode())
    assert found == [
        ImageRef("golang:1.22", DIGEST_B, "Dockerfile:3"),
        # RUNTIME is declared without a default: ${RUNTIME:-word} is the word, as Docker gives it
        ImageRef("gcr.io/distroless/static:nonroot", None, "Dockerfile:8"),
    ]


def test_an_argument_with_no_default_is_unknown_with_its_reason() -> None:
    found = dockerfile_images("ci/Dockerfile", CI_IMAGE.encode())
    assert [(i.name, i.digest, i.where) for i in found] == [
        ("${REGISTRY}/${BASE_IMAGE}", None, "ci/Dockerfile:3"),
        ("ghcr.io/acme/tools:latest", None, "ci/Dockerfile:4"),
        ("${REGISTRY}/lint:${LINT_TAG}", None, "ci/Dockerfile:5"),
    ]
    assert found[0].unresolved == (
        "the build argument BASE_IMAGE has no default before the first FROM: its value is given at build time"
    )
    assert found[1].unresolved is None  # a tag, not an argument: tag-only, as before
    assert found[2].unresolved is not None and "no ARG LINT_TAG is declared" in found[2].unresolved


@pytest.mark.parametrize(
    ("text", "name", "unresolved"),
    [
        ("ARG A=\nFROM ${A:-alpine:3.20}\n", "alpine:3.20", None),  # ":-" takes the word when empty
        ("ARG A=\nFROM ${A-alpine:3.20}\n", "${A-alpine:3.20}", "it names nothing"),  # "-" only when unset
        ("ARG A=1\nFROM busybox${A:+:1.36}\n", "busybox:1.36", None),
        ("ARG A\nFROM busybox${A:+:1.36}\n", "busybox", None),
        ("ARG A='${B}'\nFROM ${A}\n", "${B}", None),  # single quotes keep it literal
        ("ARG V=${MISSING}\nFROM node:${V}\n", "node:${V}", "the default of the build argument V"),
        ("ARG A=x\nFROM ${A#x}\n", "${A#x}", "an expansion freezer does not evaluate"),
        ("FROM $TARGETPLATFORM\n", "$TARGETPLATFORM", "set by the builder"),
        ("FROM alpine AS base\nARG LATE=node:20\nFROM $LATE\n", "$LATE", "no ARG LATE is declared"),
    ],
)
def test_expansion_forms(text: str, name: str, unresolved: str | None) -> None:
    [*_, image] = dockerfile_images("Dockerfile", text.encode())
    assert image.name == name
    if unresolved is None:
        assert image.unresolved is None
    else:
        assert image.unresolved is not None and unresolved in image.unresolved


def test_a_stage_named_through_an_argument_is_no_image() -> None:
    text = "FROM alpine:3.20 AS base\nARG PICK=base\nFROM base\n"
    assert [i.name for i in dockerfile_images("Dockerfile", text.encode())] == ["alpine:3.20"]
    text = "ARG PICK=base\nFROM alpine:3.20 AS base\nFROM ${PICK}\nFROM ${PICK:-x} AS two\nFROM TWO\n"
    assert [i.name for i in dockerfile_images("Dockerfile", text.encode())] == ["alpine:3.20"]


def _cut_dockerfiles(tmp_path: Path, texts: dict[str, str]) -> tuple[Path, str]:
    root = registry(tmp_path)
    fixtures = {task: f"assets:\n  - assets/{task}/Dockerfile\n" for task in texts}
    files = {f"assets/{task}/Dockerfile": text for task, text in texts.items()}
    drafts(root, 1, fixtures=fixtures, files=files)
    return root, cut(root, "v1").text


def test_a_cut_warns_with_the_reason_and_method_says_it(tmp_path: Path) -> None:
    root, text = _cut_dockerfiles(tmp_path, {"capital-city": CI_IMAGE, "river-length": PYTHON_SERVICE})
    assert (
        "fixture capital-city names image ${REGISTRY}/${BASE_IMAGE} (assets/capital-city/Dockerfile:3), "
        "which cannot be known: the build argument BASE_IMAGE has no default" in text
    )
    assert "names image ghcr.io/acme/tools:latest by tag alone" in text
    assert "fixture river-length" not in text  # its argument's default is pinned
    images = manifest(root, 1)["environment_images"]
    assert images["river-length"][0] == {
        "name": "python:3.12-slim",
        "digest": DIGEST_A,
        "where": "assets/river-length/Dockerfile:5",
    }
    assert images["capital-city"][0]["unresolved"].startswith("the build argument BASE_IMAGE")
    method = (frozen(root, 1) / "METHOD.md").read_text(encoding="utf-8")
    assert (
        "| capital-city | `${REGISTRY}/${BASE_IMAGE}` | unknown (the build argument BASE_IMAGE has no default "
        "before the first FROM: its value is given at build time) |" in method
    )
    assert "| capital-city | `ghcr.io/acme/tools:latest` | unknown (tag only) |" in method
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))


def test_an_unknown_argument_leaves_the_environment_unknown_with_its_reason(tmp_path: Path) -> None:
    root, _ = _cut_dockerfiles(tmp_path, {"capital-city": "ARG BASE\nFROM ${BASE}\n"})
    drafts(root, 2, fixtures={"capital-city": "assets:\n  - assets/capital-city/Dockerfile\n"})
    (root / "drafts/qa/assets/capital-city/Dockerfile").parent.mkdir(parents=True, exist_ok=True)
    (root / "drafts/qa/assets/capital-city/Dockerfile").write_text("ARG BASE\nFROM ${BASE}\n", encoding="utf-8")
    cut(root, "v2")
    delta = json.loads((frozen(root, 2) / "delta.json").read_bytes())
    [unknown] = [u for u in delta["unknown"] if u["dimension"] == "environment"]
    assert unknown["why"] == (
        "qa_v2: fixture capital-city names image ${BASE} (assets/capital-city/Dockerfile:2), which cannot be "
        "known: the build argument BASE has no default before the first FROM: its value is given at build time"
    )
    assert "by tag alone" not in unknown["why"]
    ok(run_inprocess("audit", "--suite", "qa", cwd=root))
