"""Hostile results files for ``freezer results check`` (issue 23, class 9), as data.

Small cases are files in ``results_files/``, listed with the exit code and
one line the output must hold in ``results_files/expected.tsv``. A row's
``manifest_sha256`` is written there as 64 ``@``, the same width as the real
hash, so columns in the expected lines are the columns in the file; the test
puts the registry's hash in. Cases too big, or not files at all (a FIFO, a
device, a link), are built by :func:`generated` below.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

FILES = Path(__file__).resolve().parent / "results_files"
PLACEHOLDER = b"@" * 64


@dataclass
class ResultsCase:
    id: str
    build: Callable[[Path, str], Path]  # (folder, manifest sha256) -> the path to check
    code: int
    expected: str  # a line of the output; {file} stands for the checked path


def _row(sha: str, score: str = "1", extra: str = "", run: str = '"m1"') -> str:
    return (
        f'{{"manifest_sha256": "{sha}", "task_id": "locate-loopaudit-variants", "arm": "grep-only", '
        f'"score": {score}, "run": {run}{extra}}}'
    )


def _from_file(name: str) -> Callable[[Path, str], Path]:
    def build(folder: Path, sha: str) -> Path:
        target = folder / name
        target.write_bytes((FILES / name).read_bytes().replace(PLACEHOLDER, sha.encode()))
        return target

    return build


def listed() -> list[ResultsCase]:
    cases = []
    for line in (FILES / "expected.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, code, expected = line.split("\t")
        cases.append(ResultsCase(name, _from_file(name), int(code), expected))
    return cases


def _text(name: str, make: Callable[[str], str | bytes]) -> Callable[[Path, str], Path]:
    def build(folder: Path, sha: str) -> Path:
        data = make(sha)
        target = folder / name
        target.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return target

    return build


def _fifo(folder: Path, sha: str) -> Path:
    target = folder / "fifo.jsonl"
    os.mkfifo(target)
    return target


def _link_to(where: str) -> Callable[[Path, str], Path]:
    def build(folder: Path, sha: str) -> Path:
        real = folder / "real.jsonl"
        real.write_text(_row(sha) + "\n")
        target = folder / "link.jsonl"
        target.symlink_to(real if where == "file" else where)
        return target

    return build


def _folder(folder: Path, sha: str) -> Path:
    target = folder / "runs"
    target.mkdir()
    return target


BIG = 10 << 20  # a 10 MB value
HALF_MIB = 1 << 19
KEY = 300_000
SIBLING = ', "x": [' + ",".join(["[0]"] * 100_000) + "]"  # 400 kB the walk must step over


def generated() -> list[ResultsCase]:
    return [
        ResultsCase(
            "ten-megabyte-score",
            _text("big.jsonl", lambda sha: _row(sha, '"' + "x" * BIG + '"') + "\n" + _row(sha, run='"m2"') + "\n"),
            1,
            "{file}:1:1: $: line is over the 1048576-byte limit for a result row",
        ),
        ResultsCase(
            "half-a-mebibyte-string-score",
            _text("half.jsonl", lambda sha: _row(sha, '"' + "x" * HALF_MIB + '"') + "\n"),
            1,
            "{file}:1:158: $.score: expected true, false or a number from 0 to 1, got string "
            "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...",
        ),
        ResultsCase(
            "half-a-mebibyte-line-that-is-a-string",
            _text("string.jsonl", lambda sha: '"' + "y" * HALF_MIB + '"\n'),
            1,
            "{file}:1:1: $: expected a JSON object (one result row per line), got string "
            "'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...",
        ),
        ResultsCase(
            "a-300-000-character-key-given-twice",
            _text("key.jsonl", lambda sha: _row(sha, extra=f', "{"k" * KEY}": 1, "{"k" * KEY}": 2') + "\n"),
            1,
            "{file}:1:300181: $: key 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk... is given twice "
            "(first at column 174): give it once",
        ),
        ResultsCase(
            "a-hundred-thousand-deep",
            _text("deep.jsonl", lambda sha: "[" * 100_000 + "]" * 100_000 + "\n" + _row(sha) + "\n"),
            1,
            "{file}:1:101: $: nested more than 100 levels deep",
        ),
        ResultsCase(
            "deep-objects-in-a-row",
            _text("objects.jsonl", lambda sha: _row(sha, extra=', "x": ' + '{"a": ' * 150 + "1" + "}" * 150) + "\n"),
            1,
            "{file}:1:773: $: nested more than 100 levels deep",
        ),
        ResultsCase(
            "a-duplicate-key-after-a-big-sibling",
            _text("sibling.jsonl", lambda sha: _row(sha, extra=SIBLING + ', "meta": {"seed": 1, "seed": 2}') + "\n"),
            1,
            "{file}:1:400202: $.meta.seed: key 'seed' is given twice (first at column 400191): give it once",
        ),
        ResultsCase(
            "nan-past-the-walk-budget-is-refused-at-column-one",
            _text("flat.jsonl", lambda sha: _row(sha, extra=', "x": [' + "0," * 200_000 + "NaN]") + "\n"),
            1,
            "{file}:1:1: $: NaN is not JSON (JSON has no NaN or infinity): write a number",
        ),
        ResultsCase(
            "an-over-long-line-does-not-hide-the-next",
            _text("long.jsonl", lambda sha: "z" * (3 << 20) + "\n" + _row(sha, "NaN") + "\n"),
            1,
            "{file}:2:158: $.score: NaN is not JSON (JSON has no NaN or infinity): write a number",
        ),
        ResultsCase(
            "a-thousand-empty-objects",
            _text("many.jsonl", lambda sha: "{}\n" * 1000),
            1,
            "  … and 3800 more problem(s), not shown",
        ),
        ResultsCase(
            "more-runs-than-the-limit",
            _text("runs.jsonl", lambda sha: "".join(_row(sha, run=f'"r{n}"') + "\n" for n in range(10_001))),
            1,
            "{file}:10001:168: $.run: more than 10000 runs in these files; check them in parts",
        ),
        ResultsCase(
            "a-fifo",
            _fifo,
            1,
            "{file}: $: is not a regular file (FIFO, socket or device); refusing to read it",
        ),
        ResultsCase(
            "dev-zero",
            lambda folder, sha: Path("/dev/zero"),
            1,
            "/dev/zero: $: is not a regular file (FIFO, socket or device); refusing to read it",
        ),
        ResultsCase(
            "a-link-to-a-file", _link_to("file"), 1, "{file}: $: is a symbolic link; name the file it points to"
        ),
        ResultsCase(
            "a-link-to-dev-zero", _link_to("/dev/zero"), 1, "{file}: $: is a symbolic link; name the file it points to"
        ),
        ResultsCase(
            "a-missing-file",
            lambda folder, sha: folder / "missing.jsonl",
            2,
            "freezer: error: {file}: file not found",
        ),
        ResultsCase("a-folder", _folder, 2, "freezer: error: {file}: is a folder"),
    ]


def cases() -> list[ResultsCase]:
    return listed() + generated()
