"""How to cite a version: its CITATION.cff and a BibTeX entry, beside its page and on it.

Both say what the registry knows and nothing else: the suite, the version, its title, the day it was
cut, the sha256 of its manifest and of its archive; the license and the maintainer only when
freezer.yaml gives them (``license:``, ``maintainer:``). Without a maintainer the CFF file has no
``authors`` (a comment says which field to set) rather than an invented one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from freezer.domain.release import __version__

# "Ada Lovelace <ada@example.org>": a name and an address, as a maintainer is usually written.
_NAME_ADDRESS = re.compile(r"^\s*(?P<name>[^<>]*?)\s*<(?P<email>[^<>\s]+)>\s*$")
# BibTeX's special characters, each written so it prints as itself.
_BIBTEX = {
    "\\": r"\textbackslash{}",
    "{": r"\{",
    "}": r"\}",
    "%": r"\%",
    "&": r"\&",
    "#": r"\#",
    "_": r"\_",
    "$": r"\$",
    "^": r"\^{}",
    "~": r"\~{}",
}


@dataclass(frozen=True)
class Citation:
    """How to cite one frozen version: what the registry knows of it, for its CITATION.cff and BibTeX entry."""

    suite: str
    version: str  # graph_v2
    title: str | None
    cut_at: str  # ISO 8601, UTC
    manifest_sha256: str
    archive_sha256: str
    license: str | None
    maintainer: str | None

    @property
    def heading(self) -> str:
        return f"{self.suite} {self.version}" + (f": {self.title}" if self.title else "")

    def cff(self) -> str:
        """CITATION.cff (format 1.2.0); every value a JSON string, which YAML reads as written."""

        q = json.dumps  # a JSON string is a YAML scalar read exactly as written

        lines = [
            f"# Written by freezer {__version__} from the frozen version {self.version}.",
            "cff-version: 1.2.0",
            q("message") + ": " + q("If you use this version of the benchmark, please cite it as below."),
            "type: dataset",
            f"title: {q(self.heading)}",
            f"version: {q(self.version)}",
            f"date-released: {q(self.cut_at[:10])}",
        ]
        if self.maintainer:
            named = _NAME_ADDRESS.match(self.maintainer)
            lines.append("authors:")
            if named and named["name"]:
                lines += [f"  - name: {q(named['name'])}", f"    email: {q(named['email'])}"]
            else:
                lines.append(f"  - name: {q(self.maintainer.strip())}")
        else:
            lines.append("# authors: not given (set maintainer: in freezer.yaml)")
        if self.license:
            lines.append(f"license: {q(self.license)}")
        lines += [
            "identifiers:",
            "  - type: other",
            f"    value: {q('sha256:' + self.archive_sha256)}",
            f"    description: {q(f'sha256 of {self.version}.tar.gz')}",
            "  - type: other",
            f"    value: {q('sha256:' + self.manifest_sha256)}",
            f"    description: {q(f'sha256 of {self.version}/manifest.json')}",
        ]
        return "\n".join(lines) + "\n"

    def bibtex(self) -> str:
        """A ``@misc`` entry keyed by the version's name."""
        key = re.sub(r"[^A-Za-z0-9_-]", "_", self.version)
        fields = [("title", "{" + _tex(self.heading) + "}"), ("version", _tex(self.version))]
        if self.maintainer:
            named = _NAME_ADDRESS.match(self.maintainer)
            fields.append(("author", _tex(named["name"] if named and named["name"] else self.maintainer.strip())))
        fields += [("year", self.cut_at[:4]), ("month", self.cut_at[5:7])]
        note = f"Frozen fixture set; manifest sha256 {self.manifest_sha256}, archive sha256 {self.archive_sha256}"
        if self.license:
            note += f"; license {self.license}"
        fields.append(("note", _tex(note)))
        body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
        return f"@misc{{{key},\n{body}\n}}\n"


def _tex(text: str) -> str:
    return "".join(_BIBTEX.get(char, char) for char in text)
