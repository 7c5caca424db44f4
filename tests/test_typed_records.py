"""freezer's own records in compare/, render/, site/ and the text output are typed objects (dataclasses,
TypedDicts, or JsonValue for what is truly open-ended JSON), never ``dict[str, Any]``: a bar that
counts the hand-written ones, so the count cannot creep back up unseen."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "freezer"
TYPED = [ROOT / "compare", ROOT / "render", ROOT / "site", ROOT / "cli" / "output.py", ROOT / "cli" / "browse.py"]
TYPED.append(ROOT / "cli" / "results.py")
UNTYPED = re.compile(r"(?:dict|Mapping)\[str, Any\]")


def _untyped(paths: list[Path]) -> list[str]:
    files = [p for path in paths for p in ([path] if path.is_file() else sorted(path.rglob("*.py")))]
    return [
        f"{file}:{number}"
        for file in files
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1)
        if UNTYPED.search(line)
    ]


def test_the_compare_render_site_and_text_output_modules_hold_no_dict_str_any() -> None:
    assert _untyped(TYPED) == []


def test_the_bar_sees_a_dict_str_any(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from typing import Any\n\nx: dict[str, Any] = {}\ny: Mapping[str, Any]\n", encoding="utf-8")
    assert len(_untyped([tmp_path])) == 2
