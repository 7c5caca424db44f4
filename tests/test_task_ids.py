"""Issue 26, identity: the native kinds take a benchmark's own task ids, and every id becomes a file
name through one mapping (freezer.domain.taskid).

Real registries in tmp_path, real git: a folders suite whose folders are ``HelloWorld`` and
``Task One``, a records suite whose ids are ``HumanEval/0``, ``HumanEval/1``, the integers 1 and 2
and ``Café-ü``; every command a maintainer runs on them; and the ids that are still refused.
"""

from __future__ import annotations

import hashlib
import json
import string
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from hypothesis import given
from hypothesis import strategies as st

from freezer.domain import taskid
from freezer.domain.escape import visible
from freezer.domain.manifest import FixtureKindRecord
from freezer.git.gitrepo import DETERMINISTIC_ENV, run_git
from freezer.kinds.base import Files
from freezer.kinds.catalog import kind_of
from freezer.site import names

from conftest import assert_clean_failure, run_inprocess
from registry_helpers import commit_all

REAL_IDS = [
    "HumanEval/0",
    "HumanEval/163",
    "astropy__astropy-12907",
    "django__django-11099",
    "hello-world",
    "bbh_cot_fewshot_Boolean",
    "bbh_cot_fewshot_boolean_expressions",
    "Task One",
    "Café-ü",
    "日本語の問題",
    "MBPP/11",
    "x" * 200,
    "a:b",
    "100%",
    "<script>",
    "| pipe |",
    "`tick`",
    "../../index",
    "C:\\windows",
    "con",
]
REFUSED: list[Any] = [
    "a\nb",
    "a\x00b",
    "a\x1bb",
    "tab\there",
    "a\rb",
    "\u202eevil",
    "zero\u200bwidth",
    "line\u2028sep",
    "nb\u00a0sp",
    "",
    " ",
    "   ",
    " lead",
    "trail ",
    "two  spaces",
    "x" * 201,
    1.5,
    True,
    False,
    None,
    [1],
    {"a": 1},
    10**300,
]


# The rule.
def test_real_benchmark_ids_are_accepted_as_they_are() -> None:
    for value in REAL_IDS:
        assert taskid.accept(value) == value, value
    for number, text in ((1, "1"), (0, "0"), (11, "11"), (-3, "-3"), (10**199, "1" + "0" * 199)):
        assert taskid.accept(number) == text


def test_control_characters_spaces_lengths_and_other_types_are_refused_with_a_reason() -> None:
    for value in REFUSED:
        refused = taskid.accept(value)
        assert isinstance(refused, taskid.Refused), value
        assert len(refused.why) > 20, value
        assert "\n" not in refused.why and "\x1b" not in refused.why and "\x00" not in refused.why, value
    assert "201 characters" in _why("x" * 201)
    assert "U+000A" in _why("a\nb") and "U+001B" in _why("a\x1bb") and "U+0000" in _why("a\x00b")
    assert "only spaces" in _why("   ")
    assert "null" in _why(None) and "boolean" in _why(True) and "list" in _why([1]) and "mapping" in _why({})
    # A huge integer is refused without its digits ever being computed (Python refuses > 4,300 digits).
    assert "200 digits" in _why(10**5000) and "bits" in taskid.shown(10**5000)


def _why(value: Any) -> str:
    refused = taskid.accept(value)
    assert isinstance(refused, taskid.Refused), value
    return refused.why


# The mapping.
def test_ids_the_old_rule_accepted_keep_their_page_names() -> None:
    for name in ["hello-world", "callers-run-deterministic-containers", "task_1", "a.b", "0", "1", "graph_v2"]:
        assert taskid.safe_file_name(name) == name
        assert names.page_stem(name) == name  # a site page takes the one mapping every name from data takes


def test_the_mapping_is_stable() -> None:
    # Pinned: a site's addresses (and anyone's links to them) must not move between releases.
    assert taskid.safe_file_name("HumanEval/0") == "humaneval-0~de004141fa5f04d8"
    assert taskid.safe_file_name("HelloWorld") == "helloworld~872e4e50ce9990d8"
    assert taskid.safe_file_name("Café-ü") == "cafe-u~d899c7b71274ff29"


def test_ids_differing_only_by_case_or_slash_never_share_a_stem() -> None:
    pairs = [
        ("HumanEval/0", "HumanEval_0"),
        ("HumanEval/0", "humaneval/0"),
        ("HumanEval/0", "humaneval_0"),
        ("HumanEval/0", "humaneval-0"),
        ("HelloWorld", "helloworld"),
        ("HelloWorld", "HELLOWORLD"),
        ("Task", "task"),
        ("a/b/c", "a_b_c"),
        ("a/b", "a-b"),
        ("MBPP/11", "mbpp_11"),
    ]
    for first, second in pairs:
        one, two = taskid.safe_file_name(first), taskid.safe_file_name(second)
        # Compared lower-cased: on a case-insensitive file system Task.html and task.html are one file.
        assert one.lower() != two.lower(), (first, second, one)


def test_stems_are_one_safe_component() -> None:
    allowed = set(string.ascii_lowercase + string.digits + "._-~")
    for name in [*REAL_IDS, *(v for v in REFUSED if isinstance(v, str))]:
        stem = taskid.safe_file_name(name)
        assert set(stem) <= allowed, (name, stem)
        assert stem not in {"", ".", ".."} and not stem.startswith(".") and len(stem) <= 100, (name, stem)
        assert stem.split(".", 1)[0] not in {"con", "nul", "prn", "aux"}, (name, stem)


@given(st.text(min_size=1, max_size=30), st.text(min_size=1, max_size=30))
def test_two_accepted_ids_never_share_a_stem(first: str, second: str) -> None:
    one, two = taskid.accept(first), taskid.accept(second)
    if isinstance(one, str) and isinstance(two, str) and one != two:
        assert taskid.safe_file_name(one).lower() != taskid.safe_file_name(two).lower()
        assert taskid.safe_file_name(one) == taskid.safe_file_name(first)  # a pure function of the id


# Real registries.
CONFIG = """\
suites:
  tb:
    kind: folders
    drafts: drafts/tb
    fixtures: "tasks/*/"
    task_file: task.toml
    versions: versions
  he:
    kind: records
    drafts: drafts/he
    fixtures: "problems/*.jsonl"
    task_id: task_id
    versions: versions
"""
FOLDERS = ("HelloWorld", "Task One")
RECORD_IDS: list[Any] = ["HumanEval/0", "HumanEval/1", 1, 2, "Café-ü"]


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _version(root: Path, suite: str, number: int) -> None:
    text = f"suite: {suite}\nversion: {number}\ntitle: Own ids\npurpose: Tasks named as their benchmark names them.\n"
    _write(root / "drafts" / suite / "version.yaml", text)


def _records(root: Path, records: list[dict[str, Any]], name: str = "all.jsonl") -> Path:
    path = root / "drafts/he/problems" / name
    _write(path, "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records))
    return path


def _registry(tmp_path: Path) -> Path:
    root = tmp_path / "registry"
    root.mkdir()
    _write(root / "freezer.yaml", CONFIG)
    for name in FOLDERS:
        folder = root / "drafts/tb/tasks" / name
        _write(folder / "task.toml", 'version = "1.0"\n[metadata]\ndifficulty = "easy"\n')
        _write(folder / "instruction.md", f"# {name}\n\nDo the task.\n")
        _write(folder / "tests/test.sh", "#!/bin/sh\ntest -e /app/done\n")
        (folder / "tests/test.sh").chmod(0o755)
    _records(root, [{"task_id": value, "prompt": f"Solve {value}."} for value in RECORD_IDS])
    _version(root, "tb", 1)
    _version(root, "he", 1)
    run_git(["init", "-q", "-b", "main", "."], root, DETERMINISTIC_ENV)
    commit_all(root, "drafts")
    return root


def _ok(*args: str, cwd: Path) -> Any:
    result = run_inprocess(*args, cwd=cwd)
    assert result.code == 0, result.text
    assert "Traceback" not in result.text
    return result


def _json(*args: str, cwd: Path) -> Any:
    return json.loads(_ok(*args, "--format", "json", cwd=cwd).out)["result"]


def _cut_both(root: Path, number: int) -> None:
    for suite in ("tb", "he"):
        _ok("cut", f"{suite}_v{number}", cwd=root)
    commit_all(root, f"v{number}")


def test_validate_cut_audit_show_of_own_ids(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    sets = {s["suite"]: s["fixtures"] for s in _json("validate", cwd=root)["sets"]}
    assert sets == {"tb": sorted(FOLDERS), "he": sorted(["HumanEval/0", "HumanEval/1", "1", "2", "Café-ü"])}
    _cut_both(root, 1)
    assert "METHOD.md reproduced" in _ok("audit", cwd=root).out
    shown = _json("show", "he_v1", cwd=root)
    assert [f["task_id"] for f in shown["fixtures"]] == sorted(sets["he"])
    assert "HumanEval/0" in _ok("show", "he_v1", cwd=root).out
    assert "Task One" in _ok("show", "tb_v1", cwd=root).out
    manifest = json.loads((root / "versions/he_v1/manifest.json").read_text(encoding="utf-8"))
    assert sorted(manifest["comparability"]["fixtures"]) == sorted(sets["he"])  # ids as JSON keys
    # The records are frozen byte for byte: the integer ids stay integers in the file.
    frozen = (root / "versions/he_v1/problems/all.jsonl").read_bytes()
    assert frozen == (root / "drafts/he/problems/all.jsonl").read_bytes() and b'"task_id": 1,' in frozen
    method = (root / "versions/he_v1/METHOD.md").read_text(encoding="utf-8")
    assert "| HumanEval/0 |" in method and "| Café-ü |" in method and "| 1 |" in method


def _second_versions(root: Path) -> None:
    _version(root, "tb", 2)
    _version(root, "he", 2)
    instruction = root / "drafts/tb/tasks/Task One/instruction.md"
    instruction.write_text(instruction.read_text(encoding="utf-8") + "Then stop.\n", encoding="utf-8")
    records = [{"task_id": value, "prompt": f"Solve {value}."} for value in RECORD_IDS if value != 2]
    records[0]["prompt"] = "Solve HumanEval/0, carefully."
    records.append({"task_id": "HumanEval_0", "prompt": "A look-alike name, another task."})
    _records(root, records)
    commit_all(root, "v2 drafts")
    _cut_both(root, 2)


def test_compare_diff_and_delta_name_own_ids(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    _cut_both(root, 1)
    _second_versions(root)
    assert "METHOD.md reproduced" in _ok("audit", cwd=root).out
    [arm] = _json("compare", "he_v1", "he_v2", cwd=root)["arms"]
    assert arm["classes"] == {
        "1": "unchanged",
        "2": "removed",
        "Café-ü": "unchanged",
        "HumanEval/0": "changed",
        "HumanEval/1": "unchanged",
        "HumanEval_0": "added",
    }
    assert arm["comparable"] == ["1", "Café-ü", "HumanEval/1"]
    [folders] = _json("compare", "tb_v1", "tb_v2", cwd=root)["arms"]
    assert folders["classes"] == {"HelloWorld": "unchanged", "Task One": "changed"}
    assert "tasks/Task One/instruction.md" in folders["excluded"]["Task One"]
    diff = _json("diff", "he_v1", "he_v2", cwd=root)["fixtures"]
    assert [f["task_id"] for f in diff["added"]] == ["HumanEval_0"]
    assert [f["task_id"] for f in diff["removed"]] == ["2"]
    assert [f["task_id"] for f in diff["changed"]] == ["HumanEval/0"]
    text = _ok("diff", "he_v1", "he_v2", cwd=root).out
    assert "~ HumanEval/0" in text and "- 2 " in text and "+ HumanEval_0 " in text
    method = (root / "versions/he_v2/METHOD.md").read_text(encoding="utf-8")
    # Each id its own code span: an id holding ", " cannot make the list read as two ids.
    assert "Unchanged: `1`, `Café-ü`, `HumanEval/1`." in method, method
    assert "- `HumanEval/0`:" in method and "- `2` (" in method
    folders_method = (root / "versions/tb_v2/METHOD.md").read_text(encoding="utf-8")
    assert "- `Task One` (`tasks/Task One/instruction.md` changed)" in folders_method, folders_method
    assert "Unchanged: `HelloWorld`" in folders_method, folders_method


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.links += [value for name, value in attrs if name == "href" and value is not None]


def test_the_site_has_a_page_for_every_id_and_every_link_resolves(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    _cut_both(root, 1)
    _second_versions(root)
    out = tmp_path / "site"
    _ok("site", str(out), cwd=root)
    index = json.loads((out / "index.json").read_text(encoding="utf-8"))
    pages = {s["name"]: s["fixtures"] for s in index["suites"]}
    expected = ["1", "2", "Café-ü", "HumanEval/0", "HumanEval/1", "HumanEval_0"]
    assert sorted(pages["he"]) == expected and sorted(pages["tb"]) == sorted(FOLDERS)
    for suite, by_id in pages.items():
        for task, path in by_id.items():
            assert path == f"{suite}/fixtures/{taskid.safe_file_name(task)}.html", (task, path)
            assert (out / path).is_file(), path
            assert task in (out / path).read_text(encoding="utf-8") or task == "Café-ü", path
    assert len({p.lower() for by_id in pages.values() for p in by_id.values()}) == 8
    html = [p for p in out.rglob("*.html")]
    links = 0
    for page in html:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            assert "://" not in link and not link.startswith("/"), (page, link)
            target = (page.parent / unquote(link.split("#", 1)[0])).resolve()
            assert target.is_file() and out.resolve() in target.parents, (page, link)
            links += 1
    assert links > 40
    # Every fixture page is linked from somewhere: the id's page is reachable, not only written.
    linked = set()
    for page in html:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        linked |= {(page.parent / unquote(link)).resolve() for link in parser.links}
    for by_id in pages.values():
        assert all((out / path).resolve() in linked for path in by_id.values())


def _results(path: Path, root: Path, version: str, tasks: list[str]) -> None:
    sha = hashlib.sha256((root / "versions" / version / "manifest.json").read_bytes()).hexdigest()
    rows = [{"manifest_sha256": sha, "task_id": t, "arm": "all", "score": 1.0, "run": "m1"} for t in tasks]
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")


def test_results_check_pools_own_ids(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    _cut_both(root, 1)
    _second_versions(root)
    one, two = tmp_path / "v1.jsonl", tmp_path / "v2.jsonl"
    _results(one, root, "he_v1", ["HumanEval/1", "1", "Café-ü"])
    _results(two, root, "he_v2", ["HumanEval/1", "1", "Café-ü"])
    report = _json("results", "check", str(one), str(two), cwd=root)
    assert report["common"]["all"] == ["1", "Café-ü", "HumanEval/1"]
    _results(two, root, "he_v2", ["HumanEval/0", "1"])
    _results(one, root, "he_v1", ["HumanEval/0", "1"])
    refused = run_inprocess("results", "check", str(one), str(two), cwd=root)
    assert_clean_failure(refused)
    assert "HumanEval/0: he_v1 → he_v2" in refused.out
    _results(two, root, "he_v2", ["Not/A/Task"])
    unknown = run_inprocess("results", "check", str(two), cwd=root)
    assert_clean_failure(unknown)
    assert "'Not/A/Task' is not a landed fixture of he_v2" in unknown.text


# What is still refused, and where.
def test_refused_record_ids_are_located_at_their_line(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    path = _records(root, [{"task_id": value, "prompt": "p"} for value in REFUSED], "bad.jsonl")
    result = run_inprocess("validate", "--suite", "he", cwd=root)
    assert_clean_failure(result)
    shown = "drafts/he/problems/bad.jsonl"
    lines = [line for line in result.out.splitlines() if line.startswith(shown)]
    assert [int(line.split(":")[1]) for line in lines] == list(range(1, len(REFUSED) + 1)), result.out
    assert all("cannot be used" in line and ":13: $.task_id:" in line for line in lines), result.out
    assert "\x1b" not in result.text and "\x00" not in result.text
    annotations = run_inprocess("validate", "--suite", "he", "--format", "github", cwd=root).out.splitlines()
    assert sum(1 for line in annotations if line.startswith(f"::error file={shown},line=")) == len(REFUSED)
    assert path.is_file()


def test_refused_folder_names_are_located_at_their_folder(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    names = ["new\nline", "esc\x1bape", "trailing ", " leading", "two  spaces", "y" * 201]
    for name in names:
        _write(root / "drafts/tb/tasks" / name / "task.toml", 'version = "1.0"\n')
    result = run_inprocess("validate", "--suite", "tb", "--format", "json", cwd=root)
    assert_clean_failure(result)
    report = json.loads(result.out)["result"]
    assert next(s["fixtures"] for s in report["sets"]) == sorted(FOLDERS)
    for name in names:
        # A control character in a path is refused by the path scan, at the folder; the rest by the id rule.
        folder = f"drafts/tb/tasks/{visible(name)}"
        [problem] = [p for p in report["problems"] if p["file"].startswith(folder)]
        assert taskid.shown(name) in problem["message"] or "folder name holds a control" in problem["message"]
        assert problem["file"] in (folder, f"{folder}/task.toml"), problem


def test_ids_equal_after_mapping_are_refused_as_duplicates(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    nfd = unicodedata.normalize("NFD", "Café-ü")
    _records(root, [{"task_id": "1", "prompt": "a"}, {"task_id": nfd, "prompt": "b"}], "more.jsonl")
    result = run_inprocess("validate", "--suite", "he", cwd=root)
    assert_clean_failure(result)
    out = result.out
    # The integer 1 and the string "1" are one id; the NFD spelling looks like the NFC one.
    assert "more.jsonl:1:13: $.task_id: task_id '1' is already used by" in out, out
    assert "more.jsonl:2:13: $.task_id:" in out and "another Unicode normalization form" in out, out


def test_case_variants_are_two_tasks_with_two_pages(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    _records(root, [{"task_id": "humaneval/0", "prompt": "a"}, {"task_id": "HUMANEVAL/0", "prompt": "b"}], "c.jsonl")
    commit_all(root, "case variants")
    fixtures = next(s["fixtures"] for s in _json("validate", "--suite", "he", cwd=root)["sets"])
    assert {"HumanEval/0", "humaneval/0", "HUMANEVAL/0"} <= set(fixtures)
    _ok("cut", "he_v1", cwd=root)
    commit_all(root, "he_v1")
    out = tmp_path / "site"
    _ok("site", str(out), cwd=root)
    pages = sorted(p.name.lower() for p in (out / "he/fixtures").iterdir())
    assert len(pages) == len(set(pages)) == 7


def test_a_record_whose_own_task_id_field_agrees_as_an_integer(tmp_path: Path) -> None:
    root = _registry(tmp_path)
    config = root / "freezer.yaml"
    config.write_text(config.read_text(encoding="utf-8").replace("task_id: task_id", "task_id: instance_id"))
    _records(root, [{"instance_id": 7, "task_id": 7, "p": 1}, {"instance_id": 8, "task_id": "8", "p": 2}])
    commit_all(root, "instance ids")
    fixtures = next(s["fixtures"] for s in _json("validate", "--suite", "he", cwd=root)["sets"])
    assert fixtures == ["7", "8"]
    _records(root, [{"instance_id": 7, "task_id": 9}])
    result = run_inprocess("validate", "--suite", "he", cwd=root)
    assert_clean_failure(result)
    assert "its own 'task_id' field (9) disagrees" in result.out, result.out


def test_freezer_own_fixture_formats_keep_their_rule(tmp_path: Path) -> None:
    # graph and generic fixtures are freezer's own format: their schema (and its hash) is unchanged.
    from freezer.runtime import resources

    for name in ("fixture", "generic"):
        properties: Any = resources.schema(name)["properties"]  # Any: read by the shape it asserts
        rule = properties["task_id"]
        assert rule["pattern"] == "^[a-z0-9][a-z0-9._-]*$" and rule["maxLength"] == 120, name


def _lmeval(root: Path) -> tuple[list[str], list[str]]:
    record = FixtureKindRecord("lm-eval", "tasks/*.yaml")
    every = sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file())
    kind = kind_of(record)
    claimed = [rel for rel in every if kind.claims(rel)]
    found = kind.read(Files(claimed, lambda rel, _limit: (root / rel).read_bytes(), others=[]))
    return [f.task_id for f in found.fixtures], [str(p) for p in found.problems]


def test_lm_eval_task_names_with_capitals_are_their_ids(tmp_path: Path) -> None:
    names = ["bbh_cot_fewshot_Boolean", "BigBench_Causal_Judgement", "mmlu_pro_Law", "arc_easy"]
    for name in names:
        _write(tmp_path / "tasks" / f"{name.lower()}.yaml", f"task: {name}\noutput_type: generate_until\n")
    assert _lmeval(tmp_path) == (sorted(names, key=str.lower), [])
    _write(tmp_path / "tasks/bad.yaml", 'task: "tab\\there"\noutput_type: generate_until\n')
    _write(tmp_path / "tasks/long.yaml", f"task: {'z' * 201}\noutput_type: generate_until\n")
    found, problems = _lmeval(tmp_path)
    assert len(found) == len(names) and len(problems) == 2, problems
    assert any("tasks/bad.yaml:1:" in p and "U+0009" in p for p in problems), problems
    assert any("tasks/long.yaml:1:" in p and "201 characters" in p for p in problems), problems
