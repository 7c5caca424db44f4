"""Every `freezer` command the README and the docs/ pages show is a real command with real options.

The first-week block is run as written (tests/test_first_week_readme.py, tests/test_walkthrough.py)
and the consumer's signature check too (tests/test_signing.py); every other command a page shows, in
a shell block or in an inline code span, is checked here against the command line freezer actually
parses (typer's click tree): the subcommand exists and every option it names is one of that
subcommand's. A page that shows a command or an option freezer does not have fails, naming the page,
the line and what is wrong.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

import pytest

from freezer.cli.app import root_command

from conftest import REPO
from doc_pages import page, pages, section

# Code blocks that hold commands a reader types (```text holds the signing recipes).
SHELL_LANGUAGES = {"sh", "bash", "console", "shell", "text", ""}
# What may stand right before a command word on a shell line.
COMMAND_STARTS = {"&&", "||", "|", ";", "(", "then", "do", "!", "time", "env"}
OPERATOR = re.compile(r"^[()<>|&;]+$")
# A placeholder a page writes in place of a command or value (COMMAND, VERSION, <cmd>).
PLACEHOLDER = re.compile(r"^(?:[A-Z][A-Z_.]*|<[^>]*>)$")


@dataclass(frozen=True)
class Shown:
    """One command line a page shows: where, and its words after `freezer`."""

    where: str
    words: tuple[str, ...]


# typer builds a click command tree; recent typer releases vendor click (freezer/cli/options.py), so
# the tree is read by what click's commands have (``commands``, ``params``), not by click's classes.
def _root() -> Any:
    command = root_command()
    assert hasattr(command, "commands")
    return command


def _options(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        if param.param_type_name == "option":
            names.update(param.opts, param.secondary_opts)
    return names


def _words(line: str) -> list[str]:
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    try:
        words = list(lexer)
    except ValueError:  # a quote closed on a later line: the words before it are still the command's
        words = line.split()
    for at, word in enumerate(words):
        if word.startswith("#"):  # a comment, as the shell reads one: only at the start of a word
            return words[:at]
    return words


def _commands_on(line: str, where: str) -> list[Shown]:
    words = _words(line.removeprefix("$ "))
    found = []
    for at, word in enumerate(words):
        if word != "freezer" and not word.endswith("/freezer"):
            continue
        if at > 0 and words[at - 1] not in COMMAND_STARTS and "=" not in words[at - 1]:
            continue  # `command -v freezer`, `pip install freezer-bench`: not a run of freezer
        rest = []
        for follower in words[at + 1 :]:
            if OPERATOR.match(follower):
                break
            rest.append(follower.strip("[]"))  # a synopsis's optional part: `[--arm grep-only]`
        found.append(Shown(where, tuple(rest)))
    return found


def shown_commands(name: str, text: str) -> list[Shown]:
    """The freezer command lines of a page: in its shell blocks, and in inline code spans."""
    found: list[Shown] = []
    lines = text.split("\n")
    fence: str | None = None
    logical, start = "", 0
    for number, line in enumerate(lines, start=1):
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
            continue
        if fence is not None:
            if fence not in SHELL_LANGUAGES:
                continue
            if not logical:
                start = number
            if line.endswith("\\"):
                logical += line[:-1] + " "
                continue
            found += _commands_on(logical + line, f"{name}:{start}")
            logical = ""
            continue
        for span in re.findall(r"`(freezer [^`]+)`", line):
            # A synopsis writes optional parts in brackets and repeats with "...".
            synopsis = re.sub(r"[\[\]]|\.\.\.", " ", span)
            found += _commands_on(synopsis, f"{name}:{number}")
    return found


def problems_of(shown: Shown, root: Any) -> list[str]:
    """What is wrong with one command line, as a reader would be told: unknown command, unknown option."""
    command = root
    path = ["freezer"]
    words = list(shown.words)
    root_options = _options(root)
    while words:
        word = words.pop(0)
        if word.startswith("-"):
            option = word.split("=", 1)[0]
            if option not in _options(command):
                return [f"{shown.where}: `{' '.join(path)}` has no option {option}"]
            if command is root and option in ("-C", "--directory", "--registry") and "=" not in word:
                words = words[1:]  # the root option's value
            continue
        if hasattr(command, "commands"):
            if PLACEHOLDER.match(word):
                return []  # `freezer -C DIR COMMAND`: no command to check
            sub = command.commands.get(word)
            if sub is None:
                return [f"{shown.where}: `{' '.join(path)}` has no command {word!r}"]
            command = sub
            path.append(word)
    if command is root and not set(shown.words) & (root_options - {"-C", "--directory", "--registry"}):
        return [f"{shown.where}: `freezer` with no command"]
    return []


def _leaf_commands(group: Any, prefix: str = "freezer") -> set[str]:
    leaves = set()
    for name, command in group.commands.items():
        if hasattr(command, "commands"):
            leaves |= _leaf_commands(command, f"{prefix} {name}")
        else:
            leaves.add(f"{prefix} {name}")
    return leaves


@pytest.mark.parametrize("name", pages())
def test_every_command_a_page_shows_is_a_real_command_with_real_options(name: str) -> None:
    root = _root()
    shown = shown_commands(name, page(name))
    problems = [problem for line in shown for problem in problems_of(line, root)]
    assert problems == [], "\n".join(problems)


def test_the_pages_show_commands_and_the_check_sees_them() -> None:
    """The extraction finds the commands the pages hold, so the test above cannot pass on nothing."""
    every = [shown for name in pages() for shown in shown_commands(name, page(name))]
    first_words = {shown.words[0] for shown in every if shown.words}
    # Shell blocks (signing, compare, site) and inline spans (validate's heading, audit's synopsis).
    assert {"sign", "attest", "verify", "yank", "checkpoint", "compare", "results", "site", "validate", "audit"} <= (
        first_words
    )
    assert len(every) >= 40, len(every)


def test_a_page_with_a_command_or_option_freezer_lacks_fails() -> None:
    root = _root()
    page_text = "\n".join(
        (
            "Run `freezer cut v2 --dry-run` first, then `freezer cut v2 --no-such-flag`.",
            "```sh",
            "freezer validate && freezer frobnicate graph_v2",
            "freezer results import --from lm-eval out.json \\",
            "  --version bbh_v2 --out runs.jsonl --bogus-option",
            "freezer -C reg audit --strict",
            "command -v freezer",
            "```",
            "```yaml",
            "entry: freezer nonsense --nothing",
            "```",
        )
    )
    problems = [problem for line in shown_commands("page.md", page_text) for problem in problems_of(line, root)]
    assert problems == [
        "page.md:1: `freezer cut` has no option --no-such-flag",
        "page.md:3: `freezer` has no command 'frobnicate'",
        "page.md:4: `freezer results import` has no option --bogus-option",
    ]


def test_the_readme_command_table_names_every_command() -> None:
    table = [line for line in page("README.md").split("\n") if line.startswith("| `freezer ")]
    listed = {re.match(r"\| `(freezer [a-z ]+)`", line).group(1) for line in table}  # type: ignore[union-attr]
    assert listed == _leaf_commands(_root())
    assert all(re.search(r"\]\((docs/[\w-]+\.md|#[\w-]+)\)", line) for line in table), table


def test_the_readme_set_up_is_two_commands_and_ci_runs_the_test_one_verbatim() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", section("README.md", "## Set-up"), re.DOTALL)
    assert [block.count("\n") for block in blocks] == [1, 1], blocks
    install, run_tests = (block.strip() for block in blocks)
    assert install.endswith("&& .venv/bin/freezer demo"), install
    assert run_tests.endswith("&& .venv/bin/python -m pytest -q"), run_tests
    assert run_tests in (REPO / ".ci/run").read_text(encoding="utf-8").split("\n")
