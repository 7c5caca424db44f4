"""Which rg flags a fixture's ``naive_grep`` may give: those that change what rg counts and nothing else.

Anything that could run a program, follow a link out of the tree or read another file is refused.
validate checks every fixture's flags against this list, and Gate B (:mod:`freezer.resolve.grep`)
runs rg only on flags that passed; this module is apart from the runner so that validate, a
pre-commit hook, loads the list without the runner's subprocess, shlex and sysconfig.
"""

from __future__ import annotations

import re

# Flags that change what rg counts and nothing else. Each may be written as the rg docs spell it.
_SWITCHES = {
    "-i", "--ignore-case", "-s", "--case-sensitive", "-S", "--smart-case",
    "-w", "--word-regexp", "-x", "--line-regexp", "-F", "--fixed-strings",
    "-v", "--invert-match", "-U", "--multiline", "--multiline-dotall", "--crlf",
    "-n", "--line-number", "-N", "--no-line-number", "-c", "--count",
    "--hidden", "-.", "--no-ignore", "--no-ignore-vcs", "--no-ignore-dot", "--no-ignore-exclude",
    "-u", "-uu", "-a", "--text", "--binary",
}  # fmt: skip
_VALUED = {
    "-g", "--glob", "--iglob", "-t", "--type", "-T", "--type-not",
    "-m", "--max-count", "-d", "--max-depth", "--max-filesize", "-E", "--encoding",
}  # fmt: skip
_REFUSED = {
    "--pre": "runs a program on every file",
    "--pre-glob": "selects files for --pre, which runs a program",
    "-z": "runs decompression programs",
    "--search-zip": "runs decompression programs",
    "-L": "follows links out of the tree",
    "--follow": "follows links out of the tree",
    "-f": "reads patterns from another file",
    "--file": "reads patterns from another file",
    "--ignore-file": "reads ignore rules from another file",
    "--type-add": "redefines file types",
    "-P": "switches to the PCRE2 engine, which this ripgrep does not have",
    "--pcre2": "switches to the PCRE2 engine, which this ripgrep does not have",
    "--engine": "switches the regex engine",
    "-e": "gives another pattern; the fixture's pattern is naive_grep.pattern",
    "--regexp": "gives another pattern; the fixture's pattern is naive_grep.pattern",
}


_REFUSED_VALUED = {"--pre", "--pre-glob", "-f", "--file", "--ignore-file", "--type-add", "--engine", "-e", "--regexp"}


def flag_problems(flags: list[str]) -> list[tuple[int, str]]:
    """(index, message) for every flag that is not on the allow-list."""
    found = []
    index = 0
    while index < len(flags):
        flag = flags[index]
        name, eq, _ = flag.partition("=")
        short_valued = len(flag) > 2 and flag[:2] in _VALUED and not flag.startswith("--")
        # Short switches may be clustered as rg allows: -iw is -i -w.
        cluster = re.fullmatch(r"-[A-Za-z]{2,}", flag) is not None and all(f"-{c}" in _SWITCHES for c in flag[1:])
        if flag in _SWITCHES or short_valued or cluster or (eq and name in _VALUED):
            index += 1
            continue
        if flag in _VALUED:
            if index + 1 >= len(flags):
                found.append((index, f"{flag} needs a value after it"))
            index += 2
            continue
        why = _REFUSED.get(name)
        if why:
            found.append((index, f"rg flag {flag} is refused: it {why}"))
            index += 2 if name in _REFUSED_VALUED and not eq else 1  # its value is no flag of its own
            continue
        allowed = ", ".join(sorted(_SWITCHES | _VALUED))
        found.append((index, f"rg flag {flag} is not one freezer runs; allowed: {allowed}"))
        index += 1
    return found
