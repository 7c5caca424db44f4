"""Hostile suite schemas (issue 23): the registry each case of tests/cases/schemas/ runs in.

A case is JSON: ``schema`` (written as indented JSON, so positions are stable) or
``schema_text`` (written as is), a ``fixture`` (YAML text; by default a minimal
landed one), and ``repeat`` (``line`` formatted with ``i``, times ``times``,
``count`` times, appended to the fixture: big fixtures without big case files).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SCHEMA = "suite.schema.json"
FIXTURE = "drafts/api/fixtures/case.yaml"
CONFIG = """\
freezer: 1
suites:
  api:
    drafts: drafts/api
    versions: versions
    code_repo: code
    schema: suite.schema.json
    tool_surface: ['src/**']
"""
MINIMAL = "task_id: t\nstatus: landed\n"


def fixture_text(spec: dict[str, Any]) -> str:
    text: str = spec.get("fixture", MINIMAL)
    repeat = spec.get("repeat")
    if repeat:
        times = repeat.get("times", 1)
        text += "".join(repeat["line"].format(i=i * times) for i in range(repeat["count"]))
    return text


def registry(tmp_path: Path, spec: dict[str, Any]) -> Path:
    """A registry with one suite, ``api``, whose fixtures meet the case's schema; no code needed
    (validate never reads the code repository)."""
    root = tmp_path / "registry"
    drafts = root / "drafts" / "api"
    (drafts / "fixtures").mkdir(parents=True)
    (root / "freezer.yaml").write_text(CONFIG, encoding="utf-8")
    schema_text = spec["schema_text"] if "schema_text" in spec else json.dumps(spec["schema"], indent=2) + "\n"
    (root / SCHEMA).write_text(schema_text, encoding="utf-8")
    version = (EXAMPLES / "generic/v1/version.yaml").read_text(encoding="utf-8")
    (drafts / "version.yaml").write_text(version.replace("min_landed: 2", "min_landed: 1"), encoding="utf-8")
    (drafts / "fixtures" / "case.yaml").write_text(fixture_text(spec), encoding="utf-8")
    return root
