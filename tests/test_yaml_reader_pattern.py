"""PyYAML's pure-Python reader pattern is compiled on first use, not when yaml is imported.

freezer parses with libyaml; the pure loader's pattern of non-printable characters cost the
validate hook 15% of its import instructions. These tests run real processes: the hook itself,
then PyYAML's pure loader, which must still refuse what it always refused.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from conftest import REPO

_AFTER_VALIDATE = """
import contextlib, io, re, sys
from freezer.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["validate"])
import yaml.reader
held = yaml.reader.Reader.__dict__["NON_PRINTABLE"]
print(code, isinstance(held, re.Pattern))
"""

_PURE_LOADER = """
import re
import freezer.parse.yamlload
import yaml
from freezer.parse import lazyreader
assert isinstance(re.compile(lazyreader.NON_PRINTABLE), re.Pattern)  # no other caller gets the stand-in
print(yaml.load("a: [1, b]", Loader=yaml.SafeLoader))
try:
    yaml.load("a: \\x07", Loader=yaml.SafeLoader)
except yaml.reader.ReaderError as refused:
    print("refused", refused.character)
print(yaml.reader.Reader.NON_PRINTABLE.pattern == lazyreader.NON_PRINTABLE)
"""


def _run(code: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_the_validate_hook_leaves_pyyamls_reader_pattern_uncompiled(reg: Path) -> None:
    assert _run(_AFTER_VALIDATE, reg).split() == ["0", "False"]


def test_pyyamls_pure_loader_still_refuses_a_non_printable_character(tmp_path: Path) -> None:
    assert _run(_PURE_LOADER, tmp_path).splitlines() == ["{'a': [1, 'b']}", "refused 7", "True"]
