"""Cost of the dependency closure (docs/benchmarks.md): the lm-eval kind's read of a frozen family
of 64 tasks whose ``!function`` module reaches three more through imports (ifeval's shape), under
closure rules 0 (the files a task names), 1 (imports, group overrides) and 2 (also import calls and
compose builds). Each run parses the modules cold, as one command does. ``python bench/closure_cost.py``."""

from __future__ import annotations

import statistics
import time

from freezer.domain.fixturekind import FixtureKindRecord
from freezer.kinds.catalog import read_frozen
from freezer.parse import pyimports

TASKS = 64
_BODY = b"\n".join(b"def f%d(x):\n    return x + %d\n" % (i, i) for i in range(400))
FILES = {
    "tasks/utils.py": (
        b"from lm_eval.tasks.fam import instructions_registry\n\n"
        b"def process_results(doc, results):\n    return instructions_registry.check(doc, results)\n"
    ),
    "tasks/instructions_registry.py": (
        b"from lm_eval.tasks.fam import instructions\n\ndef check(d, r):\n    return instructions.follow(d, r)\n"
    ),
    "tasks/instructions.py": (
        b"import langdetect\nfrom lm_eval.tasks.fam import instructions_util\n\n"
        b"def follow(d, r):\n    return instructions_util.n(r) > 3\n" + _BODY
    ),
    "tasks/instructions_util.py": b"import functools\n\ndef n(t):\n    import nltk\n    return len(t.split())\n",
    "tasks/_template.yaml": (
        b"dataset_path: toy/fam\ndataset_kwargs:\n  revision: " + b"a" * 40 + b"\n"
        b"output_type: generate_until\nprocess_results: !function utils.process_results\n"
    ),
    **{f"tasks/t{i:02d}.yaml": f"include: _template.yaml\ntask: fam_t{i:02d}\n".encode() for i in range(TASKS)},
}
FIXTURES = sorted(rel for rel in FILES if rel.endswith(".yaml") and not rel.startswith("tasks/_"))


def timed(rules: int, runs: int = 7) -> tuple[float, float]:
    """Best and median seconds of one read of the family under ``rules``."""
    record = FixtureKindRecord("lm-eval", "tasks/*.yaml")._replace(closure=rules)
    times = []
    for _ in range(runs):
        pyimports._PARSED.clear()  # cold: each command parses a suite's modules afresh
        start = time.perf_counter()
        read = read_frozen(record, FILES, FIXTURES)
        times.append(time.perf_counter() - start)
        assert len(read.fixtures) == TASKS, len(read.fixtures)
    return min(times), statistics.median(times)


if __name__ == "__main__":
    for rules in (0, 1, 2):
        best, median = timed(rules)
        said = f"best {best * 1000:.1f} ms, median {median * 1000:.1f} ms"
        print(f"{TASKS}-task lm-eval family, closure rules {rules}: {said}")
