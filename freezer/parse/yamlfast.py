"""The YAML loader's fast path: plain data from libyaml's events, and no positions.

Almost every file freezer reads is valid, and a valid file's positions are
never shown. This path builds the data alone and gives up at the first thing
that would need a message: a tag, an anchor or alias, a directive, a key that
is not a plain string or is repeated, a scalar that ``freezer.parse.yamlscalars``
refuses (YAML 1.1 and 1.2 read it differently, or it is not a finite number),
an escape that makes a forbidden character, a second document, too much depth
or too many values. The caller (``freezer.parse.yamlload``) then reads the text
again with the located builder, which reports it where it is written. For a
document this path accepts, the data is the same as the located builder's
(tests/test_yaml_fast.py compares them), and positions are worked out only
when a later check has something to say about the document.
"""

from __future__ import annotations

from typing import Any

from yaml import events as ev

from freezer.domain.escape import unsafe_char

GIVE_UP: Any = object()
_NO_KEY: Any = object()
_SCALAR = ev.ScalarEvent
_MAPPING_START = ev.MappingStartEvent
_SEQUENCE_START = ev.SequenceStartEvent
_ENDS = (ev.MappingEndEvent, ev.SequenceEndEvent)


def build(
    get_event: Any,
    resolve: Any,
    resolved_first: frozenset[str],
    max_nodes: int,
    max_depth: int,
    escapes_possible: bool,
) -> Any:
    """The one document's data from ``get_event``, or :data:`GIVE_UP`.

    A scalar with no tag is text when it is quoted or a block, or when its
    first character starts no implicit type (``resolved_first``); the others
    go to ``resolve(event)``, which returns ``(value, refusal)``.
    ``escapes_possible`` is False when the text holds no backslash, so no
    double-quoted escape can make a forbidden character (the caller has
    checked the text itself).
    """
    containers: list[Any] = []
    keys: list[Any] = []  # per open container: the key waiting for its value, or _NO_KEY
    result: Any = None
    nodes = 0
    documents = 0
    while (event := get_event()) is not None:
        kind = type(event)
        if kind is _SCALAR:
            if event.anchor is not None:
                return GIVE_UP
            value = event.value
            if event.tag is None and (not event.implicit[0] or (value and value[0] not in resolved_first)):
                if escapes_possible and event.style == '"' and unsafe_char(value) is not None:
                    return GIVE_UP
            else:
                value, refusal = resolve(event)
                if refusal is not None:
                    return GIVE_UP
        elif kind is _MAPPING_START or kind is _SEQUENCE_START:
            if event.anchor is not None or event.tag is not None:
                return GIVE_UP
            if len(containers) >= max_depth:
                return GIVE_UP
            value = {} if kind is _MAPPING_START else []
        elif kind in _ENDS:
            containers.pop()
            keys.pop()
            continue
        elif kind is ev.DocumentStartEvent:
            documents += 1
            if documents > 1 or event.version is not None or event.tags:
                return GIVE_UP
            continue
        elif kind is ev.AliasEvent:
            return GIVE_UP
        else:
            continue
        nodes += 1
        if nodes > max_nodes:
            return GIVE_UP
        if containers:
            parent = containers[-1]
            if type(parent) is list:
                parent.append(value)
            else:
                key = keys[-1]
                if key is _NO_KEY:
                    if type(value) is not str or value in parent:
                        return GIVE_UP
                    keys[-1] = value
                    continue
                parent[key] = value
                keys[-1] = _NO_KEY
        else:
            result = value
        if kind is not _SCALAR:
            containers.append(value)
            keys.append(_NO_KEY)
    return result
