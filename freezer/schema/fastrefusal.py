"""The refusal the compiled schemas (``freezer/schema/_compiled/``) raise.

fastjsonschema's generated code raises and catches its library's two exception classes; importing
the library for them cost every pre-commit validate all of fastjsonschema (and ``decimal``) at
start-up. :mod:`freezer.schema.compile_schemas` points the generated code here instead. The classes
keep fastjsonschema's names and the attributes :func:`freezer.schema.schemas.schema_errors` reads
(``message`` and ``path``), so what a refusal reports is unchanged.
"""

from __future__ import annotations

import re
from typing import Any

_PATH_SEPARATORS = re.compile(r"[\.\[\]]+")


class JsonSchemaValueException(ValueError):
    """A value the schema refuses: ``name`` is where (``data.a[0]``), ``rule`` which keyword."""

    def __init__(
        self, message: str, value: Any = None, name: str | None = None, definition: Any = None, rule: str | None = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.value = value
        self.name = name
        self.definition = definition
        self.rule = rule

    @property
    def path(self) -> list[str]:
        return [item for item in _PATH_SEPARATORS.split(self.name or "") if item != ""]


class JsonSchemaValuesException(ValueError):
    """Several refusals at once (fastjsonschema's code catches it beside the single one)."""

    def __init__(self, errors: list[JsonSchemaValueException]) -> None:
        self.message = "; ".join(error.message for error in errors)
        super().__init__(self.message)
        self.errors = errors
