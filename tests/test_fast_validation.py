"""The compiled validators (fastjsonschema) agree with jsonschema, and are up to date.

freezer accepts a document only when the compiled validator accepts it, and
asks jsonschema for the messages when it does not. So the property that
matters is: whatever the fast path accepts, jsonschema accepts too. It is
checked here on every example, every negative case and every schema
mutation of the hostile corpus, and both verdicts are compared. The default
lane runs every kind of mutation on one fixture of each example version; the
slow lane (CI) runs them on every fixture.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from hostile import corpus

from freezer.schema import compile_schemas, schemas

from conftest import EXAMPLES, REPO

# (mutated fixtures per example version, fewest documents both must accept, fewest both must refuse)
SAMPLE = (1, 20, 400)  # 442 mutations, about 2 s
FULL = (None, 20, 1000)  # 2,190 mutations: CI runs it; `pytest -m slow` runs it here


def _verdicts(name: str, data: Any) -> tuple[bool, bool]:
    fast = schemas.fast_validator(name)
    try:
        fast(data)
        fast_ok = True
    except Exception:  # noqa: BLE001 - any refusal counts
        fast_ok = False
    return fast_ok, schemas.validator(name).is_valid(data)


def test_compiled_validators_are_up_to_date() -> None:
    assert compile_schemas.main(["--check"]) == 0


@pytest.mark.parametrize(
    "budget", [pytest.param(SAMPLE, id="sample"), pytest.param(FULL, id="full", marks=pytest.mark.slow)]
)
def test_fast_path_agrees_with_jsonschema(budget: tuple[int | None, int, int]) -> None:
    per_version, accepted_at_least, rejected_at_least = budget
    documents: list[tuple[str, str, Any]] = []
    for path in sorted(EXAMPLES.glob("graph/*/fixtures/*.yaml")):
        documents.append(("fixture", path.name, yaml.safe_load(path.read_text())))
    for path in sorted(EXAMPLES.glob("graph/*/version.yaml")):
        documents.append(("version", str(path), yaml.safe_load(path.read_text())))
    documents.append(("registry", "freezer.yaml", yaml.safe_load((REPO / "freezer.yaml").read_text())))
    for path in sorted((REPO / "versions").glob("*/manifest.json")):
        import json

        documents.append(("manifest", str(path), json.loads(path.read_text())))
    for path in sorted((REPO / "tests/cases/negative").glob("*.yaml")):
        try:
            documents.append(("fixture", path.name, yaml.safe_load(path.read_text())))
        except yaml.YAMLError:
            continue
    for case_id, data in corpus.schema_documents(per_version):
        documents.append(("fixture", case_id, data))
    disagreements = []
    accepted_by_both = rejected_by_both = 0
    for name, label, data in documents:
        fast_ok, reference_ok = _verdicts(name, data)
        if fast_ok != reference_ok:
            disagreements.append(f"{label}: fast={fast_ok} jsonschema={reference_ok}")
        accepted_by_both += fast_ok and reference_ok
        rejected_by_both += not fast_ok and not reference_ok
    assert disagreements == [], disagreements[:20]
    assert accepted_by_both >= accepted_at_least and rejected_by_both >= rejected_at_least
