"""What a Python file of a suite imports, read statically: parsed with :mod:`ast`, never imported or run.

A benchmark's module (an lm-eval ``!function`` module, a grader) runs with whatever it imports, so
those files are part of what a task runs. :func:`imports` lists every import statement of a file,
at any depth (lm-eval modules often import inside a function or a ``try``). :func:`resolve` maps one
to the files of the suite it loads, by '/'-separated path relative to the suite's root:

* a relative import (``from . import helpers``, ``from ..common import x``): from the importing
  file's folder, as Python resolves it in a package;
* a plain absolute import (``import helpers``, ``from helpers import f``): the importing file's
  folder, then the root. lm-eval task modules put their own folder on ``sys.path``
  (``sys.path.append(os.path.dirname(__file__))``) or run from it; a sibling is claimed whether or
  not the idiom is written, since claiming a file the task does not load only moves it more often;
* ``lm_eval.tasks.<family>...`` (lm-eval's own way, ``from lm_eval.tasks.ifeval import
  instructions_registry``): the suite holds the family's files under some folder of its own, so
  the path after ``lm_eval.tasks.`` is matched at the importing file's folder and each folder above
  it, nearest first, the longest tail of the path first (``ifeval/instructions.py``, then
  ``instructions.py``).

An import written as a call (``importlib.import_module("pkg.mod")``, ``import_module(".helpers",
__package__)``, ``__import__("helpers")``) is read like the statement when its module is a string
literal; when it is computed at run time (``import_module(name)``) what it loads cannot be known,
and the import says so (:attr:`Imported.at_run_time`), never nothing.

An import that names no file of the suite is external and kept by its top-level name (``nltk``,
``lm_eval``), never dropped: what a task needs from outside the suite is part of what it runs.
A submodule found counts as the import resolved (``from pkg import mod`` loads ``pkg/mod.py``), and
every ``__init__.py`` of the packages on the way is loaded too, so it is listed.
"""

import ast
import hashlib
import posixpath
import warnings
from collections.abc import Callable
from typing import NamedTuple

PYTHON_SUFFIX = ".py"
# Where lm-eval keeps its task families: an import under it names a family's files.
_TASKS_PACKAGE = ("lm_eval", "tasks")


class Imported(NamedTuple):
    """One import: the module named (dotted, without the leading dots of a relative import), how
    many dots it had, and for ``from ... import``, the names it takes (each may be a submodule)."""

    module: str
    level: int = 0
    names: tuple[str, ...] = ()
    call: bool = False  # written as a call (importlib.import_module, __import__), not a statement
    at_run_time: bool = False  # a call whose module is computed at run time: ``module`` is ""


class Resolved(NamedTuple):
    """The suite's files an import loads, or (``external``) the top-level name of what it needs from
    outside the suite."""

    files: tuple[str, ...] = ()
    external: str | None = None


def imports(source: bytes) -> tuple[Imported, ...] | None:
    """Every import of ``source``, in the order written; None when it does not parse as Python
    (a caller says so: what it imports is then unknown, never "nothing"). Parsing is most of the
    closure's cost and one command reads a suite's modules several times (validate, the cut, the
    previous version), so each content is parsed once (by its sha256, a bounded number kept)."""
    key = hashlib.sha256(source).digest()
    if key not in _PARSED:
        if len(_PARSED) >= _PARSED_KEPT:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[key] = _imports(source)
    return _PARSED[key]


_PARSED: dict[bytes, tuple[Imported, ...] | None] = {}
_PARSED_KEPT = 4096


def _imports(source: bytes) -> tuple[Imported, ...] | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an invalid escape in a string is no concern of freezer's
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: list[Imported] = []
    # An import is a statement: only statements are walked (a module's data, a long list or table,
    # is most of its nodes and holds none), no recursion (nesting is bounded by the parser alone).
    stack: list[ast.stmt] = list(reversed(tree.body))
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import):
            found.extend(Imported(alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            found.append(Imported(node.module or "", node.level, names))
        else:
            stack.extend(reversed(_statements_in(node)))
    if any(name.encode() in source for name in _IMPORT_CALLS):
        # Calls sit in expressions, which the walk above skips: only a file naming one is walked whole.
        found.extend(filter(None, (_import_call(node) for node in ast.walk(tree) if isinstance(node, ast.Call))))
    return tuple(found)


# The functions that import a module named by their first argument.
_IMPORT_CALLS = ("import_module", "__import__")


def _import_call(node: ast.Call) -> Imported | None:
    """``importlib.import_module(x)``, ``import_module(x)`` or ``__import__(x)`` as an import."""
    func = node.func
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
    if name not in _IMPORT_CALLS or not (node.args or node.keywords):
        return None
    first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "name"), None)
    if not isinstance(first, ast.Constant) or not isinstance(first.value, str):
        return Imported("", call=True, at_run_time=True)
    written = first.value
    module = written.lstrip(".")
    # __import__ takes its level as an argument, import_module as leading dots (with package=).
    return Imported(module, len(written) - len(module), call=True)


def _statements_in(node: ast.stmt) -> list[ast.stmt]:
    """The statements directly inside ``node``: its bodies, branches, handlers and match cases."""
    inner: list[ast.stmt] = []
    for name in ("body", "orelse", "finalbody"):
        block = getattr(node, name, None)
        if isinstance(block, list):
            inner.extend(item for item in block if isinstance(item, ast.stmt))
    for handler in getattr(node, "handlers", None) or ():
        inner.extend(handler.body)
    for case in getattr(node, "cases", None) or ():
        inner.extend(case.body)
    return inner


def resolve(importer: str, imported: Imported, exists: Callable[[str], bool]) -> Resolved:
    """The files of the suite (``exists`` says whether a path is one) that ``imported``, written in
    the file ``importer``, loads."""
    folder = posixpath.dirname(importer)
    parts = tuple(part for part in imported.module.split(".") if part)
    if imported.level:
        base = folder
        for _ in range(imported.level - 1):
            if not base:
                return Resolved(external=f"{'.' * imported.level}{imported.module}")  # above the root
            base = posixpath.dirname(base)
        bases: list[tuple[str, tuple[str, ...]]] = [(base, parts)]
    else:
        bases = _absolute_bases(folder, parts)
    for base, tail in bases:
        found = _loaded(base, tail, imported.names, exists)
        if found:
            return Resolved(tuple(found))
    if imported.level:
        return Resolved(external=f"{'.' * imported.level}{imported.module}")
    return Resolved(external=parts[0] if parts else None)


def _absolute_bases(folder: str, parts: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    """Where an absolute import is looked for (a folder, and the module path under it), in order."""
    bases = [(base, parts) for base in dict.fromkeys((folder, ""))]
    if parts[: len(_TASKS_PACKAGE)] == _TASKS_PACKAGE and len(parts) > len(_TASKS_PACKAGE):
        tail = parts[len(_TASKS_PACKAGE) :]
        for start in range(len(tail) + 1):  # to none of it: ``from lm_eval.tasks.fam import mod``
            bases.extend((above, tail[start:]) for above in _folders_up(folder))
    return bases


def _folders_up(folder: str) -> list[str]:
    """``folder`` and each folder above it, nearest first, the root ("") last."""
    found = []
    while folder:
        found.append(folder)
        folder = posixpath.dirname(folder)
    return [*found, ""]


def _loaded(base: str, parts: tuple[str, ...], names: tuple[str, ...], exists: Callable[[str], bool]) -> list[str]:
    """The files importing ``parts`` (and its submodules among ``names``) from ``base`` loads: the
    module, each submodule found, and every package ``__init__.py`` on the way; [] when none is there."""
    found: list[str] = []
    module = _module_file(base, parts, exists) if parts else _package_init(base, exists)
    if module is not None:
        found.append(module)
    for name in names:
        sub = _module_file(base, (*parts, name), exists)
        if sub is not None:
            found.append(sub)
    if not found:
        return []
    for depth in range(1, len(parts) + 1):
        package = posixpath.join(base, *parts[:depth], "__init__.py")
        if exists(package):
            found.append(package)
    return list(dict.fromkeys(found))


def _package_init(base: str, exists: Callable[[str], bool]) -> str | None:
    """``from . import name`` where ``name`` is no submodule: it is a name of the package's ``__init__.py``."""
    init = posixpath.join(base, "__init__.py")
    return init if exists(init) else None


def _module_file(base: str, parts: tuple[str, ...], exists: Callable[[str], bool]) -> str | None:
    path = posixpath.join(base, *parts)
    for candidate in (path + PYTHON_SUFFIX, posixpath.join(path, "__init__.py")):
        if exists(candidate):
            return candidate
    return None
