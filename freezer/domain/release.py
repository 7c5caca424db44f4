"""freezer's own release: the version that every manifest, statement and JSON document records,
and the names it is published under."""

from __future__ import annotations

import re

__version__ = "0.4.0.dev0"

# The name on the package index. `freezer` there is OpenStack's backup service, so this project is
# published as freezer-bench; the import package and the command stay `freezer`.
DISTRIBUTION = "freezer-bench"
# Releases before 0.4 were built under the name `freezer`, and their frozen provenance statements
# say so (pkg:pypi/freezer@0.3.0): a statement is re-derived byte for byte from the frozen manifest,
# so the name a version records follows the release that cut it, never today's.
_FORMER_DISTRIBUTION = "freezer"
_RENAMED_IN = (0, 4)
# The release numbers a version string starts with (0.4.0 of 0.4.0.dev0).
_NUMBERS = re.compile(r"([0-9]+)\.([0-9]+)(?:\.[0-9]+)*")

# Where the GitHub Action and the pre-commit hooks are published: the project's GitHub home is not
# decided yet, so this is a placeholder that nobody can register (a GitHub account name cannot hold
# "_"). `freezer init` writes it into the workflow and the docs' snippets name it; replace it here
# once the home exists, and every place that names it follows.
REPOSITORY = "TODO_owner/freezer"


def distribution_of(release: str) -> str:
    """The index name of the freezer release ``release`` (as a manifest's freezer_version gives it)."""
    found = _NUMBERS.match(release)
    if found is not None and (int(found.group(1)), int(found.group(2))) < _RENAMED_IN:
        return _FORMER_DISTRIBUTION
    return DISTRIBUTION


def action_ref(release: str = __version__) -> str:
    """The moving tag of a release's major version (v0, v1, ...): what `uses: REPOSITORY@...` names."""
    return "v" + release.split(".", 1)[0]


def release_tag(release: str = __version__) -> str:
    """The tag of one release (v0.4.0, also for 0.4.0.dev0, whose hooks first ship in 0.4.0): what a
    pre-commit `rev:` names, since pre-commit pins one tag."""
    found = _NUMBERS.match(release)
    return "v" + (found.group(0) if found is not None else release)


def version_line() -> str:
    """What `freezer --version` says: the command's version and the name it is installed under."""
    return f"freezer {__version__} (installed as {DISTRIBUTION})"
