"""Editing a drafts' version.yaml for the next version, in place, by the YAML parser's positions.

The author's comments and layout must survive, so the file is edited as text,
but never by a pattern over the text: ``version: 2`` can stand inside a
quoted title, a block scalar or a comment. The parser's event stream says
where the real top-level ``version``, ``tool_surface_commits`` and
``pinned_sha`` keys and their values are; only those spans change, and every
other byte stays as it was. The edited text is then loaded again and must
hold exactly the old data with the version bumped and the commits emptied,
or nothing is written.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from typing import Any

import yaml
from yaml import events as ev

from freezer.domain.errors import InvalidInput, UsageError
from freezer.parse.document import YamlDocument
from freezer.parse.yamlload import load_bytes

TODO = "# TODO(freezer next): set pinned_sha to the commit the fixtures of this version were checked against"
COMMITS_NOTE = "  # the commits since the previous build, when there are any"
# What PyYAML's parser takes for a line break: the positions below are in its terms.
_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_LAST_BREAK = re.compile("(?:\r\n|[\r\n\x85\u2028\u2029])\\Z")
_SPACE = " \t\r\n\x85\u2028\u2029\ufeff"


@dataclass
class _Entry:
    """A top-level key and its value, as character offsets into the text."""

    key_start: int
    key_end: int
    value: ev.Event  # the value's first event
    value_end: int  # end of the value's last character (block collections: of their last content)


def _start(event: ev.Event) -> int:
    assert event.start_mark is not None  # the parser marks every event
    return int(event.start_mark.index)


def _end(event: ev.Event) -> int:
    assert event.end_mark is not None
    return int(event.end_mark.index)


def _entries(text: str) -> dict[str, _Entry]:
    """Each top-level scalar key of the one document, with where it and its value are."""
    nodes: list[tuple[ev.Event, int]] = []  # each top-level node, keys and values in turn, and its end
    depth = 0
    for event in yaml.parse(text, Loader=yaml.SafeLoader):  # pure Python: offsets count characters
        if isinstance(event, ev.StreamStartEvent | ev.StreamEndEvent | ev.DocumentStartEvent | ev.DocumentEndEvent):
            continue
        if depth == 0:
            if not isinstance(event, ev.MappingStartEvent):
                break
            depth = 1
            continue
        if depth == 1:
            if isinstance(event, ev.MappingEndEvent):
                break
            nodes.append((event, _end(event)))
        elif _end(event) > _start(event):  # zero-width events are the ends of block collections
            nodes[-1] = (nodes[-1][0], max(nodes[-1][1], _end(event)))
        if isinstance(event, ev.CollectionStartEvent):
            depth += 1
        elif isinstance(event, ev.CollectionEndEvent):
            depth -= 1
    found: dict[str, _Entry] = {}
    for (key, _), (value, value_end) in zip(nodes[0::2], nodes[1::2], strict=False):
        if isinstance(key, ev.ScalarEvent):
            found.setdefault(key.value, _Entry(_start(key), _end(key), value, value_end))
    return found


def _line_end(text: str, index: int) -> int:
    match = _BREAK.search(text, index)
    return match.start() if match else len(text)


def _line_start(text: str, index: int) -> int:
    starts = [match.end() for match in _BREAK.finditer(text, 0, index)]
    return starts[-1] if starts else 0


def _content_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing blanks and line breaks (a block scalar's end mark takes them in)."""
    while end > start and text[end - 1] in _SPACE:
        end -= 1
    return end


def _commits_edit(text: str, entry: _Entry) -> tuple[int, int, str] | None:
    value = entry.value
    flow = isinstance(value, ev.CollectionStartEvent) and bool(value.flow_style)
    written = isinstance(value, ev.ScalarEvent | ev.AliasEvent) and _end(value) > _start(value)
    if flow or written:
        if text[_start(value) : entry.value_end] == "[]":
            return None
        return _start(value), entry.value_end, "[]"
    # A block collection, or no value at all: the key's line and the value's lines become one line.
    end = _line_end(text, _content_end(text, entry.key_end, max(entry.value_end, entry.key_end)))
    return entry.key_end, end, ": []" + COMMITS_NOTE


def _todo_edit(text: str, key_start: int) -> tuple[int, int, str] | None:
    """The TODO line above ``pinned_sha``, unless it is there already or the key does not begin its line."""
    start = _line_start(text, key_start)
    if text[start:key_start].strip(" \t"):
        return None
    own_break = _BREAK.search(text, key_start)
    if start:
        ending = _LAST_BREAK.search(text, 0, start)
        previous_end = start - len(ending.group()) if ending else start
        if text[_line_start(text, previous_end) : previous_end] == TODO:
            return None
    return start, start, TODO + (own_break.group() if own_break else "\n")


def _refuse(document: YamlDocument, message: str, hint: str = "edit it by hand") -> InvalidInput:
    """A refusal located at the version (or the file's start), for the CLI's ``file:line:col`` line."""
    return InvalidInput(
        f"{document.display}: freezer next cannot edit it", [document.problem(("version",), message, "rule")], hint=hint
    )


@dataclass
class EditedVersion:
    """The edited version.yaml, and its title before and after (``after`` None: the title was kept,
    since it names no version number to bump)."""

    text: bytes
    title_before: str | None
    title_after: str | None


def next_version_text(raw: bytes, display: str, latest: int, latest_name: str, upcoming: int) -> EditedVersion:
    """``raw`` (a version.yaml saying ``version: latest``) edited for version ``upcoming``; a version
    number in its title follows (``bench v1`` → ``bench v2``)."""
    loaded = load_bytes(raw, display)
    if loaded.document is None:
        raise InvalidInput(f"{display}: cannot be read as YAML; fix it before freezer next", loaded.problems)
    document = loaded.document
    data: Any = document.data
    if not isinstance(data, dict):
        raise _refuse(document, "is not a mapping of fields, so it has no version to bump")
    current = data.get("version")
    if type(current) is not int:
        raise _refuse(document, "no 'version: N' to bump", hint="write the version as a number: version: N")
    if current == upcoming:
        raise UsageError(f"the drafts already say version {upcoming}: the next version is started")
    if current != latest:
        raise UsageError(
            f"the drafts say version {current}, but the latest frozen version is {latest_name}; "
            f"set version: {upcoming} by hand if these drafts are meant for it"
        )
    bom = codecs.BOM_UTF8 if raw.startswith(codecs.BOM_UTF8) else b""
    try:
        text = raw[len(bom) :].decode("utf-8")
    except UnicodeDecodeError:
        raise _refuse(document, "is not UTF-8; freezer next edits UTF-8 files only") from None
    try:
        entries = _entries(text)
    except yaml.YAMLError:  # read by freezer's loader, yet not by PyYAML's own parser: no positions to trust
        raise _refuse(document, "its YAML cannot be followed position by position") from None
    version = entries.get("version")
    if version is None or not isinstance(version.value, ev.ScalarEvent) or version.value.style is not None:
        raise _refuse(document, "the version is not written as a plain number (version: N)")
    edits = [(_start(version.value), _end(version.value), str(upcoming))]
    expected = {**data, "version": upcoming}
    commits = entries.get("tool_surface_commits")
    if commits is not None:
        expected["tool_surface_commits"] = []
        edit = _commits_edit(text, commits)
        if edit is not None:
            edits.append(edit)
    pinned = entries.get("pinned_sha")
    if pinned is not None:
        todo = _todo_edit(text, pinned.key_start)
        if todo is not None:
            edits.append(todo)
    title = data.get("title")
    title_edit = _title_edit(text, entries.get("title"), title, latest, upcoming)
    if title_edit is not None:
        attempt = _apply(bom, text, [*edits, title_edit[0]], display)
        if attempt is not None and repr(attempt[1]) == repr({**expected, "title": title_edit[1]}):
            return EditedVersion(attempt[0], str(title), title_edit[1])
    attempt = _apply(bom, text, edits, display)
    if attempt is None or repr(attempt[1]) != repr(expected):
        raise _refuse(document, "its layout defeats an edit that keeps everything else as it is")
    return EditedVersion(attempt[0], str(title) if isinstance(title, str) else None, None)


def _apply(bom: bytes, text: str, edits: list[tuple[int, int, str]], display: str) -> tuple[bytes, Any] | None:
    """The text with ``edits`` made, and its data read back (None when it no longer reads)."""
    edited = text
    for start, end, replacement in sorted(edits, reverse=True):
        edited = edited[:start] + replacement + edited[end:]
    result = bom + edited.encode("utf-8")
    again = load_bytes(result, display)
    return None if again.document is None else (result, again.document.data)


# "v1", "V1", "version 1" standing alone in a title ("**bench v1**", "bench v1 (pilot)", "Bench, version 1");
# "v1.2", "uv1" or "v10" are not the version number.
_TITLE_NUMBER = re.compile(r"(?<![\w.])(?P<word>[vV]|[vV]ersion )(?P<n>\d+)(?![\w.])")


def bump_title(title: str, latest: int, upcoming: int) -> str:
    """``title`` with each standalone mention of version ``latest`` made ``upcoming``."""

    def one(match: re.Match[str]) -> str:
        return f"{match['word']}{upcoming}" if int(match["n"]) == latest else match.group()

    return _TITLE_NUMBER.sub(one, title)


def _title_edit(
    text: str, entry: _Entry | None, title: object, latest: int, upcoming: int
) -> tuple[tuple[int, int, str], str] | None:
    """The edit of the title's own characters that bumps its version number, and the new title; None
    when the title names no version ``latest`` (or is not a one-piece string)."""
    if entry is None or not isinstance(title, str) or not isinstance(entry.value, ev.ScalarEvent):
        return None
    bumped = bump_title(title, latest, upcoming)
    if bumped == title:
        return None
    start, end = _start(entry.value), entry.value_end
    return (start, end, bump_title(text[start:end], latest, upcoming)), bumped
