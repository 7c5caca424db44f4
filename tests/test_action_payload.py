"""The Action's shell (action/run.sh) on hostile values from the job: the event payload (a pushed
`ref` holding a lone surrogate, ESC, a C1 control, U+202E, a newline that would start a workflow
command), GITHUB_BASE_REF, the event's name and the inputs. Nothing of them reaches the log raw, every
one is shown as freezer shows such characters everywhere (freezer/domain/escape.py), and no payload
makes the step print a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from action_helpers import event_env, git, run_action
from conftest import Run, sampled_corpus

# Characters a terminal or GitHub's log acts on, and how freezer shows each.
_RAW_AND_SHOWN = [("\x1b", "\\x1b"), ("\x07", "\\x07"), ("\x9b", "\\x9b"), ("\u202e", "\\u202e")]


@pytest.fixture
def job(tmp_path: Path) -> Path:
    """A checkout with one commit and no registry: run.sh says which base the event names, and
    check and audit then stop at the missing freezer.yaml."""
    where = tmp_path / "job"
    where.mkdir()
    git(where, "init", "-q", "-b", "main")
    (where / "README").write_text("a job\n", encoding="utf-8")
    git(where, "add", "README")
    git(where, "commit", "-q", "-m", "one")
    return where


def _assert_shown_safely(result: Run, *shown: str) -> None:
    text = result.out + result.err
    assert "Traceback" not in text, text
    for raw, _ in _RAW_AND_SHOWN:
        assert raw not in text, repr(text)
    assert not [line for line in result.out.splitlines() if line.startswith("::") and "freezer" not in line], text
    for one in shown:
        assert one in result.out, result.out


def _push(job: Path, ref: str) -> dict[str, str]:
    return event_env(job.parent, "push", {"before": git(job, "rev-parse", "HEAD"), "ref": ref})


@pytest.mark.parametrize(
    ("ref", "shown"),
    sampled_corpus(
        [
            ("refs/heads/\ud800", "refs/heads/\\ud800"),  # a lone surrogate: JSON allows it, Python cannot print it
            ("refs/heads/x\x1b]52;c;cHduZWQ=\x07", "refs/heads/x\\x1b]52;c;cHduZWQ=\\x07"),  # writes the clipboard
            ("refs/heads/\x9b31mred", "refs/heads/\\x9b31mred"),  # C1 CSI
            ("refs/heads/main\u202egnp.exe", "refs/heads/main\\u202egnp.exe"),  # git allows it in a branch name
            ("refs/heads/x\n::warning title=forged::injected", "refs/heads/x\\n::warning title=forged::injected"),
        ],
        unpack=True,
    ),
)
def test_the_pushed_ref_is_shown_escaped_in_the_status_line(job: Path, ref: str, shown: str) -> None:
    result = run_action(job, _push(job, ref))
    _assert_shown_safely(result, f"freezer action: push to {shown}: check compares with the commit before the push")


@pytest.mark.parametrize(
    "payload",
    sampled_corpus(
        [
            b"not json",
            b"[1, 2]",
            b"[" * 100_000,
            b'{"ref": "refs/heads/\xff\xfe"}',  # not UTF-8
            b'{"ref": 7, "before": ["x"], "repository": "main"}',
            b'{"ref": "refs/heads/' + b"\\udc80" * 1000 + b'"}',
            b'{"before": ' + b"9" * 5000 + b"}",  # an integer past Python's digit limit
        ]
    ),
)
def test_no_payload_makes_the_step_print_a_traceback(job: Path, payload: bytes) -> None:
    event = event_env(job.parent, "push", {})
    Path(event["GITHUB_EVENT_PATH"]).write_bytes(payload)
    result = run_action(job, event)
    _assert_shown_safely(result)
    assert "freezer action: push" in result.out


@pytest.mark.parametrize(
    ("base_ref", "shown"),
    sampled_corpus(
        [
            ("main\x1b[2J", "main\\x1b[2J"),
            ("main\u202e", "main\\u202e"),
            ("main\udcff", "main\\xff"),  # a byte that is not UTF-8
            ("main; touch pwned", "main; touch pwned"),
        ],
        unpack=True,
    ),
)
def test_a_hostile_github_base_ref_is_never_fetched_and_shown_escaped(job: Path, base_ref: str, shown: str) -> None:
    event = event_env(job.parent, "pull_request", {"pull_request": {"base": {}}}, base_ref=base_ref)
    result = run_action(job, event)
    _assert_shown_safely(result, f"freezer action: pull_request: its base ({shown}) could not be fetched")
    assert not (job / "pwned").exists()


def test_a_hostile_event_name_is_shown_escaped(job: Path) -> None:
    event = event_env(job.parent, "deploy\x1b[31m\u202e", {})
    result = run_action(job, event)
    shown = "freezer action: deploy\\x1b[31m\\u202e: not a push, a pull request, a schedule or a dispatch"
    _assert_shown_safely(result, shown)


@pytest.mark.parametrize(
    ("inputs", "shown"),
    sampled_corpus(
        [
            ({"require-signature": "yes\n::warning title=forged::injected"}, "input require-signature is 'yes\\n"),
            ({"reach-code": "\x1b[8mtrue"}, "input reach-code is '\\x1b[8mtrue'"),
            ({"registry": "nope\u202e\n::add-mask::x"}, "input registry is 'nope\\u202e\\n::add-mask::x'"),
            ({"registry": "100%0Aforged"}, "input registry is '100%250Aforged'"),  # GitHub's own escape, escaped
        ],
        unpack=True,
    ),
)
def test_a_refused_input_is_one_escaped_annotation(job: Path, inputs: dict[str, str], shown: str) -> None:
    result = run_action(job, event_env(job.parent, "push", {}), inputs=inputs)
    assert result.code == 2, result.text
    _assert_shown_safely(result)
    (annotation,) = [line for line in result.out.splitlines() if line.startswith("::")]
    assert annotation.startswith("::error title=freezer action::"), annotation
    assert shown in annotation, annotation
