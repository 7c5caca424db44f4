"""The hostile-input corpus: every case is data, generated here, materialised in a temp folder.

Kinds:
* ``yaml``: malformed or malicious YAML placed as one fixture of a valid drafts folder;
* ``file``: odd file-system objects where the drafts should be;
* ``config``: mistakes in freezer.yaml and in what it points at;
* ``schema``: mutations of every example fixture (fields removed, wrong types, empty and
  oversized values, boundary numbers), generated from the fixtures themselves.

Each case says which command to run and which file the one clear message must name.
"""

from __future__ import annotations

import codecs
import functools
import os
import random
import shutil
import socket
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BAD = "drafts/graph/fixtures/zz-hostile.yaml"
CONFIG = "freezer.yaml"
GLOBS = "tool_surface: ['.orbitignore', 'crates/orbit-graph/src/tools/**']"


@dataclass
class Case:
    id: str
    kind: str
    build: Callable[[Path], None]
    names: str  # the file the message must name, relative to the registry root
    command: list[str] = field(default_factory=lambda: ["validate"])
    as_nobody: bool = False


def base_registry(root: Path, code_repo: Path, drafts: str = "v1") -> None:
    """A valid registry: the v1 example drafts and a config pointing at the sample repository."""
    shutil.copytree(EXAMPLES / "graph" / drafts, root / "drafts" / "graph")
    (root / CONFIG).write_text(
        "freezer: 1\nsuites:\n  graph:\n    drafts: drafts/graph\n    versions: versions\n"
        f"    code_repo: {code_repo}\n    tool_surface: ['.orbitignore', 'crates/orbit-graph/src/tools/**']\n",
        encoding="utf-8",
    )


# A case's file content, or how to make it: the large ones are made when their case runs, not at
# import, which every test worker pays at collection even when the hostile campaign is deselected.
Data = bytes | Callable[[], bytes]


def _write(rel: str, data: Data) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data() if callable(data) else data)

    return build


def _bomb(levels: int, mapping: bool = False) -> bytes:
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for index in range(1, levels):
        prev, name = chr(96 + index), chr(97 + index)
        refs = ",".join(f"k{n}: *{prev}" for n in range(9)) if mapping else ",".join(["*" + prev] * 9)
        lines.append(f"{name}: &{name} {'{' if mapping else '['}{refs}{'}' if mapping else ']'}")
    return ("\n".join(lines) + "\n").encode()


YAML_TEXTS: dict[str, Data] = {
    "unclosed-flow": b"task_id: [unclosed\n",
    "unclosed-single-quote": b"task_id: 'unclosed\n",
    "unclosed-double-quote": b'task_id: "unclosed\n',
    "tab-indent": b"a:\n\t- tab\n",
    "bad-indent": b"a: 1\n b: 2\n",
    "duplicate-key": b"task_id: a\ntask_id: b\n",
    "nested-duplicate-key": b"oracle:\n  must_include: []\n  must_include: []\n",
    "multiple-documents": b"task_id: a\n---\ntask_id: b\n",
    "undefined-alias": b"task_id: *nothing\n",
    # Data that could act on a terminal or hide text: refused where it is written.
    "escape-in-value": b'task_id: "a\\e[2Jb"\n',
    "escape-in-key": b'"task_id\\e]0;owned\\a": x\n',
    "newline-key-forging-a-line": b'"x\\n  drafts/graph/fixtures/other.yaml:1:1: $: forged": 1\n',
    "bidi-override": b'question: "safe\\u202eexe.txt"\n',
    "c1-control": b'question: "a\\x9bb"\n',
    "carriage-return-heading": b'question: "a\\r# Forged heading"\n',
    "nan": b"task_id: x\nbudget: .nan\n",
    "infinity": b"task_id: x\ncost_usd: -.inf\n",
    "float-line": b"task_id: x\nclass: trace\nstatus: dropped\ndropped: {stage: drafting, reason: r}\n"
    b"ground_truth: [{file: a.rs, line: 268.0}]\n",
    "alias-bomb-lists": lambda: _bomb(10),
    "alias-bomb-maps": _bomb(8, mapping=True),
    "deep-flow": lambda: b"a: " + b"[" * 20000 + b"]" * 20000 + b"\n",
    "deep-block": b"- " * 3000 + b"x\n",
    "deep-flow-maps-70": b"a: " + b"{b: " * 70 + b"1" + b"}" * 70 + b"\n",
    "deep-block-maps": b"".join(b"  " * i + b"k:\n" for i in range(200)) + b"  " * 200 + b"v\n",
    "merge-key": b"<<: {task_id: x}\nclass: trace\n",
    "tag-python-object": b"task_id: !!python/object:os.system {}\n",
    "tag-python-apply": b"task_id: !!python/object/apply:os.system ['echo pwned']\n",
    "tag-python-name": b"task_id: !!python/name:os.system\n",
    "tag-python-module": b"task_id: !!python/module:os\n",
    "tag-python-tuple": b"task_id: !<tag:yaml.org,2002:python/tuple> [1, 2]\n",
    "tag-binary": b"task_id: !!binary aGVsbG8=\n",
    "tag-set": b"task_id: !!set {a, b}\n",
    "tag-omap": b"task_id: !!omap [a: 1]\n",
    "tag-pairs": b"task_id: !!pairs [a: 1]\n",
    "tag-custom": b"task_id: !custom value\n",
    "tag-custom-map": b"task_id: !custom {a: 1}\n",
    "tag-bad-float": b"line: !!float abc\n",
    "tag-bad-int": b"line: !!int 12x\n",
    "key-int": b"1: x\ntask_id: y\n",
    "key-bool": b"yes: x\ntask_id: y\n",
    "key-null": b"~: x\n",
    "key-float": b"1.5: x\n",
    "key-complex": b"? [a, b]\n: x\n",
    "key-alias-duplicate": b"&k task_id: v\n*k : w\n",
    "control-bell": b"task_id: \x07\n",
    "nul-byte": b"task_id: a\x00b\n",
    "nul-only": b"\x00",
    "escape-sequence": b"task_id: \x1b[31mred\n",
    "invalid-utf8": b"task_id: \xff\xfe\xfd\n",
    "overlong-utf8": b"task_id: \xc0\xaf\n",
    "surrogate-utf8": b"task_id: \xed\xa0\x80\n",
    "truncated-utf8": b"task_id: \xe2\x82\n",
    "utf16-no-bom": "task_id: x\nclass: y\n".encode("utf-16-le"),
    "utf16-bom-odd-length": codecs.BOM_UTF16_LE + "task_id: x\n".encode("utf-16-le") + b"\x00",
    "utf32-bom-garbage": codecs.BOM_UTF32_LE + b"\xff\xff\xff\xff",
    "bom-mid-file": b"task_id: a\n\xef\xbb\xbfclass: b\n",
    "latin1": "task_id: café\n".encode("latin-1"),
    "shift-jis": "task_id: 日本語\n".encode("shift_jis"),
    "empty-file": b"",
    "only-comment": b"# nothing here\n",
    "scalar-document": b"just a string\n",
    "list-document": b"- a\n- b\n",
    "null-document": b"~\n",
    "long-line": lambda: b"task_id: " + b"x" * 900_000 + b"\n",
    "many-items": lambda: b"a: [" + b"1," * 150_000 + b"1]\n",
    "yaml-directive": b"%YAML 2.0\n---\ntask_id: x\n",
    "tag-directive": b"%TAG ! tag:evil.example,2000:\n---\ntask_id: !x y\n",
    "cr-only-endings": b"task_id: x\rclass: trace\rstatus: landed\r",
    "document-end-garbage": b"task_id: x\n...\n]]]\n",
    "line-separator": "task_id: a\u2028b\n".encode(),
    "next-line-char": "task_id: a\x85b\n".encode(),
    "huge-key": b"k" * 20_000 + b": v\n",
    "reserved-at": b"task_id: @foo\n",
    "reserved-backtick": b"task_id: `x`\n",
    "empty-key": b": no key\n",
    "mixed-list-map": b"- a\nb: c\n",
    "block-scalar-bad-indent": b"task_id: |\n    x\n  y\n",
    "block-scalar-bad-header": b"task_id: >-2x\n  y\n",
    "huge-int": b"task_id: 99999999999999999999999999999999999999999999\n",
    "nan-line": b"task_id: x\nclass: locate\nstatus: dropped\ndropped: {stage: drafting, reason: .nan}\n",
    "bad-escape": b'task_id: "\\x"\n',
    "escaped-surrogate": b'task_id: "\\ud800"\n',
    "random-binary": lambda: bytes(random.Random(5).getrandbits(8) for _ in range(4096)),
    "anchor-cycle-attempt": b"a: &a [*a]\n",
    "flow-in-key": b"{a: 1}: b\n",
    "tab-in-flow": b"task_id: [a,\tb]\n",
}


def yaml_cases() -> Iterator[Case]:
    for name, data in YAML_TEXTS.items():
        yield Case(f"yaml-{name}", "yaml", _write(BAD, data), BAD)


def _symlink(target: str, link: str = BAD) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        path = root / link
        path.parent.mkdir(parents=True, exist_ok=True)
        source = Path(target) if target.startswith("/") else root / target
        path.symlink_to(source)

    return build


def bind_socket(path: Path) -> None:
    """A Unix socket at ``path``, left bound (a socket file where a fixture should be)."""
    sock = socket.socket(socket.AF_UNIX)
    previous = os.getcwd()
    os.chdir(path.parent)  # AF_UNIX paths are short; bind by relative name
    try:
        sock.bind(path.name)
    finally:
        os.chdir(previous)
        sock.close()


def _special(kind: str) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        path = root / BAD
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "socket":
            bind_socket(path)
        elif kind == "dir":
            path.mkdir()
            (path / "inner.yaml").write_text("task_id: inner\n")
        elif kind == "sparse":
            with open(path, "wb") as handle:
                handle.truncate(50 << 20)
        elif kind == "two-mib":
            path.write_bytes(b"task_id: x\n" + b"#" * (2 << 20) + b"\n")
        elif kind == "just-over-limit":
            path.write_bytes(b"task_id: x\nnotes: '" + b"y" * ((1 << 20) - 20) + b"'\n")
        elif kind == "unreadable":
            path.write_text("task_id: secret\n")
            path.chmod(0)

    return build


def _replace_version_yaml(kind: str) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        path = root / "drafts/graph/version.yaml"
        path.unlink()
        if kind == "dir":
            path.mkdir()
        elif kind == "fifo":
            os.mkfifo(path)
        elif kind == "symlink":
            path.symlink_to("/etc/hostname")

    return build


def _odd_name(name: bytes) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        folder = os.fsencode(root / "drafts/graph/fixtures")
        with open(os.path.join(folder, name), "wb") as handle:
            handle.write(b"task_id: [broken\n")

    return build


def _copy(source: str, target: str) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        shutil.copyfile(root / source, root / target)

    return build


def _empty_fixtures(root: Path) -> None:
    for path in (root / "drafts/graph/fixtures").iterdir():
        path.unlink()


def file_cases() -> Iterator[Case]:
    yield Case("file-symlink-outside", "file", _symlink("/etc/passwd"), BAD)
    yield Case("file-symlink-inside", "file", _symlink("drafts/graph/version.yaml"), BAD)
    yield Case("file-symlink-dangling", "file", _symlink("/nonexistent/x.yaml"), BAD)
    yield Case("file-symlink-dev-zero", "file", _symlink("/dev/zero"), BAD)
    yield Case(
        "file-symlinked-folder",
        "file",
        _symlink("/etc", "drafts/graph/fixtures/linked"),
        "drafts/graph/fixtures/linked",
    )
    for kind in ("fifo", "socket", "dir", "sparse", "two-mib", "just-over-limit"):
        names = "drafts/graph/fixtures/zz-hostile.yaml/inner.yaml" if kind == "dir" else BAD
        yield Case(f"file-{kind}", "file", _special(kind), names)
    yield Case("file-unreadable", "file", _special("unreadable"), BAD, as_nobody=True)
    for kind in ("dir", "fifo", "symlink", "missing"):
        yield Case(f"file-version-yaml-{kind}", "file", _replace_version_yaml(kind), "drafts/graph/version.yaml")
    yield Case("file-name-with-newline", "file", _odd_name(b"bad\nname.yaml"), "drafts/graph/fixtures/bad\\nname.yaml")
    yield Case("file-name-not-utf8", "file", _odd_name(b"bad-\xff.yaml"), "drafts/graph/fixtures/bad-\\xff.yaml")
    yield Case("file-name-like-option", "file", _odd_name(b"--help.yaml"), "drafts/graph/fixtures/--help.yaml")
    yield Case(
        "file-name-escape", "file", _odd_name(b"bad\x1b[2Jname.yaml"), "drafts/graph/fixtures/bad\\x1b[2Jname.yaml"
    )
    yield Case(
        "file-name-bidi", "file", _odd_name("bad\u202ename.yaml".encode()), "drafts/graph/fixtures/bad\\u202ename.yaml"
    )
    second = "drafts/graph/fixtures/version.yaml"
    for command in (["validate"], ["cut", "v1", "--dry-run"]):
        yield Case(
            f"file-second-version-yaml-{command[0]}",
            "file",
            _copy("drafts/graph/version.yaml", second),
            second,
            command,
        )
    yield Case(
        "file-empty-drafts", "file", _empty_fixtures, "drafts/graph/fixtures", ["validate", "drafts/graph/fixtures"]
    )


def _edit_config(old: str, new: str) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        path = root / CONFIG
        text = path.read_text(encoding="utf-8")
        assert old in text, old
        path.write_text(text.replace(old, new), encoding="utf-8")

    return build


def _config_then(first: Callable[[Path], None], then: Callable[[Path], None]) -> Callable[[Path], None]:
    def build(root: Path) -> None:
        first(root)
        then(root)

    return build


def _not_git(root: Path) -> None:
    (root / "plain").mkdir()
    (root / "plain" / "file.txt").write_text("not a repository\n")


def _empty_git(root: Path) -> None:
    import subprocess

    subprocess.run(["git", "init", "-q", str(root / "empty")], check=True)


def config_cases() -> Iterator[Case]:
    edits: dict[str, tuple[str, str]] = {
        "drafts-missing-folder": ("drafts: drafts/graph", "drafts: drafts/nowhere"),
        "drafts-outside": ("drafts: drafts/graph", "drafts: ../outside"),
        "drafts-absolute": ("drafts: drafts/graph", "drafts: /etc"),
        "versions-outside": ("versions: versions", "versions: ../../versions"),
        "template-outside": ("versions: versions", "versions: versions\n    template: ../evil.j2"),
        "template-missing": ("versions: versions", "versions: versions\n    template: nothing.j2"),
        "unknown-field": ("versions: versions", "versions: versions\n    drafs: x"),
        "wrong-type-globs": ("tool_surface: ['.orbitignore', 'crates/orbit-graph/src/tools/**']", "tool_surface: 7"),
        "empty-globs": ("tool_surface: ['.orbitignore', 'crates/orbit-graph/src/tools/**']", "tool_surface: []"),
        "globs-match-nothing": (
            "tool_surface: ['.orbitignore', 'crates/orbit-graph/src/tools/**']",
            "tool_surface: ['nothing/**', 'no-such-file']",
        ),
        "format-version-2": ("freezer: 1", "freezer: 2"),
        "suite-name-invalid": ("  graph:", "  Graph Suite:"),
        "no-suites": ("suites:\n  graph:", "suites: {}\n  graph:"),
        "duplicate-suite-key": ("freezer: 1\n", "freezer: 1\nfreezer: 1\n"),
        "code-repo-missing": ("code_repo: ", "code_repo: /nonexistent/repo #"),
        "code-repo-is-file": ("code_repo: ", "code_repo: freezer.yaml #"),
        # Where a cut would write: never the root, the drafts, git's or freezer's own folders.
        "versions-root": ("versions: versions", "versions: '.'"),
        "versions-dot-slash": ("versions: versions", "versions: './'"),
        "versions-in-drafts": ("versions: versions", "versions: drafts/graph/frozen"),
        "versions-in-dot-git": ("versions: versions", "versions: .git/versions"),
        "versions-in-work-folder": ("versions: versions", "versions: .freezer/v"),
        "drafts-root": ("drafts: drafts/graph", "drafts: '.'"),
        "glob-reversed-range": (GLOBS, "tool_surface: ['crates/[z-a]/**']"),
        "glob-bare-bang": (GLOBS, "tool_surface: ['[!]']"),
        "glob-unclosed": (GLOBS, "tool_surface: ['crates/[abc']"),
        "glob-empty": (GLOBS, "tool_surface: ['']"),
        "config-escape-in-key": ("  graph:", '  graph:\n    "x\\e[2J\\nfreezer.yaml:1:1: forged": 1'),
    }
    # validate works offline: it checks the config and the drafts, not the code repository.
    needs_code = ("globs-match-nothing", "code-repo-missing", "code-repo-is-file")
    for name, (old, new) in edits.items():
        commands = [["cut", "v1", "--dry-run"]] if name in needs_code else [["validate"], ["cut", "v1", "--dry-run"]]
        for command in commands:
            yield Case(f"config-{name}-{command[0]}", "config", _edit_config(old, new), CONFIG, command)
    yield Case(
        "config-code-repo-not-git",
        "config",
        _config_then(_not_git, _edit_config("code_repo: ", "code_repo: plain #")),
        CONFIG,
        ["cut", "v1", "--dry-run"],
    )
    yield Case(
        "config-code-repo-empty-git",
        "config",
        _config_then(_empty_git, _edit_config("code_repo: ", "code_repo: empty #")),
        CONFIG,
        ["cut", "v1", "--dry-run"],
    )
    yield Case("config-broken-yaml", "config", _write(CONFIG, b"suites: [\n"), CONFIG)
    yield Case("config-empty", "config", _write(CONFIG, b""), CONFIG)
    yield Case("config-python-tag", "config", _write(CONFIG, b"suites: !!python/object/apply:os.system [id]\n"), CONFIG)
    yield Case(
        "config-is-directory",
        "config",
        _config_then(lambda r: (r / CONFIG).unlink(), lambda r: (r / CONFIG).mkdir()),
        CONFIG,
    )
    yield Case(
        "config-suite-no-drafts",
        "config",
        _config_then(lambda r: shutil.rmtree(r / "drafts/graph"), lambda r: (r / "drafts/graph").mkdir()),
        "drafts/graph/version.yaml",
    )
    yield Case(
        "config-drafts-wrong-version",
        "config",
        _write("drafts/graph/version.yaml", (EXAMPLES / "graph/v2/version.yaml").read_bytes()),
        "drafts/graph/version.yaml",
        ["cut", "v1", "--dry-run"],
    )
    yield Case(
        "config-unknown-dimension",
        "config",
        _config_then(
            _write(
                "drafts/graph/version.yaml",
                (EXAMPLES / "graph/v1/version.yaml")
                .read_bytes()
                .replace(
                    b"tool_surface_commits: []", b"tool_surface_commits: [{sha: 56117f6c, dimension: vibes, effect: x}]"
                ),
            ),
            lambda r: None,
        ),
        "drafts/graph/version.yaml",
    )


_WRONG: dict[type, list[Any]] = {
    str: [123, ["x"], {"k": "v"}],
    int: ["12", [1], {"k": 1}],
    float: ["1.5", [1.5], {"k": 1.5}],
    list: ["text", 5, {"k": 1}],
    dict: ["text", 5, [1]],
    type(None): ["text", [1]],
}


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:2]):
            yield from _leaves(item, (*path, index))


def _set(data: Any, path: tuple[Any, ...], value: Any) -> Any:
    import copy

    out = copy.deepcopy(data)
    target = out
    for part in path[:-1]:
        target = target[part]
    if value is _REMOVE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


_REMOVE = object()
_REQUIRED = {
    "task_id",
    "class",
    "status",
    "difficulty",
    "question",
    "naive_grep",
    "why_grep_fails",
    "graph_tool_path",
    "ground_truth",
    "oracle",
    "gate_b",
    "dropped",
    "pattern",
    "paths",
    "tools",
    "resolution",
    "file",
    "must_include",
    "must_not_include",
    "expected_matches",
    "expected_files",
    "provider",
    "model",
    "seed",
    "verdict",
    "stage",
    "reason",
    "start",
    "end",
}


def schema_mutations(fixture: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """Invalid variants of one valid fixture: by construction, none of these may pass."""
    for path, value in _leaves(fixture):
        if not path:
            continue
        where = ".".join(str(p) for p in path)
        for index, wrong in enumerate(_WRONG.get(type(value), [])):
            if isinstance(value, bool):
                continue
            if path[-1] in ("budget", "cost_usd") and wrong is None:
                continue
            yield f"{where}:wrong-type-{index}", _set(fixture, path, wrong)
        if isinstance(path[-1], str) and path[-1] in _REQUIRED:
            yield f"{where}:removed", _set(fixture, path, _REMOVE)
        if isinstance(value, str) and value:
            yield f"{where}:empty-string", _set(fixture, path, "")
            yield f"{where}:oversized-string", _set(fixture, path, "x" * 60_000)
        if isinstance(value, list) and path[-1] in ("paths", "tools", "ground_truth", "lines"):
            yield f"{where}:empty-list", _set(fixture, path, [])
        if (
            isinstance(value, int)
            and not isinstance(value, bool)
            and path[-1] in ("line", "seed", "expected_matches", "start")
        ):
            yield f"{where}:negative", _set(fixture, path, -1)
            yield f"{where}:huge", _set(fixture, path, 10**15)
            yield f"{where}:float", _set(fixture, path, 1.5)


def _mutated_fixtures(per_version: int | None) -> Iterator[tuple[str, str, dict[str, Any]]]:
    files = sorted(EXAMPLES.glob("graph/*/fixtures/*.yaml"))
    if per_version is not None:
        versions = sorted({path.parent.parent for path in files})
        files = [path for version in versions for path in sorted(version.glob("fixtures/*.yaml"))[:per_version]]
    for fixture_file in files:
        data = yaml.safe_load(fixture_file.read_text(encoding="utf-8"))
        for name, mutated in schema_mutations(data):
            yield f"{fixture_file.parent.parent.name}/{fixture_file.stem}:{name}", fixture_file.name, mutated


def schema_cases(per_version: int | None = None) -> Iterator[tuple[str, str, bytes]]:
    """(case id, fixture file name, YAML bytes) for every mutation of every example fixture, or of the
    first ``per_version`` fixtures of each example version (a smaller budget: every mutation kind still).

    Dumped through libyaml when PyYAML has it: the same bytes as the pure-Python dumper for every case
    here, made 25 times faster (about 2 s instead of a minute)."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    for case_id, file_name, mutated in _mutated_fixtures(per_version):
        yield case_id, file_name, yaml.dump(mutated, Dumper=dumper, sort_keys=False, allow_unicode=True).encode("utf-8")


@functools.cache
def schema_documents(per_version: int | None = None) -> tuple[tuple[str, Any], ...]:
    """(case id, data) for :func:`schema_cases`: each mutation as it reads back from YAML, made once per
    test process (two differential tests read them) and through libyaml when PyYAML has it."""
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return tuple(
        (case_id, yaml.load(yaml.dump(mutated, Dumper=dumper, sort_keys=False, allow_unicode=True), Loader=loader))
        for case_id, _, mutated in _mutated_fixtures(per_version)
    )


def subprocess_cases() -> list[Case]:
    return [*yaml_cases(), *file_cases(), *config_cases()]


def make_unreadable_dirs_traversable(root: Path) -> None:
    for path in [root, *root.parents]:
        if str(path) in ("/", "/tmp"):
            break
        path.chmod(path.stat().st_mode | stat.S_IXOTH | stat.S_IROTH)
