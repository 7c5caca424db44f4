"""``freezer site``'s outcome: where the site was written, how many pages and files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from freezer.domain.problems import display_path
from freezer.query.outcomes import with_log
from freezer.site.site import SiteFiles


@dataclass
class Built:
    out: Path
    files: SiteFiles

    @property
    def pages(self) -> int:
        return sum(1 for rel in self.files if rel.endswith(".html"))

    @property
    def ok(self) -> bool:
        return not self.files.verified_view.problems

    def to_json(self) -> dict[str, object]:
        built: dict[str, object] = {"out": display_path(self.out), "pages": self.pages, "files": len(self.files)}
        return with_log(built, self.files.verified_view)
