"""The results page's plot: each run's score per version, as static SVG made when the site is built.

No script, no font or file to load: the page reads the same from ``file://``. A model's line joins
two consecutive versions only when the step between them is comparable (no fixture its runs score
moved, appeared or went); an incomparable step is drawn as a break, a dashed rule between the two
versions with no line across it, its reason in the rule's title. Every text comes from data and is
escaped here, since this markup is handed to the page as the site's own.
"""

from __future__ import annotations

from html import escape

from freezer.query.table import SuiteTable

WIDTH, HEIGHT = 640, 260
_LEFT, _RIGHT, _TOP, _BOTTOM = 48, 16, 16, 40
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2")


def _x(index: int, count: int) -> float:
    inner = WIDTH - _LEFT - _RIGHT
    return _LEFT + (inner / 2 if count == 1 else inner * index / (count - 1))


def _y(score: float) -> float:
    return _TOP + (HEIGHT - _TOP - _BOTTOM) * (1 - score)


def _at(value: float) -> str:
    return f"{value:.1f}"


def svg(table: SuiteTable) -> str:
    """The plot of ``table``'s pooled versions (a yanked one is never drawn): "" when fewer than one."""
    versions = [v for v in table.versions if v.status != "yanked"]
    if not versions:
        return ""
    names = [v.version for v in versions]
    count = len(names)
    breaks = {(s.old, s.new): s for s in table.steps if s.excluded}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="results-plot" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="{WIDTH}" height="{HEIGHT}" role="img" aria-labelledby="plot-title">',
        f'<title id="plot-title">Score per model across {escape(table.suite)} versions; '
        "incomparable steps are breaks</title>",
    ]
    for tick in (0.0, 0.5, 1.0):
        y = _at(_y(tick))
        out.append(f'<line class="grid" x1="{_LEFT}" x2="{WIDTH - _RIGHT}" y1="{y}" y2="{y}"/>')
        out.append(f'<text class="axis" x="{_LEFT - 6}" y="{y}" text-anchor="end" dy="4">{tick:.1f}</text>')
    for index, name in enumerate(names):
        x = _at(_x(index, count))
        out.append(f'<text class="axis" x="{x}" y="{HEIGHT - _BOTTOM + 18}" text-anchor="middle">{escape(name)}</text>')
    for index in range(count - 1):
        step = breaks.get((names[index], names[index + 1]))
        if step is None:
            continue
        x = _at((_x(index, count) + _x(index + 1, count)) / 2)
        why = f"{step.old} → {step.new}: {len(step.excluded)} fixture(s) cannot be compared; no line crosses it"
        out.append(
            f'<line class="break" data-from="{escape(step.old)}" data-to="{escape(step.new)}" x1="{x}" x2="{x}" '
            f'y1="{_TOP}" y2="{HEIGHT - _BOTTOM}"><title>{escape(why)}</title></line>'
        )
    series: dict[tuple[str, str], dict[int, float]] = {}
    for index, version in enumerate(versions):
        for run in version.runs:
            if run.mean is not None:
                series.setdefault((run.model, run.harness), {})[index] = run.mean
    for number, ((model, harness), points) in enumerate(sorted(series.items())):
        colour = _COLOURS[number % len(_COLOURS)]
        label = escape(f"{model} ({harness})")
        out.append(f'<g class="series" data-model="{escape(model)}" stroke="{colour}" fill="{colour}">')
        for index in sorted(points):
            after = index + 1
            if after in points and (names[index], names[after]) not in breaks:
                out.append(
                    f'<line class="step" data-from="{escape(names[index])}" data-to="{escape(names[after])}" '
                    f'x1="{_at(_x(index, count))}" y1="{_at(_y(points[index]))}" '
                    f'x2="{_at(_x(after, count))}" y2="{_at(_y(points[after]))}"/>'
                )
        for index, score in sorted(points.items()):
            out.append(
                f'<circle cx="{_at(_x(index, count))}" cy="{_at(_y(score))}" r="4">'
                f"<title>{label} on {escape(names[index])}: {score:.3f}</title></circle>"
            )
        last = max(points)
        out.append(
            f'<text class="label" x="{_at(_x(last, count) - 6)}" y="{_at(_y(points[last]) - 8)}" '
            f'text-anchor="end" stroke="none">{escape(model)}</text>'
        )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
