"""One file of fields, read by its suffix: TOML, YAML or JSON, under the same hostile-input limits."""

from __future__ import annotations

from freezer.domain.problems import Problem
from freezer.parse import yamlload
from freezer.parse.document import YamlDocument
from freezer.parse.yamllocate import DEFAULT_LIMITS, YAML_SUFFIXES, Limits

TOML_SUFFIXES = (".toml",)
JSON_SUFFIXES = (".json",)
SUFFIXES = (*TOML_SUFFIXES, *YAML_SUFFIXES, *JSON_SUFFIXES)


def load(
    raw: bytes, display: str, name: str, limits: Limits = DEFAULT_LIMITS
) -> tuple[YamlDocument | None, list[Problem]]:
    """The document in ``raw`` (named ``name``, whose suffix says its format), or its problems."""
    if name.endswith(TOML_SUFFIXES):
        # start-up time: TOML is for folders suites (Harbor's task.toml); the catalog, which every
        # command loads, imports this module through them
        from freezer.parse import tomlload

        loaded = tomlload.load_bytes(raw, display, limits)
        return loaded.document, loaded.problems
    if name.endswith(JSON_SUFFIXES):
        if (large := yamlload.too_large(raw, display, limits)) is not None:
            return None, [large]
        return load_json(raw, display)
    if name.endswith(YAML_SUFFIXES):
        loaded = yamlload.load_bytes(raw, display, limits)
        return loaded.document, loaded.problems
    message = f"freezer reads fields from {', '.join(SUFFIXES)} files; this one has another suffix"
    return None, [Problem(display, None, None, (), message, "file")]


def load_json(raw: bytes, display: str) -> tuple[YamlDocument | None, list[Problem]]:
    """Strict JSON (no duplicate keys, NaN or lone surrogates); positions, when a problem needs
    them, come from reading the same text as YAML, of which JSON is a subset."""
    from freezer.parse import strictjson  # start-up time, as tomlload in load: a benchmark kind's alone

    try:
        data = strictjson.loads(raw)
    except strictjson.NotStrictJson as exc:
        return None, [Problem(display, None, None, (), f"not strict JSON: {exc}", "json")]
    return YamlDocument(display, data, source=raw.decode("utf-8")), []
