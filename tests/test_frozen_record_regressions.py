"""Issue 24's three cases of a fresh version failing its own audit: cut, then audit clean.

Each comes from re-deriving what was frozen from something other than the frozen
record (config order, a guess at which files are fixtures).
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from conftest import run_inprocess


def _add_to_suite(root: Path, lines: str) -> None:
    config = root / "freezer.yaml"
    text = config.read_text()
    anchor = "    kind: generic\n"
    assert anchor in text
    config.write_text(text.replace(anchor, anchor + lines, 1))


def _cut_then_audit(root: Path, label: str) -> None:
    cut = run_inprocess("cut", label, "--suite", "api", cwd=root)
    assert cut.code == 0, cut.text
    audited = run_inprocess("audit", "--no-code", f"api_{label}", cwd=root)
    assert audited.code == 0, audited.text
    listed = run_inprocess("list", cwd=root)
    assert listed.code == 0, listed.text


def _next_version(root: Path, number: int) -> None:
    version = root / "drafts/api/version.yaml"
    text = version.read_text()
    version.write_text(text.replace(f"version: {number - 1}\n", f"version: {number}\n", 1))
    prompt = root / "drafts/api/fixtures/add-timeout-flag.yaml"
    prompt.write_text(prompt.read_text().replace("defaulting to 30000", f"defaulting to {number}0000"))


def test_arms_declared_out_of_alphabetical_order(api: Path) -> None:
    _add_to_suite(api, "    arms:\n      zeta: [code]\n      alpha: [binary]\n      middle: [code_sites]\n")
    _cut_then_audit(api, "v1")
    _next_version(api, 2)
    _cut_then_audit(api, "v2")
    record = json.loads((api / "versions/api_v2/manifest.json").read_text())["comparability"]["arms"]
    assert list(record) == sorted(record)
    against = json.loads((api / "versions/api_v2/comparability.json").read_text())
    assert "zeta" in json.dumps(against)


def test_json_fixtures_of_a_generic_suite(api: Path) -> None:
    fixtures = api / "drafts/api/fixtures"
    for path in sorted(fixtures.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        (fixtures / (path.stem + ".json")).write_text(json.dumps(data, indent=2) + "\n")
        path.unlink()
    _add_to_suite(api, '    fixtures: "fixtures/*.json"\n')
    _cut_then_audit(api, "v1")


def test_a_canary_with_a_yaml_asset(api: Path) -> None:
    canary = "freezer-canary 3f1e9c2a-1111-4222-8333-944455556666"
    for path in (api / "drafts/api/fixtures").glob("*.yaml"):
        path.write_text(f"# {canary}\n" + path.read_text())
    (api / "drafts/api/assets/config.yaml").write_text("setting: 1\n")
    _add_to_suite(api, f'    canary: "{canary}"\n    fixtures: "fixtures/*.yaml"\n')
    _cut_then_audit(api, "v1")
