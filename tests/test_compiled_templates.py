"""The templates freezer ships, read from the modules ``python -m freezer.render.compile_templates``
writes (freezer/render/_compiled/): up to date with the templates, used for the shipped text only,
and rendering byte for byte what compiling the text renders, on every version of the demo."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import jinja2
import pytest

from freezer.render import compile_templates, render
from freezer.render._compiled import delta_md, method_md

from conftest import run_inprocess


@pytest.fixture
def fresh_templates() -> Iterator[None]:
    render._compiled.cache_clear()
    yield
    render._compiled.cache_clear()


def test_the_compiled_templates_are_up_to_date() -> None:
    if jinja2.__version__ != method_md.JINJA2_VERSION:
        pytest.skip(f"compiled with Jinja2 {method_md.JINJA2_VERSION}, running {jinja2.__version__}: read from text")
    assert compile_templates.main(["--check"]) == 0


def test_only_the_shipped_templates_come_from_their_modules(fresh_templates: None) -> None:
    assert render._compiled(render._shipped()).filename == method_md.__file__
    assert render._compiled(render._shipped_delta()).filename == delta_md.__file__
    own = render._compiled("# {{ name }}\n{{ delta_block }}\n")
    assert own.filename == "<template>"
    assert render._compiled(render._shipped(), True).filename == "<template>"  # a preview compiles its text


def test_under_another_jinja2_the_shipped_template_is_compiled_from_its_text(
    fresh_templates: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(method_md, "JINJA2_VERSION", "0.0")
    assert render._compiled(render._shipped()).filename == "<template>"


def test_the_demo_audits_with_the_templates_compiled_from_their_text(
    demo_build: Path, tmp_path: Path, fresh_templates: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's versions were cut with the compiled modules; audit renders each METHOD.md again
    from the templates' text and compares the bytes."""
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    for module in (method_md, delta_md):
        monkeypatch.setattr(module, "JINJA2_VERSION", "0.0")
    assert render._compiled(render._shipped()).filename == "<template>"
    result = run_inprocess("audit", cwd=root)
    assert result.code == 0, result.text
    assert "METHOD.md" not in result.err, result.text
