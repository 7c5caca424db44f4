"""Where each page of the site lives: every data-derived name becomes a file name here, and only here.

A task id, a version or a suite name is mapped by :func:`freezer.domain.taskid.safe_file_name`
(a suite's folder is its mapped name); :mod:`freezer.site.sitewriter` is the second wall behind
this mapping. Links are built from the same functions, so a link and the file it names cannot
disagree.
"""

from __future__ import annotations

from freezer.domain import taskid
from freezer.domain.taskid import safe_file_name


def page_stem(task_id: object) -> str:
    """The file name (without ``.html``) of a task id's page: the one place a task id becomes a name
    (freezer.domain.taskid's mapping, which every other name an id becomes goes through too)."""
    return taskid.safe_file_name(str(task_id))


def fixture_file(task_id: object) -> str:
    """A fixture's page, relative to its suite's folder."""
    return f"fixtures/{page_stem(task_id)}.html"


def version_file(name: str) -> str:
    """A version's page, relative to its suite's folder."""
    return f"{safe_file_name(name)}/index.html"


def archive_file(name: str) -> str:
    """A version's download (its frozen folder as a tar.gz), beside its page, relative to its suite's folder."""
    return f"{safe_file_name(name)}/{safe_file_name(name)}.tar.gz"


def citation_files(name: str) -> tuple[str, str]:
    """A version's CITATION.cff and BibTeX entry, beside its page, relative to its suite's folder."""
    folder = safe_file_name(name)
    return f"{folder}/CITATION.cff", f"{folder}/{folder}.bib"


def frozen_file_page(name: str, rel: str) -> str:
    """A frozen file's page in a version, relative to its suite's folder: ``rel`` is a path the
    version's manifest lists (checked at cut: relative, no ``..``), and the site writer refuses any
    path that would leave the site's folder."""
    return f"{safe_file_name(name)}/files/{rel}.html"


def diff_file(before: str, after: str) -> str:
    """The diff of two adjacent versions, relative to their suite's folder."""
    return f"diff/{safe_file_name(before)}..{safe_file_name(after)}.html"


RESULTS_FILE = "results.html"  # a suite's results page, relative to its suite's folder


def excluded_anchor(task_id: object) -> str:
    """The anchor of an excluded fixture's reason on the results page."""
    return f"excluded-{page_stem(task_id)}"
