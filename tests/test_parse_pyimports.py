"""The Python import reader (freezer.parse.pyimports) and the closure over it (freezer.kinds.closure):
every import form lm-eval task modules use, resolved to the suite's files by their paths, what is
outside the suite kept by name, and a module that cannot be parsed kept as unknown. Nothing is
imported or run: the modules here would fail if they were."""

from __future__ import annotations

import pytest

from freezer.domain.fixturekind import CLOSURE_RULES
from freezer.kinds.base import Files
from freezer.kinds.closure import Closures
from freezer.parse.pyimports import Imported, imports, resolve

SUITE = {
    "tasks/leaderboard/ifeval/utils.py",
    "tasks/leaderboard/ifeval/instructions_registry.py",
    "tasks/ifeval/instructions_registry.py",
    "tasks/pkg/__init__.py",
    "tasks/pkg/scoring.py",
    "tasks/pkg/sub/__init__.py",
    "tasks/pkg/sub/deep.py",
    "tasks/helpers.py",
    "common.py",
}


@pytest.mark.parametrize(
    ("importer", "imported", "files", "external"),
    [
        # lm-eval's own form: the family's path matched at the nearest folder holding it.
        (
            "tasks/leaderboard/ifeval/utils.py",
            Imported("lm_eval.tasks.leaderboard.ifeval", 0, ("instructions_registry",)),
            ("tasks/leaderboard/ifeval/instructions_registry.py",),
            None,
        ),
        (
            "tasks/ifeval/x.py",
            Imported("lm_eval.tasks.ifeval.instructions_registry"),
            ("tasks/ifeval/instructions_registry.py",),
            None,
        ),
        # Relative imports, from a package's module and from deeper.
        (
            "tasks/pkg/scoring.py",
            Imported("", 1, ("sub",)),
            ("tasks/pkg/__init__.py", "tasks/pkg/sub/__init__.py"),
            None,
        ),
        ("tasks/pkg/sub/deep.py", Imported("scoring", 2, ("clean",)), ("tasks/pkg/scoring.py",), None),
        ("tasks/pkg/scoring.py", Imported("", 1, ("name_in_init",)), ("tasks/pkg/__init__.py",), None),
        ("tasks/pkg/scoring.py", Imported("", 4, ("x",)), (), "...."),  # above the suite's root
        # Plain imports: a sibling (the sys.path idiom), then the root; else external by top name.
        ("tasks/utils.py", Imported("helpers"), ("tasks/helpers.py",), None),
        ("tasks/utils.py", Imported("common"), ("common.py",), None),
        (
            "tasks/utils.py",
            Imported("pkg.sub.deep"),
            ("tasks/pkg/sub/deep.py", "tasks/pkg/__init__.py", "tasks/pkg/sub/__init__.py"),
            None,
        ),
        ("tasks/utils.py", Imported("nltk.tokenize", 0, ("word_tokenize",)), (), "nltk"),
        ("tasks/utils.py", Imported("lm_eval.api.registry", 0, ("register",)), (), "lm_eval"),
    ],
)
def test_an_import_resolves_to_the_suite_files_it_loads_or_to_an_external_name(
    importer: str, imported: Imported, files: tuple[str, ...], external: str | None
) -> None:
    resolved = resolve(importer, imported, SUITE.__contains__)
    assert resolved.files == files
    assert resolved.external == external


def test_every_import_statement_is_read_at_any_depth_and_none_is_run() -> None:
    source = b"""\
import os, sys
sys.path.append(os.path.dirname(__file__))
raise SystemExit("never run")
try:
    from . import helpers
except ImportError:
    import helpers
def f():
    if True:
        from lm_eval.tasks.ifeval import instructions as i
    with open("x") as h:
        import langdetect
    match h:
        case _:
            import nltk
from x import *
"""
    assert [(i.module, i.level, i.names) for i in imports(source) or []] == [
        ("os", 0, ()),
        ("sys", 0, ()),
        ("", 1, ("helpers",)),
        ("helpers", 0, ()),
        ("lm_eval.tasks.ifeval", 0, ("instructions",)),
        ("langdetect", 0, ()),
        ("nltk", 0, ()),
        ("x", 0, ()),
    ]
    assert imports(b"def broken(:\n") is None
    assert imports(b"x = 1\x00\n") is None


def test_a_closure_follows_imports_through_the_suite_and_keeps_what_it_cannot_read() -> None:
    data = {
        "tasks/utils.py": b"import helpers\nimport broken\n",
        "tasks/helpers.py": b"from . import cycle\nimport numpy\n",
        "tasks/cycle.py": b"import helpers\n",
        "tasks/broken.py": b"def f(:\n",
        "tasks/unrelated.py": b"import torch\n",
    }
    view = Files([], lambda rel, _limit: data[rel], others=sorted(data))
    closure = Closures(view, CLOSURE_RULES).of(["tasks/utils.py"])
    assert closure.files == ("tasks/broken.py", "tasks/cycle.py", "tasks/helpers.py")
    assert closure.external == ("numpy", "unparsed:tasks/broken.py")
    assert Closures(view, CLOSURE_RULES).of(["tasks/a.yaml"]).files == ()
