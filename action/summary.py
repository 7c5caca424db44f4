"""The guard step's summary (GITHUB_STEP_SUMMARY): what was checked, what was refused, what to do.

action/run.sh keeps what `freezer check --format github` and `freezer audit` printed and runs this with
the folder holding them and both exit codes. It reads only those lines, so it says nothing freezer did
not say; every value is shown as freezer shows it (visible) and escaped for a Markdown table.

    python summary.py LOGS CHECK_EXIT AUDIT_EXIT
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from freezer.domain.escape import visible
from freezer.domain.release import REPOSITORY

_ANNOTATION = re.compile(r"::error file=(?P<file>[^,:]*)(?:,[^:]*)?::(?P<message>.*)")
_VERSION = re.compile(r"(?P<mark>[✓✗]) (?P<name>[^\s:]+): ")
_NEW = re.compile(r"; new: (?P<names>[^;)]+)")


def _cell(text: str) -> str:
    """A value as one Markdown table cell: no markup, no row break, no column break."""
    shown = visible(text).replace("%0A", " ").replace("%0D", " ").replace("%25", "%")
    shown = shown.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return shown.replace("|", "\\|").replace("`", "'")


def _lines(logs: Path, name: str) -> list[str]:
    path = logs / name
    return path.read_text(encoding="utf-8", errors="replace").splitlines() if path.is_file() else []


def _outcome(code: int) -> str:
    return "passed" if code == 0 else f"failed (exit {code})"


def _todo(check_code: int, audit_code: int, refused: list[tuple[str, str]]) -> list[str]:
    steps: list[str] = []
    if any("frozen" in message for _, message in refused):
        steps.append(
            "A frozen version never changes. Restore each refused file from the base "
            "(`git checkout BASE -- FILE`, or `git revert` the commit that changed it). To change the benchmark, "
            "start its next version (`freezer next`, edit the drafts, `freezer cut vN`); to withdraw a version, "
            "`freezer yank` it."
        )
    elif refused:
        steps.append("Fix each refused file as its line says, run `freezer check` locally, and push again.")
    if 2 in (check_code, audit_code):
        steps.append(
            "freezer could not read what it compares with: check out the full history (actions/checkout: "
            "fetch-depth: 0), or set this action's `base` input to the commit or branch the change starts from."
        )
    if 3 in (check_code, audit_code):
        steps.append(
            "This is freezer's own fault, not your registry's: report it with the log above "
            f"(https://github.com/{REPOSITORY}/issues)."
        )
    if audit_code == 1:
        steps.append(
            "Run `freezer audit VERSION` locally on each failing version: its lines name the file and the cause."
        )
    return steps


def summary(logs: Path, check_code: int, audit_code: int) -> str:
    check_out, check_err = _lines(logs, "check.out"), _lines(logs, "check.err")
    audit_out = _lines(logs, "audit.out")
    refused = [(found["file"], found["message"]) for line in check_out if (found := _ANNOTATION.match(line))]
    verdict = next((line for line in reversed(check_out) if line[:1] in "✓✗"), "")
    if not verdict:
        verdict = next((line for line in check_err if line.strip()), "")
    new = _NEW.search(verdict)
    versions = [(found["mark"], found["name"]) for line in audit_out if (found := _VERSION.match(line))]

    ok = check_code == 0 and audit_code == 0
    out = [f"### freezer guard: {'passed' if ok else 'failed'}", ""]
    out.append(f"- `freezer check`: {_outcome(check_code)}. {_cell(verdict)}")
    out.append(f"- New versions: {_cell(new['names']) if new else 'none'}")
    if versions:
        failing = [name for mark, name in versions if mark == "✗"]
        shown = ", ".join(f"{_cell(name)} {mark}" for mark, name in versions)
        audited = f"{len(versions)} version(s) audited, {len(failing)} failing"
        out.append(f"- `freezer audit`: {_outcome(audit_code)}: {audited} ({shown})")
    else:
        out.append(f"- `freezer audit`: {_outcome(audit_code)}")
    if refused:
        out += ["", "| Refused file | Why |", "| --- | --- |"]
        out += [f"| `{_cell(file)}` | {_cell(message)} |" for file, message in refused]
    steps = _todo(check_code, audit_code, refused)
    if steps:
        out += ["", "**What to do**", ""] + [f"- {step}" for step in steps]
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.stdout.write(summary(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))
