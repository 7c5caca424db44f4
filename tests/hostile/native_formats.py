"""The hostile-input limits for the benchmark-native formats (issue 26).

One registry with three suites and no code under test: ``tb`` (kind folders, Harbor-like task
folders with a ``task.toml``), ``swe`` (kind records, JSON Lines, JSON arrays and YAML lists of
records keyed by ``instance_id``) and ``bbh`` (kind lm-eval, task YAML with ``include:`` and
``!function``). Each case changes one thing in it: a TOML task file, a records file, an odd entry
in a task folder, an include or a ``!function`` tag. Beside the registry lies a folder ``outside``
holding a secret: a case that points at it (a link, an include, a module) must be refused without
one byte of it read into a frozen version or an output.

Each case is data: how to build it, which suite it breaks, the exit status freezer must end with
(1, or 0 where the input is legitimately fine), and the file its one message must name.
"""

from __future__ import annotations

import os
import random
import shutil
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from hostile.corpus import bind_socket

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SECRET = "HOSTILE-SECRET-26"
OUTSIDE = "outside"  # a sibling of the registry root

TASK = "drafts/tb/tasks/count-words/"
TOML = TASK + "task.toml"
INSTANCES = "drafts/swe/instances/"
JSONL = INSTANCES + "instances.jsonl"
TASKS = "drafts/bbh/tasks/"
LM_TASK = TASKS + "arith-add.yaml"

CONFIG = """\
suites:
  tb:
    kind: folders
    drafts: drafts/tb
    fixtures: "tasks/*/"
    task_file: task.toml
    versions: versions
  swe:
    kind: records
    drafts: drafts/swe
    fixtures: "instances/*"
    task_id: instance_id
    versions: versions
  bbh:
    kind: lm-eval
    drafts: drafts/bbh
    fixtures: "tasks/*.yaml"
    versions: versions
"""

LM_TEMPLATE = b"dataset_path: freezer-tests/toy\noutput_type: generate_until\ntest_split: test\n"
LM_ADD = b"include: _template.yaml\ntask: arith-add\nprocess_docs: !function utils.process_docs\n"
LM_OR = b"task: logic-or\ndataset_path: freezer-tests/logic\noutput_type: multiple_choice\n"
LM_UTILS = b"def process_docs(dataset):\n    return dataset\n"
LM_VERSION = b"""\
suite: bbh
version: 1
title: Toy reasoning tasks
purpose: >-
  Measure whether a model can do small arithmetic and logic steps, graded by exact match.
"""

Build = Callable[[Path], None]
# A case's file content, or how to make it: the large ones (up to 17 MiB) are made when their case runs,
# not at import, which every test worker pays at collection even when the case is deselected.
Data = bytes | Callable[[], bytes]


@dataclass
class Case:
    id: str
    suite: str  # the suite the case breaks: the one cut and audited
    build: Build
    names: str = ""  # the file (a prefix of its displayed name) the one message names; "" when fine
    expect: int | None = 1  # 1: refused; 0: legitimately fine (cut and audit pass); None: either

    slow: bool = False
    as_nobody: bool = False  # run as user nobody (root reads every file)
    located: bool = False  # the message carries a line
    many: bool = False  # one problem at each place written (YAML anchors): several, all in the named file
    xfail: str | None = None  # a known bug in a file another helper owns: strict xfail


def base_registry(root: Path) -> None:
    """The valid registry every case starts from, and the ``outside`` folder beside it."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "freezer.yaml").write_text(CONFIG, encoding="utf-8")
    shutil.copytree(EXAMPLES / "tb" / "v1", root / "drafts" / "tb")
    shutil.copytree(EXAMPLES / "swe" / "v1", root / "drafts" / "swe")
    bbh = root / "drafts" / "bbh"
    (bbh / "tasks").mkdir(parents=True)
    (bbh / "version.yaml").write_bytes(LM_VERSION)
    for name, data in (
        ("_template.yaml", LM_TEMPLATE),
        ("arith-add.yaml", LM_ADD),
        ("logic-or.yaml", LM_OR),
        ("utils.py", LM_UTILS),
    ):
        (bbh / "tasks" / name).write_bytes(data)
    outside = root.parent / OUTSIDE
    outside.mkdir(exist_ok=True)
    (outside / "secret.yaml").write_text(f"task: stolen\nsecret: {SECRET}\n", encoding="utf-8")
    (outside / "secret.py").write_text(f"def f(d):\n    return '{SECRET}'\n", encoding="utf-8")
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    (outside / "task").mkdir(exist_ok=True)
    (outside / "task" / "task.toml").write_text(f'secret = "{SECRET}"\n', encoding="utf-8")


# -- builders ------------------------------------------------------------------------------------


def write(rel: str, data: Data) -> Build:
    def build(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data() if callable(data) else data)

    return build


def append(rel: str, data: bytes) -> Build:
    def build(root: Path) -> None:
        with open(root / rel, "ab") as handle:
            handle.write(data)

    return build


def link(rel: str, target: str) -> Build:
    """A symbolic link at ``rel`` to ``target``: absolute, ``@outside/...`` (the secret folder) or as written."""

    def build(root: Path) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if target.startswith("@"):
            path.symlink_to(root.parent / OUTSIDE / target[1:])
        else:
            path.symlink_to(target)

    return build


def both(*builds: Build) -> Build:
    def build(root: Path) -> None:
        for one in builds:
            one(root)

    return build


def _special(rel: str, kind: str) -> Build:
    def build(root: Path) -> None:
        path = root / rel
        if kind == "fifo":
            os.mkfifo(path)
        elif kind == "socket":
            bind_socket(path)
        elif kind == "device":
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is
        elif kind == "unreadable":
            path.write_bytes(b"echo hidden\n")
            path.chmod(0)

    return build


def _config_line(after: str, line: str) -> Build:
    def build(root: Path) -> None:
        config = root / "freezer.yaml"
        config.write_text(config.read_text(encoding="utf-8").replace(after, after + line, 1), encoding="utf-8")

    return build


def _hard_link(rel: str, target: str) -> Build:
    def build(root: Path) -> None:
        os.link(root / target, root / rel)

    return build


def _many_files(folder: str, count: int) -> Build:
    def build(root: Path) -> None:
        path = root / folder
        path.mkdir(parents=True)
        for index in range(count):
            (path / f"f{index:05d}.txt").write_bytes(b"%d\n" % index)

    return build


def _deep_folders(folder: str, depth: int) -> Build:
    def build(root: Path) -> None:
        path = root / folder / "/".join(["d"] * depth)
        path.mkdir(parents=True)
        (path / "leaf.txt").write_bytes(b"deep\n")

    return build


def _odd_name(folder: str, name: bytes, data: bytes = b"x\n", is_folder: bool = False) -> Build:
    def build(root: Path) -> None:
        path = os.path.join(os.fsencode(root / folder), name)
        if is_folder:
            os.mkdir(path)
            path = os.path.join(path, b"task.toml")
        with open(path, "wb") as handle:
            handle.write(data)

    return build


def _empty_dir(rel: str) -> Build:
    def build(root: Path) -> None:
        (root / rel).mkdir(parents=True)

    return build


def _move(rel: str, to: str) -> Build:
    def build(root: Path) -> None:
        shutil.move(root / rel, root / to)

    return build


def _task_folder_link(target: str) -> Build:
    """``tasks/linked`` as a link to a folder: a task folder that is itself a link."""
    return link("drafts/tb/tasks/linked", target)


# -- TOML task files ------------------------------------------------------------------------------

DEEP = 2000
TOML_TEXTS: dict[str, tuple[Data, int]] = {
    # (text, exit): a syntax error, a duplicate, a value freezer cannot record are refused at their line
    "syntax-no-value": (b"version = \n", 1),
    "syntax-unclosed-string": (b'version = "1.0\n', 1),
    "syntax-unclosed-header": (b"[metadata\nx = 1\n", 1),
    "syntax-no-key": (b"= 1\n", 1),
    "syntax-garbage": (b"version 1.0\n", 1),
    "syntax-unclosed-array": (b"tags = [1, 2\n", 1),
    "syntax-unclosed-multiline": (b'text = """\nnever closed\n', 1),
    "duplicate-key": (b'version = "1"\nversion = "2"\n', 1),
    "duplicate-table": (b"[metadata]\na = 1\n[metadata]\nb = 2\n", 1),
    "table-redefined-by-dotted-key": (b"[a]\nb.c = 1\n[a.b]\nd = 2\n", 1),
    "array-of-tables-then-table": (b"[[a]]\nx = 1\n[a]\ny = 2\n", 1),
    "deep-inline-arrays": (b"a = " + b"[" * DEEP + b"]" * DEEP + b"\n", 1),
    "deep-inline-tables": (b"a = " + b"{b = " * 200 + b"1" + b"}" * 200 + b"\n", 1),
    "deep-table-header": (b"[" + b".".join([b"a"] * 500) + b"]\nx = 1\n", 1),
    "deep-dotted-key": (b".".join([b"k"] * 500) + b" = 1\n", 1),
    "deep-array-of-tables": (b"[[" + b".".join([b"a"] * 300) + b"]]\nx = 1\n", 1),
    "huge-array": (lambda: b"a = [" + b"1," * 150_000 + b"1]\n", 1),
    "many-keys": (lambda: b"".join(b"k%d = 1\n" % i for i in range(120_000)), 1),
    "escape-control": (b'version = "a\\u001b[2Jb"\n', 1),
    "escape-nul": (b'version = "a\\u0000b"\n', 1),
    "raw-control": (b'version = "a\x07b"\n', 1),
    "raw-escape-in-comment": (b"# \x1b[2J\nversion = 1\n", 1),
    "bidi-override": ('version = "safe\u202etxt.exe"\n'.encode(), 1),
    "control-in-key": (b'"a\\u001bb" = 1\n', 1),
    "c1-control": (b'version = "a\\u009bb"\n', 1),
    "line-separator": ('version = "a\u2028b"\n'.encode(), 1),
    "nan": (b"x = nan\n", 1),
    "negative-nan": (b"x = -nan\n", 1),
    "inf": (b"x = inf\n", 1),
    "negative-inf": (b"[a]\nx = -inf\n", 1),
    "nan-in-array": (b"x = [1.0, nan]\n", 1),
    "int-over-64-bits": (b"x = 9223372036854775808\n", 1),
    "int-under-64-bits": (b"x = -9223372036854775809\n", 1),
    "hex-over-64-bits": (b"x = 0xffffffffffffffffff\n", 1),
    "int-5000-digits": (b"x = " + b"9" * 5000 + b"\n", 1),
    "invalid-utf8": (b'version = "\xff\xfe"\n', 1),
    "invalid-utf8-in-comment": (b"# \xc0\xaf\nversion = 1\n", 1),
    "truncated-utf8": (b'version = "\xe2\x82"\n', 1),
    "utf16": ('version = "1"\n'.encode("utf-16"), 1),
    "bom": (b'\xef\xbb\xbfversion = "1.0"\n', 1),
    "nul-byte": (b'version = "1"\x00\n', 1),
    "lone-cr": (b'version = "1"\rx = 2\n', 1),
    "random-binary": (lambda: bytes(random.Random(26).getrandbits(8) for _ in range(4096)), 1),
    "reserved-files-field": (b'files = ["tests/test.sh"]\n', 1),
    "task-id-disagrees": (b'task_id = "another-task"\n', 1),
    # legitimately fine: CRLF, dates and times (kept as text), an empty task file, comments only
    "crlf": (b'version = "1.0"\r\n\r\n[metadata]\r\ndifficulty = "easy"\r\n', 0),
    "datetime-values": (
        b"offset = 1979-05-27T07:32:00Z\nlocal = 1979-05-27T07:32:00\nday = 1979-05-27\nclock = 07:32:00\n"
        b"frac = 1979-05-27T00:32:00.999999-07:00\n",
        0,
    ),
    "empty-file": (b"", 0),
    "only-comments": (b"# nothing but a comment\n", 0),
    "int-64-bit-edges": (b"lo = -9223372036854775808\nhi = 9223372036854775807\n", 0),
    "unicode-text": ('name = "café ü 日本語"\n'.encode(), 0),
    "quoted-keys-with-dots": (b"\"a.b\" = 1\n['x.y']\nz = 2\n", 0),
}

_TOML_SLOW = {"huge-array", "many-keys", "deep-inline-arrays", "int-5000-digits"}


def toml_cases() -> Iterator[Case]:
    for name, (data, code) in TOML_TEXTS.items():
        yield Case(f"toml-{name}", "tb", write(TOML, data), TOML if code else "", code, slow=name in _TOML_SLOW)
    yield Case("toml-over-size", "tb", write(TOML, b"# " + b"x" * (1 << 20) + b"\n"), TOML, slow=True)
    yield Case("toml-is-a-folder", "tb", both(_move(TOML, TASK + "old.toml"), write(TOML + "/x", b"")), TASK[:-1])
    yield Case("toml-missing", "tb", _move(TOML, TASK + "task.yaml.bak"), TASK[:-1])
    yield Case("toml-is-a-link", "tb", both(_move(TOML, TASK + "real.toml"), link(TOML, "real.toml")), TOML)
    yield Case("toml-fifo", "tb", both(_move(TOML, TASK + "real.toml"), _special(TOML, "fifo")), TOML)


# -- records ---------------------------------------------------------------------------------------

GOOD = b'{"instance_id": "extra__one-1", "repo": "extra/one"}\n'
MB = 1 << 20


def _record(value: bytes) -> bytes:
    return b'{"instance_id": ' + value + b', "repo": "x/y"}\n'


RECORD_TEXTS: dict[str, tuple[str, Data, int | None]] = {
    # (file name under instances/, bytes, exit)
    "truncated-last-line": ("more.jsonl", GOOD + b'{"instance_id": "extra__two-2", "repo": ', 1),
    "no-final-newline": ("more.jsonl", GOOD.rstrip(b"\n"), 0),
    "blank-lines": ("more.jsonl", b"\n\n" + GOOD + b"\n   \n\t\n", 0),
    "crlf-lines": ("more.jsonl", GOOD.replace(b"\n", b"\r\n") * 1, 0),
    "nul-in-line": ("more.jsonl", b'{"instance_id": "extra__one-1", "repo": "a\x00b"}\n', 1),
    "nul-line": ("more.jsonl", GOOD + b"\x00\x00\x00\n", 1),
    # A record's text is the benchmark's, frozen byte for byte (SWE-bench problem statements hold CRLF
    # and pasted terminal colours): JSON escapes of control characters are kept, and shown escaped.
    "nul-escape": ("more.jsonl", b'{"instance_id": "extra__one-1", "repo": "a\\u0000b"}\n', 0),
    "escape-control-value": ("more.jsonl", b'{"instance_id": "extra__one-1", "repo": "\\u001b[2J"}\n', 0),
    "bidi-value": ("more.jsonl", '{"instance_id": "extra__one-1", "repo": "a\u202eb"}\n'.encode(), 0),
    "line-separator-value": ("more.jsonl", '{"instance_id": "extra__one-1", "repo": "a\u2028b"}\n'.encode(), 0),
    "array-record": ("more.jsonl", b'["instance_id", "x"]\n', 1),
    "string-record": ("more.jsonl", b'"extra__one-1"\n', 1),
    "number-record": ("more.jsonl", b"42\n", 1),
    "null-record": ("more.jsonl", b"null\n", 1),
    "bool-record": ("more.jsonl", b"true\n", 1),
    "id-missing": ("more.jsonl", b'{"repo": "x/y"}\n', 1),
    "id-null": ("more.jsonl", _record(b"null"), 1),
    "id-number": ("more.jsonl", _record(b"7"), None),
    "id-float": ("more.jsonl", _record(b"7.5"), 1),
    "id-bool": ("more.jsonl", _record(b"true"), 1),
    "id-list": ("more.jsonl", _record(b'["a"]'), 1),
    "id-object": ("more.jsonl", _record(b'{"a": 1}'), 1),
    "id-empty": ("more.jsonl", _record(b'""'), 1),
    "id-newline": ("more.jsonl", _record(b'"a\\nb"'), 1),
    # Path-like and integer ids: freezer's first rule refuses them, the benchmark-id rule (HumanEval/0,
    # MBPP's integers) keeps them as data; either way one clean outcome, nothing written outside.
    "id-slash": ("more.jsonl", _record(b'"a/b"'), None),
    "id-backslash": ("more.jsonl", _record(b'"a\\\\b"'), None),
    "id-dotdot": ("more.jsonl", _record(b'".."'), None),
    "id-dot": ("more.jsonl", _record(b'"."'), None),
    "id-parent-path": ("more.jsonl", _record(b'"../escape"'), None),
    "id-absolute": ("more.jsonl", _record(b'"/etc/passwd"'), None),
    "id-nul": ("more.jsonl", _record(b'"a\\u0000b"'), 1),
    "id-escape": ("more.jsonl", _record(b'"a\\u001b[2Jb"'), 1),
    "id-huge": ("more.jsonl", lambda: _record(b'"' + b"a" * 100_000 + b'"'), 1),
    "id-201-chars": ("more.jsonl", _record(b'"' + b"a" * 201 + b'"'), 1),
    "id-200-chars": ("more.jsonl", _record(b'"' + b"a" * 200 + b'"'), 0),
    # not JSON Lines at all: one problem a line, up to 20, then one for the rest
    "csv-named-jsonl": ("more.jsonl", b"instance_id,repo\n" + b"".join(b"r%d,x/y\n" % i for i in range(200)), 1),
    "duplicate-id-across-files": ("more.jsonl", b'{"instance_id": "toyshop__cart-101"}\n', 1),
    "duplicate-id-in-file": ("more.jsonl", GOOD + GOOD, 1),
    "duplicate-key": ("more.jsonl", b'{"instance_id": "extra__one-1", "instance_id": "extra__one-2"}\n', 1),
    "nan": ("more.jsonl", b'{"instance_id": "extra__one-1", "x": NaN}\n', 1),
    "infinity": ("more.jsonl", b'{"instance_id": "extra__one-1", "x": -Infinity}\n', 1),
    "lone-surrogate": ("more.jsonl", b'{"instance_id": "extra__one-1", "x": "\\ud800"}\n', 1),
    "huge-int": ("more.jsonl", b'{"instance_id": "extra__one-1", "x": ' + b"9" * 5000 + b"}\n", 1),
    "trailing-garbage": ("more.jsonl", GOOD.rstrip(b"\n") + b" x\n", 1),
    "two-objects-one-line": ("more.jsonl", GOOD.rstrip(b"\n") + GOOD, 1),
    "deep-nesting": (
        "more.jsonl",
        lambda: b'{"instance_id": "extra__one-1", "x": ' + b"[" * 50_000 + b"]" * 50_000 + b"}\n",
        1,
    ),
    "deep-nesting-101": ("more.jsonl", b'{"instance_id": "extra__one-1", "x": ' + b"[" * 101 + b"]" * 101 + b"}\n", 1),
    "invalid-utf8": ("more.jsonl", b'{"instance_id": "extra__one-1", "x": "\xff"}\n', 1),
    "overlong-utf8": ("more.jsonl", b'{"instance_id": "extra__one-1", "x": "\xc0\xaf"}\n', 1),
    "bom": ("more.jsonl", b"\xef\xbb\xbf" + GOOD, 1),
    "utf16": ("more.jsonl", GOOD.decode().encode("utf-16"), 1),
    "single-quotes": ("more.jsonl", b"{'instance_id': 'extra__one-1'}\n", 1),
    "comment-line": ("more.jsonl", b"// a comment\n" + GOOD, 1),
    "random-binary": ("more.jsonl", lambda: bytes(random.Random(27).getrandbits(8) for _ in range(4096)), 1),
    "zero-bytes": ("more.jsonl", b"", 0),
    "huge-line-2mb": ("more.jsonl", lambda: b'{"instance_id": "extra__one-1", "x": "' + b"y" * (2 * MB) + b'"}\n', 0),
    "line-10mb": ("more.jsonl", lambda: b'{"instance_id": "extra__one-1", "x": "' + b"y" * (10 * MB) + b'"}\n', 0),
    "line-17mb": ("more.jsonl", lambda: b'{"instance_id": "extra__one-1", "x": "' + b"y" * (17 * MB) + b'"}\n', 1),
    "line-10mb-no-newline-truncated": (
        "more.jsonl",
        lambda: b'{"instance_id": "extra__one-1", "x": "' + b"y" * (10 * MB),
        1,
    ),
    "many-records": ("more.jsonl", lambda: b"".join(b'{"instance_id": "r%d"}\n' % i for i in range(20_000)), 0),
    # JSON arrays
    "json-array": ("more.json", b'[{"instance_id": "extra__one-1"}, {"instance_id": "extra__two-2"}]', 0),
    "json-empty-array": ("more.json", b"[]", 0),
    "json-object-not-list": ("more.json", b'{"instance_id": "extra__one-1"}', 1),
    "json-scalar-in-list": ("more.json", b'[{"instance_id": "extra__one-1"}, 5]', 1),
    "json-truncated": ("more.json", b'[{"instance_id": "extra__one-1"}, {"instance_id": ', 1),
    "json-duplicate-key": ("more.json", b'[{"instance_id": "a-1", "instance_id": "a-2"}]', 1),
    "json-nan": ("more.json", b'[{"instance_id": "extra__one-1", "x": NaN}]', 1),
    "json-deep": ("more.json", lambda: b"[" * 50_000 + b"]" * 50_000, 1),
    "json-invalid-utf8": ("more.json", b'[{"instance_id": "\xff"}]', 1),
    "json-zero-bytes": ("more.json", b"", 1),
    "json-id-slash": ("more.json", b'[{"instance_id": "a/b"}]', None),
    "json-id-missing": ("more.json", b'[{"repo": "x"}]', 1),
    "json-duplicate-id-across-files": ("more.json", b'[{"instance_id": "toyshop__cart-101"}]', 1),
    # YAML lists
    "yaml-list": ("more.yaml", b"- instance_id: extra__one-1\n- instance_id: extra__two-2\n", 0),
    "yaml-mapping-not-list": ("more.yaml", b"instance_id: extra__one-1\n", 1),
    "yaml-scalar-record": ("more.yaml", b"- a\n", 1),
    "yaml-two-bad-records": ("more.yaml", b"- a\n- b\n", 1),
    "yaml-alias-bomb": (
        "more.yaml",
        b'- instance_id: x\n  a: &a ["l","l","l","l","l","l","l","l","l"]\n'
        + b"".join(
            b"  %s: &%s [%s]\n" % (bytes([97 + i]), bytes([97 + i]), b",".join([b"*" + bytes([96 + i])] * 9))
            for i in range(1, 10)
        ),
        1,
    ),
    "yaml-tag": ("more.yaml", b"- instance_id: !!python/object/apply:os.system ['echo pwned']\n", 1),
    "yaml-id-dotdot": ("more.yaml", b"- instance_id: '..'\n", None),
    "yaml-id-number": ("more.yaml", b"- instance_id: 12\n", None),
    "yaml-empty": ("more.yaml", b"", 1),
    "yaml-deep": ("more.yaml", b"- " * 3000 + b"x\n", 1),
    "other-suffix": ("more.csv", b"instance_id\nextra__one-1\n", 1),
}

_RECORD_SLOW = {"line-10mb", "line-17mb", "line-10mb-no-newline-truncated", "many-records", "huge-line-2mb"}
_RECORD_SLOW |= {"deep-nesting", "json-deep", "yaml-alias-bomb", "id-huge"}


def record_cases() -> Iterator[Case]:
    for name, (file, data, code) in RECORD_TEXTS.items():
        rel = INSTANCES + file
        located = code is not None and code == 1 and file.endswith(".jsonl") and name != "bom" and name != "utf16"
        yield Case(
            f"records-{name}",
            "swe",
            write(rel, data),
            rel if code != 0 else "",
            code,
            name in _RECORD_SLOW,
            located=located,
            many=name in ("yaml-alias-bomb", "yaml-two-bad-records", "csv-named-jsonl"),
        )
    yield Case("records-link-outside", "swe", link(INSTANCES + "more.jsonl", "@secret.txt"), INSTANCES + "more.jsonl")
    yield Case(
        "records-link-inside", "swe", link(INSTANCES + "more.jsonl", "instances.jsonl"), INSTANCES + "more.jsonl"
    )
    yield Case("records-fifo", "swe", _special(INSTANCES + "more.jsonl", "fifo"), INSTANCES + "more.jsonl")
    # A folder whose name the glob matches holds no records file: its files are assets.
    yield Case("records-folder-named-jsonl", "swe", write(INSTANCES + "more.jsonl/x", GOOD), "", 0)
    yield Case(
        "records-unreadable",
        "swe",
        _special(INSTANCES + "more.jsonl", "unreadable"),
        INSTANCES + "more.jsonl",
        as_nobody=True,
    )


# -- folder fixtures -------------------------------------------------------------------------------

_FOLDER_CASES: list[tuple[str, Build, str, int | None]] = [
    # (name, build, the file named, exit)
    ("link-to-file-inside", link(TASK + "tests/copy.sh", "test.sh"), TASK + "tests/copy.sh", 1),
    ("link-to-outside-drafts", link(TASK + "secret.txt", "@secret.txt"), TASK + "secret.txt", 1),
    ("link-to-etc-passwd", link(TASK + "passwd", "/etc/passwd"), TASK + "passwd", 1),
    ("link-dangling", link(TASK + "gone.md", "nowhere.md"), TASK + "gone.md", 1),
    ("link-loop", link(TASK + "loop", "loop"), TASK + "loop", 1),
    ("link-to-parent", link(TASK + "up", ".."), TASK + "up", 1),
    ("link-to-folder", link(TASK + "env2", "environment"), TASK + "env2", 1),
    ("link-to-outside-folder", link(TASK + "stolen", "@task"), TASK + "stolen", 1),
    ("link-to-root", link(TASK + "root", "/"), TASK + "root", 1),
    ("task-folder-is-link-inside", _task_folder_link("count-words"), "drafts/tb/tasks/linked", 1),
    ("task-folder-is-link-outside", _task_folder_link("@task"), "drafts/tb/tasks/linked", 1),
    (
        "tasks-folder-is-link",
        both(_move("drafts/tb/tasks", "drafts/tb/real"), link("drafts/tb/tasks", "real")),
        "drafts/tb/tasks",
        1,
    ),
    ("fifo", _special(TASK + "pipe", "fifo"), TASK + "pipe", 1),
    ("socket", _special(TASK + "sock", "socket"), TASK + "sock", 1),
    ("device", _special(TASK + "null", "device"), TASK + "null", 1),
    ("hard-link-inside", _hard_link(TASK + "again.md", TASK + "instruction.md"), "", 0),
    ("hard-link-across-tasks", _hard_link(TASK + "other.md", "drafts/tb/tasks/rotate-logs/instruction.md"), "", 0),
    ("name-with-newline", _odd_name(TASK, b"a\nb.md"), TASK, 1),
    ("name-with-escape", _odd_name(TASK, b"a\x1b[2Jb.md"), TASK, 1),
    ("name-non-utf8", _odd_name(TASK, b"caf\xe9.md"), TASK, 1),
    ("name-bidi", _odd_name(TASK, "a\u202eb.md".encode()), TASK, 1),
    (
        "task-folder-name-newline",
        _odd_name("drafts/tb/tasks", b"bad\nname", b"", is_folder=True),
        "drafts/tb/tasks/",
        1,
    ),
    ("task-folder-name-non-utf8", _odd_name("drafts/tb/tasks", b"bad\xff", b"", is_folder=True), "drafts/tb/tasks/", 1),
    (
        "task-folder-name-201-chars",  # over the task-id limit of 200 (freezer.domain.taskid)
        _odd_name("drafts/tb/tasks", b"t" * 201, b"", is_folder=True),
        "drafts/tb/tasks/",
        1,
    ),
    ("task-folder-name-dots", _odd_name("drafts/tb/tasks", b"..x", b"", is_folder=True), "drafts/tb/tasks/", None),
    ("empty-folder-in-task", _empty_dir(TASK + "empty"), "", 0),
    ("empty-task-folder", lambda root: (root / "drafts/tb/tasks/empty-task").mkdir(), "", 0),
    ("task-without-task-file", write("drafts/tb/tasks/no-toml/instruction.md", b"hi\n"), "drafts/tb/tasks/no-toml", 1),
    ("git-folder-in-task", write(TASK + ".git/HEAD", b"ref: refs/heads/main\n"), TASK + ".git", 1),
    ("reserved-name-at-top", write("drafts/tb/manifest.json", b"{}"), "drafts/tb/manifest.json", 1),
    ("second-version-yaml", write(TASK + "version.yaml", b"suite: tb\n"), "", 0),
    ("over-max-file-bytes", write(TASK + "big.bin", b"\0" * 1001), TASK + "big.bin", 1),
]

_FOLDER_SLOW: list[tuple[str, Build, str, int | None]] = [
    ("ten-thousand-files", _many_files(TASK + "many", 10_000), "", 0),
    ("depth-100", _deep_folders(TASK, 100), "", 0),
]


def folder_cases() -> Iterator[Case]:
    for name, build, names, code in _FOLDER_CASES:
        if name == "over-max-file-bytes":
            build = both(build, _config_line("    task_file: task.toml\n", "    max_file_bytes: 1000\n"))
        yield Case(f"folders-{name}", "tb", build, names, code)
    for name, build, names, code in _FOLDER_SLOW:
        yield Case(f"folders-{name}", "tb", build, names, code, slow=True)
    yield Case(
        "folders-unreadable-file",
        "tb",
        _special(TASK + "tests/hidden.sh", "unreadable"),
        TASK + "tests/hidden.sh",
        as_nobody=True,
    )


# -- lm-eval ---------------------------------------------------------------------------------------


def _lm(text: str) -> Build:
    """The task arith-add rewritten as ``text``."""
    return write(LM_TASK, text.encode())


def _chain(length: int) -> Build:
    """arith-add includes c1.yaml, which includes c2.yaml, ... up to c{length}.yaml."""

    def build(root: Path) -> None:
        folder = root / TASKS / "chain"
        folder.mkdir()
        for index in range(1, length + 1):
            nxt = f"include: c{index + 1}.yaml\n" if index < length else ""
            (folder / f"c{index}.yaml").write_text(f"{nxt}k{index}: {index}\n", encoding="utf-8")
        (root / LM_TASK).write_text("include: chain/c1.yaml\ntask: arith-add\n", encoding="utf-8")

    return build


def _fan_out(count: int) -> Build:
    def build(root: Path) -> None:
        folder = root / TASKS / "fan"
        folder.mkdir()
        for index in range(count):
            (folder / f"t{index}.yaml").write_text(f"k{index}: {index}\n", encoding="utf-8")
        names = ", ".join(f"fan/t{index}.yaml" for index in range(count))
        (root / LM_TASK).write_text(f"include: [{names}]\ntask: arith-add\n", encoding="utf-8")

    return build


def _lattice(levels: int) -> Build:
    """Each level's two files include both files of the next: 2**levels paths, a few dozen files."""

    def build(root: Path) -> None:
        folder = root / TASKS / "lat"
        folder.mkdir()
        for level in range(levels):
            for side in "ab":
                nxt = f"include: [l{level + 1}a.yaml, l{level + 1}b.yaml]\n" if level < levels - 1 else ""
                (folder / f"l{level}{side}.yaml").write_text(f"{nxt}k{level}{side}: 1\n", encoding="utf-8")
        (root / LM_TASK).write_text("include: [lat/l0a.yaml, lat/l0b.yaml]\ntask: arith-add\n", encoding="utf-8")

    return build


_BOMB = b'a: &a ["l","l","l","l","l","l","l","l","l"]\n' + b"".join(
    b"%s: &%s [%s]\n" % (bytes([97 + i]), bytes([97 + i]), b",".join([b"*" + bytes([96 + i])] * 9))
    for i in range(1, 10)
)

_LM_CASES: list[tuple[str, Build, str, int | None]] = [
    ("include-self", _lm("include: arith-add.yaml\ntask: arith-add\n"), LM_TASK, 1),
    (
        "include-cycle-two",
        both(write(TASKS + "_b.yaml", b"include: arith-add.yaml\nx: 1\n"), _lm("include: _b.yaml\ntask: arith-add\n")),
        TASKS,
        1,
    ),
    (
        "include-cycle-templates",
        both(
            write(TASKS + "_b.yaml", b"include: _c.yaml\nx: 1\n"),
            write(TASKS + "_c.yaml", b"include: _b.yaml\ny: 1\n"),
            _lm("include: _b.yaml\ntask: arith-add\n"),
        ),
        TASKS,
        1,
    ),
    ("include-chain-15", _chain(15), "", 0),
    ("include-chain-40", _chain(40), TASKS, 1),
    ("include-parent", _lm("include: ../../../outside/secret.yaml\ntask: arith-add\n"), LM_TASK, 1),
    ("include-parent-inside-drafts", _lm("include: ../version.yaml\ntask: arith-add\n"), LM_TASK, 1),
    ("include-absolute", _lm("include: /etc/passwd\ntask: arith-add\n"), LM_TASK, 1),
    (
        "include-absolute-outside",
        lambda root: _lm(f"include: {root.parent / OUTSIDE / 'secret.yaml'}\ntask: arith-add\n")(root),
        LM_TASK,
        1,
    ),
    (
        "include-symlink-outside",
        both(link(TASKS + "_evil.yaml", "@secret.yaml"), _lm("include: _evil.yaml\ntask: arith-add\n")),
        TASKS + "_evil.yaml",
        1,
    ),
    (
        "include-symlink-inside",
        both(link(TASKS + "_alias.yaml", "_template.yaml"), _lm("include: _alias.yaml\ntask: arith-add\n")),
        TASKS + "_alias.yaml",
        1,
    ),
    ("include-missing", _lm("include: _nothing.yaml\ntask: arith-add\n"), LM_TASK, 1),
    # utils.py reads as a YAML mapping ({'def process_docs(dataset)': 'return dataset'}), as lm-eval reads it
    ("include-python-file", _lm("include: utils.py\ntask: arith-add\n"), "", 0),
    (
        "include-python-not-yaml",
        both(
            write(TASKS + "other.py", b"import os\n\ndef f():\n    return [1,\n"),
            _lm("include: other.py\ntask: arith-add\n"),
        ),
        TASKS + "other.py",
        1,
    ),
    (
        "include-binary",
        both(write(TASKS + "blob.bin", bytes(range(256)) * 8), _lm("include: blob.bin\ntask: arith-add\n")),
        TASKS,
        1,
    ),
    (
        "include-list-file",
        both(write(TASKS + "_list.yaml", b"- a\n- b\n"), _lm("include: _list.yaml\ntask: arith-add\n")),
        TASKS,
        1,
    ),
    ("include-folder", _lm("include: chainless\ntask: arith-add\n"), LM_TASK, 1),
    ("include-number", _lm("include: 5\ntask: arith-add\n"), LM_TASK, 1),
    ("include-mapping", _lm("include: {a: b}\ntask: arith-add\n"), LM_TASK, 1),
    ("include-empty-name", _lm("include: ''\ntask: arith-add\n"), LM_TASK, 1),
    ("include-null", _lm("include:\ntask: arith-add\n"), LM_TASK, 1),
    (
        "include-fifo",
        both(_special(TASKS + "_pipe.yaml", "fifo"), _lm("include: _pipe.yaml\ntask: arith-add\n")),
        TASKS + "_pipe.yaml",
        1,
    ),
    ("include-device-path", _lm("include: /dev/zero\ntask: arith-add\n"), LM_TASK, 1),
    (
        "include-bomb",
        both(write(TASKS + "_bomb.yaml", _BOMB), _lm("include: _bomb.yaml\ntask: arith-add\n")),
        TASKS + "_bomb.yaml",
        2,
    ),
    (
        "include-python-tag",
        both(
            write(TASKS + "_tag.yaml", b"x: !!python/object/apply:os.system ['id']\n"),
            _lm("include: _tag.yaml\ntask: arith-add\n"),
        ),
        TASKS + "_tag.yaml",
        1,
    ),
    (
        "include-deep",
        both(
            write(TASKS + "_deep.yaml", b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n"),
            _lm("include: _deep.yaml\ntask: arith-add\n"),
        ),
        TASKS + "_deep.yaml",
        1,
    ),
    (
        "include-invalid-utf8",
        both(write(TASKS + "_bad.yaml", b"x: \xff\n"), _lm("include: _bad.yaml\ntask: arith-add\n")),
        TASKS + "_bad.yaml",
        1,
    ),
    ("function-parent", _lm("task: arith-add\nprocess_docs: !function ../x.f\n"), LM_TASK, 1),
    ("function-outside", _lm("task: arith-add\nprocess_docs: !function ../../../outside/secret.f\n"), LM_TASK, 1),
    ("function-absolute", _lm("task: arith-add\nprocess_docs: !function /etc/passwd.f\n"), LM_TASK, 1),
    ("function-os-system", _lm("task: arith-add\nprocess_docs: !function os.system\n"), LM_TASK, 1),
    ("function-dotted-missing", _lm("task: arith-add\nprocess_docs: !function a.b.c\n"), LM_TASK, 1),
    (
        "function-dotted-present",
        both(
            write(TASKS + "a/b.py", b"def c(d):\n    return d\n"),
            _lm("task: arith-add\nprocess_docs: !function a.b.c\n"),
        ),
        "",
        0,
    ),
    ("function-no-dot", _lm("task: arith-add\nprocess_docs: !function process_docs\n"), LM_TASK, 1),
    ("function-empty", _lm("task: arith-add\nprocess_docs: !function ''\n"), LM_TASK, 1),
    ("function-empty-plain", _lm("task: arith-add\nprocess_docs: !function\n"), LM_TASK, 1),
    ("function-empty-name", _lm("task: arith-add\nprocess_docs: !function utils.\n"), LM_TASK, 1),
    ("function-leading-dot", _lm("task: arith-add\nprocess_docs: !function .utils.f\n"), LM_TASK, 1),
    ("function-sequence", _lm("task: arith-add\nprocess_docs: !function [utils, f]\n"), LM_TASK, 1),
    ("function-mapping", _lm("task: arith-add\nprocess_docs: !function {utils: f}\n"), LM_TASK, 1),
    ("function-in-key", _lm("task: arith-add\n? !function utils.process_docs\n: 1\n"), LM_TASK, 1),
    (
        "function-module-link",
        both(link(TASKS + "evil.py", "@secret.py"), _lm("task: arith-add\nprocess_docs: !function evil.f\n")),
        TASKS + "evil.py",
        1,
    ),
    (
        "function-module-folder",
        both(write(TASKS + "pkg/x.txt", b""), _lm("task: arith-add\nprocess_docs: !function pkg.f\n")),
        LM_TASK,
        1,
    ),
    ("function-newline", _lm('task: arith-add\nprocess_docs: !function "utils.a\\nb"\n'), LM_TASK, 1),
    ("unknown-tag", _lm("task: arith-add\nx: !custom value\n"), LM_TASK, 1),
    ("python-tag", _lm("task: arith-add\nx: !!python/name:os.system\n"), LM_TASK, 1),
    ("task-name-slash", _lm("task: a/b\n"), LM_TASK, None),
    ("task-name-dotdot", _lm("task: '..'\n"), LM_TASK, None),
    ("task-name-newline", _lm('task: "a\\nb"\n'), LM_TASK, 1),
    ("task-name-empty", _lm("task: ''\n"), LM_TASK, 1),
    ("task-name-number", _lm("task: 5\n"), LM_TASK, None),
    ("task-name-201-chars", _lm(f"task: {'t' * 201}\n"), LM_TASK, 1),
    ("task-name-mapping", _lm("task: {a: b}\n"), LM_TASK, 1),
    ("task-duplicate", _lm("task: logic-or\n"), TASKS, 1),
]

# lm-eval faults the campaign found (each case now holds; keep the mapping for the next one found).
LM_BUGS: dict[str, str] = {}

_LM_SLOW: list[tuple[str, Build, str, int | None]] = [
    ("include-fan-out-300", _fan_out(300), LM_TASK, 1),
    ("include-fan-out-200", _fan_out(200), "", 0),
    ("include-lattice-30", _lattice(30), TASKS, 1),
]


def lmeval_cases() -> Iterator[Case]:
    for name, build, names, code in _LM_CASES:
        # 2: refused, with one problem at each anchor and alias (as in any YAML file freezer reads)
        yield Case(
            f"lmeval-{name}",
            "bbh",
            build,
            names,
            None if code is None else min(code, 1),
            many=code == 2,
            xfail=LM_BUGS.get(name),
        )
    for name, build, names, code in _LM_SLOW:
        yield Case(f"lmeval-{name}", "bbh", build, names, code, slow=True, xfail=LM_BUGS.get(name))


# The default lane (about 30 s on two shared CPUs): a few of each family; the rest is slow.
QUICK = {
    "toml-syntax-no-value",
    "toml-duplicate-table",
    "toml-deep-table-header",
    "toml-escape-control",
    "toml-nan",
    "toml-int-over-64-bits",
    "toml-bom",
    "toml-datetime-values",
    "toml-is-a-link",
    "records-truncated-last-line",
    "records-nul-in-line",
    "records-id-float",
    "records-id-empty",
    "records-duplicate-id-across-files",
    "records-utf16",
    "records-blank-lines",
    "records-id-201-chars",
    "records-csv-named-jsonl",
    "folders-link-to-outside-drafts",
    "folders-task-folder-is-link-outside",
    "folders-fifo",
    "folders-hard-link-inside",
    "folders-name-non-utf8",
    "lmeval-include-cycle-two",
    "lmeval-include-parent",
    "lmeval-function-absolute",
    "lmeval-function-sequence",
}


def all_cases() -> list[Case]:
    cases = [*toml_cases(), *record_cases(), *folder_cases(), *lmeval_cases()]
    for case in cases:
        case.slow = case.slow or case.id not in QUICK
    return cases
