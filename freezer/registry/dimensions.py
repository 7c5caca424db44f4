"""The dimensions a suite's tool-surface commits can move when its freezer.yaml names none.

Each version records the dimensions it was cut with (``checks.dimensions``), and those rule it,
whatever the default is now: only a suite's next cut follows a changed default.
"""

from __future__ import annotations

from collections.abc import Sequence

# A graph suite's: the three ways a code-search tool changes under an agent.
DEFAULT_DIMENSIONS = {
    "indexer": "what the index contains (ignore files, noise removed or added)",
    "descriptions": "the tool descriptions the agent reads",
    "surface": "tool behaviour and output shape",
}

# The default of a suite of any other kind (generic, folders, records, lm-eval) that names a tool
# surface: one dimension, its globs' files, since the graph's three say nothing of a prompt or a
# harness. Without code under test there is no tool-surface commit to classify: no dimension.
SURFACE_DIMENSIONS = {"tool_surface": "the files the suite's tool_surface globs name (tools, prompts, harness)"}


def default_dimensions(kind: str, has_code: bool, has_surface: bool, named: set[str] = set()) -> dict[str, str]:  # noqa: B006 - read only
    """The dimensions of a suite whose freezer.yaml names none (``dimensions:``). ``named``: the
    dimensions its arms depend on; a config that names one of the graph's was written when every
    suite defaulted to them, and keeps them."""
    if not has_code:
        return {}  # the tool-surface dimensions are kinds of tool-surface commit: without code there are none
    if kind == "graph" or named & DEFAULT_DIMENSIONS.keys():
        return dict(DEFAULT_DIMENSIONS)
    return dict(SURFACE_DIMENSIONS) if has_surface else {}


def default_arms(
    dimensions: Sequence[str], *, code: bool = True, sources: bool = False, environment: bool = False
) -> dict[str, tuple[str, ...]]:
    """The arms a cut records for a suite that declares none: one arm, ``all``, whose scores
    depend on every dimension that exists: the suite's, the binary and the code (when there is
    code under test), the run configuration, the assets, the version record, and the data
    sources and the environment images when the version has them."""
    needs = (*dimensions, "binary", "code") if code else tuple(dimensions)
    extra = (*(("sources",) if sources else ()), *(("environment",) if environment else ()))
    return {"all": (*needs, "run", "assets", "record", *extra)}


def format_2_default_arms(dimensions: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The documented default of every version before manifest format 3 (which recorded no arms),
    and what earlier cuts of format 3 recorded for a suite that declared none: ``all``, depending
    on every dimension, the binary and the code."""
    return {"all": (*dimensions, "binary", "code")}
