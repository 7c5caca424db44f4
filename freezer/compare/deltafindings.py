"""What audit says about a frozen delta.json that recomputes byte for byte yet reads wrong: a
defect of the delta format it was cut in, reported as a warning, never rewritten (the version is
frozen) and never a failure (its engine computed exactly that, and comparability.json, which
decides which scores compare, named those fixtures correctly)."""

from __future__ import annotations

from freezer.compare.deltamodel import Delta
from freezer.domain.model import Raw


def unchanged_yet_changed(frozen: Raw) -> str | None:
    """Delta format 4 listed a fixture whose own fields stayed while a file of it changed both under
    "changed through their files" and under "unchanged"; format 5 lists it as changed only. The
    warning names those fixtures and their files, or None when the delta has no such fixture."""
    try:
        delta = Delta.from_json(frozen)
    except (KeyError, TypeError, ValueError):
        return None  # not a typed delta (0.1.0's): it has no changed_through_files to contradict
    if delta.fixtures is None:
        return None
    both = delta.fixtures.unchanged_yet_changed()
    if not both:
        return None
    files = sorted({rel for f in delta.fixtures.through_files or () if f.task_id in both for rel in f.files})
    return (
        f"lists {', '.join(both)} both as unchanged and as changed through their files ({', '.join(files)}): "
        f"delta format {delta.delta_format} called a fixture unchanged when its own fields stayed, even with a "
        "file of it changed. They changed; this version's comparability.json, not that list, says which scores "
        "compare. A version cut now writes delta format 5, which lists such fixtures as changed only"
    )
