"""Hostile results files for ``freezer results add`` (issue 37), as data.

The corpus of ``results check`` (tests/hostile/results_cases.py: size, NaN, infinity, duplicate
keys, deep nesting, bytes that are not UTF-8, a FIFO, a device, links...) reaches ``add`` through
the harness files it reads: each case's first row line is spliced, byte for byte, into an lm-eval
results JSON as the task's metrics (``results.<task>``) and into a Harbor trial's
``verifier_result.rewards``, both scored by ``--metric score``. A case that is not a file (a FIFO,
``/dev/zero``, a link, a folder, a missing path) is handed to ``add`` as it is. Then the cases only
an import has: links leading out of the registry (the results path, ``results/``, a version's
folder, a stored file), and Inspect ``.eval`` archives with zip bombs, forged sizes, duplicate or
traversing member names (``../../x``, an absolute path).

Each case names the exit code ``add`` must end with and, when refused, a fragment of its one problem.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import warnings
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from hostile import evalzip, results_cases

BBH = "bbh_slice_boolean_logic"  # a landed task of the demo's bbh_v2
TB = "count-words"  # a landed task of the demo's tb_v1
SWE = "toyshop__cart-101"  # a landed record of the demo's swe_v1
CORPUS_SHA = "a" * 64  # the corpus's manifest_sha256: add never reads a row's own
OUTSIDE_NAME = "escaped"  # what a traversing archive member is called, relative to any folder

Build = Callable[[Path, Path], Path]  # (input folder, outside folder) -> the path handed to add
Prepare = Callable[[Path, Path], None]  # (registry, outside folder): made hostile before add runs


@dataclass
class AddCase:
    id: str
    harness: str  # lm-eval, harbor or inspect
    version: str
    build: Build
    code: int  # the exit code add must end with
    expected: str = ""  # a fragment of the one problem's line (refused), or of the output (usage)
    prepare: Prepare | None = None
    inspect: bool = False  # needs inspect_ai (to write the log, and to read it)
    slow: bool = False

    @property
    def metric(self) -> str | None:
        return "score" if self.harness in ("lm-eval", "harbor") else None


# -- the results check corpus, spliced into the harnesses' files ------------------------------------

# What add answers where results check refuses: only the row's score is read (as --metric score),
# so what check holds against a row's other fields (its manifest, arm, run name, task id) is an
# unread metric here, and the row's shape (one object a line) is one JSON document's. Each entry: why.
ACCEPTED = {
    "arm-with-a-final-newline": "the arm is an unread metric",
    "bidi-override-in-run": "the run name is an unread metric",
    "blank-lines-between-rows": "its first row is valid",
    "byte-order-mark-on-line-two": "its first row is valid",
    "boolean-scores": "true is a score (1), as check counts it",
    "crlf-line-ends": "a CR before the end of the row is JSON white space",
    "empty-run": "the run name is an unread metric",
    "escape-character-in-run": "an escaped ESC in an unread metric",
    "line-separators-inside-a-string": "U+2028 in a string is JSON",
    "manifest-with-a-final-newline": "the manifest is an unread metric",
    "missing-fields": "a score is all add reads",
    "negative-zero-score": "-0.0 is a score",
    "no-final-newline": "its first row is valid",
    "surrogate-pair-in-run-is-fine": "a surrogate pair is a character",
    "task-id-too-long": "the row's task_id is an unread metric: the task is the results key",
    "tiny-exponent-score": "a tiny number is a score",
    "unknown-arm": "the arm is an unread metric",
    "unknown-version": "the manifest is an unread metric",
    "unlanded-fixture": "the row's task_id is an unread metric: the task is the results key",
    "more-runs-than-the-limit": "its first row is valid",
}
# One level deeper than in a row (the metrics object sits in results, in the document).
REFUSED_HERE = {"nested-100-deep-is-fine": "nested more than 100 levels deep"}


def _first_line(data: bytes) -> bytes:
    return data.split(b"\n", 1)[0]


def _lmeval_around(metrics: bytes) -> bytes:
    """lm-eval's results JSON (0.4.8's shape) for BBH whose ``results.<task>`` is ``metrics`` as given."""
    config = {"task": BBH, "dataset_path": "freezer-examples/bbh-slice", "test_split": "test",
              "output_type": "generate_until", "num_fewshot": 0}  # fmt: skip
    rest = {
        "configs": {BBH: config},
        "versions": {BBH: 1.0},
        "n-shot": {BBH: 0},
        "n-samples": {BBH: {"original": 20, "effective": 20}},
        "config": {"model": "hf", "model_args": "pretrained=EleutherAI/pythia-160m", "limit": None},
        "model_name": "EleutherAI/pythia-160m",
    }
    tail = json.dumps(rest, indent=2)[1:].encode()
    return b'{\n  "results": {\n    "' + BBH.encode() + b'": ' + metrics + b"\n  },\n" + tail.lstrip(b"\n") + b"\n"


def _harbor_around(rewards: bytes) -> bytes:
    """A Harbor trial's result.json for TB whose ``verifier_result.rewards`` is ``rewards`` as given."""
    head = {
        "task_name": TB,
        "trial_name": f"{TB}__1",
        "task_id": {"path": f"tasks/{TB}"},
        "task_checksum": "a" * 64,
        "agent_info": {"name": "terminus-2", "version": "2.0.0", "model_info": {"name": "gpt-5", "provider": "openai"}},
    }
    text = json.dumps(head, indent=4)[:-2].encode()
    return text + b',\n    "verifier_result": {"rewards": ' + rewards + b'},\n    "exception_info": null\n}\n'


def _spliced(case: results_cases.ResultsCase, harness: str) -> Build:
    def build(folder: Path, outside: Path) -> Path:
        corpus = folder / "corpus"
        corpus.mkdir()
        path = case.build(corpus, CORPUS_SHA)
        if not path.is_relative_to(corpus) or path.is_symlink() or not path.is_file():
            return path  # a FIFO, a device, a link, a folder, a missing path: handed to add as it is
        first = _first_line(path.read_bytes())
        if harness == "lm-eval":
            target = folder / "results.json"
            target.write_bytes(_lmeval_around(first))
        else:
            target = folder / "job" / f"{TB}__1" / "result.json"
            target.parent.mkdir(parents=True)
            target.write_bytes(_harbor_around(first))
        return target

    return build


def _corpus_code(name: str, case: results_cases.ResultsCase) -> int:
    if case.code == 2:
        return 2
    if name in REFUSED_HERE:
        return 1
    return 0 if name in ACCEPTED or case.code == 0 else 1


def corpus() -> list[AddCase]:
    out = []
    for case in results_cases.cases():
        name = case.id.removesuffix(".jsonl")
        for harness, version in (("lm-eval", "bbh_v2"), ("harbor", "tb_v1")):
            expected = REFUSED_HERE.get(name, "")
            out.append(AddCase(f"{harness}-{name}", harness, version, _spliced(case, harness),
                               _corpus_code(name, case), expected))  # fmt: skip
    return out


# -- links out of the registry --------------------------------------------------------------------


def _valid_lmeval(folder: Path) -> Path:
    path = folder / "results.json"
    path.write_bytes(_lmeval_around(b'{"alias": "x", "score": 0.5}'))
    return path


def _link_out(folder: Path, outside: Path) -> Path:
    """results.json is a link to a valid results file outside."""
    real = _valid_lmeval(outside)
    link = folder / "results.json"
    link.unlink(missing_ok=True)
    link.symlink_to(real)
    return link


def _folder_link_out(folder: Path, outside: Path) -> Path:
    """The file is real, a folder on its way a link outside: the user named a path through it, as a
    home folder reached through a link is named, so it is read (only the file itself must not be a
    link); what is stored is its bytes, never the link."""
    (outside / "runs").mkdir()
    _valid_lmeval(outside / "runs")
    (folder / "runs").symlink_to(outside / "runs")
    return folder / "runs" / "results.json"


def _results_is_a_link(root: Path, outside: Path) -> None:
    shutil.rmtree(root / "results")
    (outside / "store").mkdir()
    (root / "results").symlink_to(outside / "store")


def _version_folder_is_a_link(root: Path, outside: Path) -> None:
    shutil.rmtree(root / "results" / "bbh_v2")
    (outside / "store").mkdir()
    (root / "results" / "bbh_v2").symlink_to(outside / "store")


def _stored_file_name(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16] + ".jsonl"


def _version_folder_link_holding_the_run(root: Path, outside: Path) -> None:
    """results/bbh_v2 leads outside, to a folder where the very file add would store lies already,
    byte for byte (stored by add itself, then moved out): a run stored outside the registry is not
    stored, and add must not say it is."""
    from conftest import run_inprocess

    source = _valid_lmeval(outside)
    stored = run_inprocess("results", "add", "--from", "lm-eval", str(source), "--version", "bbh_v2",
                           "--metric", "score", cwd=root)  # fmt: skip
    assert stored.code == 0, stored.text
    source.unlink()
    shutil.move(root / "results" / "bbh_v2", outside / "store")
    (root / "results" / "bbh_v2").symlink_to(outside / "store")


def _stored_file_is_a_link(root: Path, outside: Path) -> None:
    """The file add would store is there already, as a link to a file outside."""
    source = _valid_lmeval(outside)
    name = _stored_file_name(source.read_bytes())
    source.unlink()
    (outside / "victim.jsonl").write_bytes(b"precious\n")
    (root / "results" / "bbh_v2" / name).symlink_to(outside / "victim.jsonl")


def links() -> list[AddCase]:
    def valid(folder: Path, outside: Path) -> Path:
        return _valid_lmeval(folder)

    return [
        AddCase("a-results-file-linking-outside", "lm-eval", "bbh_v2", _link_out, 1, "symbolic link"),
        AddCase("a-folder-on-the-way-linking-outside", "lm-eval", "bbh_v2", _folder_link_out, 0),
        AddCase("results-folder-is-a-link", "lm-eval", "bbh_v2", valid, 1, "link", _results_is_a_link),
        AddCase("a-version-folder-is-a-link", "lm-eval", "bbh_v2", valid, 1, "link", _version_folder_is_a_link),
        AddCase(
            "a-version-folder-link-holding-the-file",
            "lm-eval",
            "bbh_v2",
            valid,
            1,
            "link",
            _version_folder_link_holding_the_run,
        ),
        AddCase("a-stored-file-that-is-a-link", "lm-eval", "bbh_v2", valid, 1, "link", _stored_file_is_a_link),
    ]


# -- Inspect .eval archives -----------------------------------------------------------------------


def _log(folder: Path, suffix: str = ".eval") -> Path:
    from test_results_import import _inspect

    return _inspect(folder, {SWE: "C"}, suffix=suffix)


def _with_members(members: Callable[[Path], dict[str, bytes]]) -> Build:
    def build(folder: Path, outside: Path) -> Path:
        log = _log(folder)
        evalzip.rewrite(log, members(outside))
        return log

    return build


def _bomb(folder: Path, outside: Path) -> Path:
    log = _log(folder)
    evalzip.bomb(log, 64 << 20)  # 64 MiB of zeros, declared as 1000 bytes
    return log


def _declares_too_much(folder: Path, outside: Path) -> Path:
    from freezer.runtime.limits import MAX_INSPECT_MEMBER_BYTES

    log = _log(folder)
    evalzip.rewrite(log, {"big.bin": b"\0" * 1000})
    evalzip.lie_about_size(log, "big.bin", MAX_INSPECT_MEMBER_BYTES + 1)
    return log


def _duplicate_header(folder: Path, outside: Path) -> Path:
    """header.json given twice: the first says the run errored, the second (the one Python's zipfile,
    and so Inspect, takes) that it succeeded. Which one a reader takes is its own choice, so the
    archive says two things at once, as a JSON object that gives a key twice."""
    log = _log(folder)
    with zipfile.ZipFile(log) as archive:
        original = archive.read("header.json")
    header = json.loads(original)
    header["status"] = "error"
    evalzip.rewrite(log, {"header.json": json.dumps(header).encode()})
    with zipfile.ZipFile(log, "a") as archive, warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of the duplicate name it is asked to write
        archive.writestr("header.json", original)
    return log


def _nan_score(folder: Path, outside: Path) -> Path:
    from test_results_import import _inspect

    return _inspect(folder, {SWE: "NaN"}, suffix=".json")


def _deep_json_log(folder: Path, outside: Path) -> Path:
    log = _log(folder, ".json")
    text = log.read_bytes()
    log.write_bytes(text[:1] + b'"deep": ' + b"[" * 100_000 + b"]" * 100_000 + b"," + text[1:])
    return log


def archives() -> list[AddCase]:
    def traversal(outside: Path) -> dict[str, bytes]:
        return {
            f"../../{OUTSIDE_NAME}": b"x",
            f"../../../../../../../../..{outside}/{OUTSIDE_NAME}": b"x",
            f"{outside}/{OUTSIDE_NAME}-absolute": b"x",
            f"samples/../../{OUTSIDE_NAME}": b"x",
        }

    def case(name: str, build: Build, code: int, expected: str = "") -> AddCase:
        return AddCase(f"inspect-{name}", "inspect", "swe_v1", build, code, expected, inspect=True)

    return [
        case("eval-members-named-out-of-the-archive", _with_members(traversal), 0),
        case("eval-zip-bomb", _bomb, 1, "inflates past"),
        case("eval-member-declares-past-the-limit", _declares_too_much, 1, "declares"),
        case("eval-header-given-twice", _duplicate_header, 1, "given twice"),
        case("json-log-nan-score", _nan_score, 1, "no score"),
        case("json-log-a-hundred-thousand-deep", _deep_json_log, 1, "deep"),
    ]


def cases() -> list[AddCase]:
    return corpus() + links() + archives()
