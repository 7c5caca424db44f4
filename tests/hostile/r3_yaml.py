"""Round 3, class 13: YAML that reads other than it looks.

Each hazard is a text and every problem freezer must report for it, where it
is written: ``(line, column, JSON path, a fragment of the message)``. Several
instances of each kind: anchors and aliases (Rust's ``&mut``, ``&self``,
``&str``, ``*const``), merge and value keys, integers and floats that YAML 1.1
and 1.2 read differently or that are not plain decimal, YAML 1.1-only
booleans, every tag, directives, and line breaks only YAML sees (NEL, LS, PS,
a lone CR), in comments too. ``ACCEPTED`` holds what must still load, and as
what. ``yaml_cases()`` gives the same hazards as subprocess cases of the
hostile campaign (one fixture of a valid drafts folder each).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from hostile.corpus import BAD, Case, _write

Expected = tuple[int, int, str, str]

ANCHOR = "YAML anchor &"
ALIAS = "YAML alias *"
TAG = "is not allowed: fixture files hold plain data only"
DIRECTIVE = "YAML directive %"
LINE_BREAK = "reads it as a line break where grep"
DIFFER = "in YAML 1.1 (freezer's reader) but as"
ALIKE = "in YAML 1.1 and 1.2 alike but is not written in plain decimal"

_BOOLEANS_1_1 = {
    **dict.fromkeys(["yes", "Yes", "YES", "on", "On", "ON"], "true"),
    **dict.fromkeys(["no", "No", "NO", "off", "Off", "OFF"], "false"),
}

HAZARDS: dict[str, tuple[str, list[Expected]]] = {
    # Anchors and aliases: Rust fixtures write &mut, &self, &str and *const everywhere.
    "anchor-mut-symbol": (
        "ground_truth:\n  - file: a.rs\n    line: 3\n    symbol: &mut deterministic(\n",
        [(4, 13, "$.ground_truth[0].symbol", "anchor &mut is not allowed: freezer refuses anchors and aliases")],
    ),
    "anchor-mut-shows-the-loss": (
        "symbol: &mut deterministic(\n",
        [(1, 9, "$.symbol", "would load as 'deterministic(', without the anchor); quote a value that starts with")],
    ),
    "anchor-self-empty": ("signature: &self\n", [(1, 12, "$.signature", ANCHOR + "self")]),
    "anchor-str-in-list": ("members:\n  - &str\n  - x\n", [(2, 5, "$.members[0]", ANCHOR + "str")]),
    "anchor-in-flow": ("flags: [&a -n, x]\n", [(1, 9, "$.flags[0]", ANCHOR + "a")]),
    "anchor-on-mapping": ("oracle: &o\n  must_include: [a]\n", [(1, 9, "$.oracle", ANCHOR + "o")]),
    "anchor-on-sequence": ("tools: &t [a, b]\n", [(1, 8, "$.tools", "remove the anchor")]),
    "anchor-on-key": ("&k task_id: v\n", [(1, 1, "$.task_id", ANCHOR + "k")]),
    "anchor-on-block-scalar": ("note: &n |\n  text\n", [(1, 7, "$.note", ANCHOR + "n")]),
    "alias-unknown": ("symbol: *ptr\n", [(1, 9, "$.symbol", ALIAS + "ptr is not allowed")]),
    "alias-known": (
        "a: &x 1\nb: *x\n",
        [(1, 4, "$.a", ANCHOR + "x"), (2, 4, "$.b", ALIAS + "x")],
    ),
    "alias-in-list": (
        "- &m x\n- *m\n- *m\n",
        [(1, 3, "$[0]", ANCHOR + "m"), (2, 3, "$[1]", ALIAS + "m"), (3, 3, "$[2]", ALIAS + "m")],
    ),
    "alias-as-key": ("a: &k x\n*k : y\n", [(1, 4, "$.a", ANCHOR + "k"), (2, 1, "$['*k']", ALIAS + "k")]),
    "alias-const-pointer": (
        "symbol: *const u8\n",
        [(1, 9, "$.symbol", ALIAS + "const"), (1, 16, "$", "YAML syntax")],
    ),
    "anchor-lifetime": ("symbol: &'a str\n", [(1, 10, "$", "anchor or an alias to YAML: quote it")]),
    "anchor-slice": ("symbol: &[u8]\n", [(1, 10, "$", "anchor or an alias to YAML: quote it")]),
    "alias-bare-star": ("pattern: *\n", [(1, 11, "$", "anchor or an alias to YAML: quote it")]),
    "merge-key-flow": ("<<: {task_id: x}\n", [(1, 1, "$['<<']", "merge key, a form of alias")]),
    "merge-key-nested": ("other:\n  <<: {a: 2}\n", [(2, 3, "$.other['<<']", "merge key")]),
    "merge-of-alias": (
        "a: &b {x: 1}\nc:\n  <<: *b\n",
        [(1, 4, "$.a", ANCHOR + "b"), (3, 3, "$.c['<<']", "merge key"), (3, 7, "$.c['<<']", ALIAS + "b")],
    ),
    "value-key": ("a: =\n", [(1, 4, "$.a", "a plain '=' is YAML 1.1's value key")]),
    # Integers: leading zeros, underscores, prefixes, signs and colons.
    "octal-line": (
        "ground_truth:\n  - file: a.rs\n    line: 0414\n",
        [(3, 11, "$.ground_truth[0].line", "'0414' reads as the integer 268 " + DIFFER + " the integer 414")],
    ),
    "octal-zeros": ("a: 00\n", [(1, 4, "$.a", "'00' reads as the integer 0 " + ALIKE)]),
    "leading-zero-not-octal": ("a: 089\n", [(1, 4, "$.a", "'089' reads as text " + DIFFER + " the integer 89")]),
    "octal-negative": ("a: -017\n", [(1, 4, "$.a", "the integer -15 " + DIFFER + " the integer -17")]),
    "underscores": ("line: 1_0_0\n", [(1, 7, "$.line", "'1_0_0' reads as the integer 100 " + DIFFER + " text")]),
    "underscores-thousands": ("a: -1_000\n", [(1, 4, "$.a", "the integer -1000 " + DIFFER + " text")]),
    "hex": ("a: 0x1F\n", [(1, 4, "$.a", "'0x1F' reads as the integer 31 " + ALIKE)]),
    "hex-underscore": ("a: 0x_1F\n", [(1, 4, "$.a", "the integer 31 " + DIFFER + " text")]),
    "octal-0o": ("a: 0o17\n", [(1, 4, "$.a", "'0o17' reads as text " + DIFFER + " the integer 15")]),
    "binary": ("a: 0b101\n", [(1, 4, "$.a", "the integer 5 " + DIFFER + " text")]),
    "plus-sign": ("a: +12\n", [(1, 4, "$.a", "'+12' reads as the integer 12 " + ALIKE)]),
    "sexagesimal-short": ("a: 1:20\n", [(1, 4, "$.a", "the integer 80 " + DIFFER + " text")]),
    "sexagesimal-long": ("a: 190:20:30\n", [(1, 4, "$.a", "the integer 685230 " + DIFFER + " text")]),
    "integer-key": ("0414: x\n", [(1, 1, "$['0414']", "the integer 268")]),
    "integers-in-flow": (
        "lines: [0414, 12, 1_2]\n",
        [(1, 9, "$.lines[0]", "the integer 268"), (1, 19, "$.lines[2]", "the integer 12 " + DIFFER)],
    ),
    # Floats.
    "float-underscore": ("a: 1_0.5\n", [(1, 4, "$.a", "'1_0.5' reads as the number 10.5 " + DIFFER + " text")]),
    "float-sexagesimal": ("a: 190:20:30.15\n", [(1, 4, "$.a", "the number 685230.15 " + DIFFER + " text")]),
    "exponent-without-dot": ("a: 1e3\n", [(1, 4, "$.a", "'1e3' reads as text " + DIFFER + " the number 1000.0")]),
    "exponent-without-sign": ("a: 1.5e3\n", [(1, 4, "$.a", "reads as text " + DIFFER + " the number 1500.0")]),
    "leading-dot-signed": ("a: -.5\n", [(1, 4, "$.a", "reads as text " + DIFFER + " the number -0.5")]),
    "sha-that-is-a-float": ("pinned_sha: 1e45678\n", [(1, 13, "$.pinned_sha", DIFFER + " the number inf")]),
    "infinities": (
        "a: +.inf\nb: -.Inf\nc: .NAN\n",
        [(1, 4, "$.a", "not a finite number"), (2, 4, "$.b", "not a finite"), (3, 4, "$.c", "not a finite")],
    ),
    # YAML 1.1-only booleans, refused wherever PyYAML reads them as booleans.
    "booleans-1-1": (
        "".join(f"{chr(97 + i)}: {word}\n" for i, word in enumerate(_BOOLEANS_1_1)),
        [
            (i + 1, 4, f"$.{chr(97 + i)}", f"'{word}' reads as the boolean {meant} {DIFFER} text")
            for i, (word, meant) in enumerate(_BOOLEANS_1_1.items())
        ],
    ),
    "boolean-key": ("yes: x\n", [(1, 1, "$.yes", "write true for a boolean, or quote it ('yes')")]),
    "booleans-in-flow": ("flags: [on, off]\n", [(1, 9, "$.flags[0]", "boolean true"), (1, 13, "$.flags[1]", "false")]),
    "boolean-nested": ("oracle:\n  strict: no\n", [(2, 11, "$.oracle.strict", "write false for a boolean")]),
    # Every tag is refused, located at the tag; none may fail inside PyYAML.
    **{
        f"tag-{name}": (f"task_id: x\nvalue: {tagged}\n", [(2, 8, "$.value", f"YAML tag {shown} {TAG}")])
        for name, tagged, shown in [
            ("int-empty", "!!int ''", "!!int"),
            ("int", "!!int 12", "!!int"),
            ("bool-1", "!!bool 1", "!!bool"),
            ("bool-yes", "!!bool yes", "!!bool"),
            ("float-empty", "!!float ''", "!!float"),
            ("float", "!!float 1", "!!float"),
            ("str", "!!str 12", "!!str"),
            ("null", "!!null x", "!!null"),
            ("timestamp", "!!timestamp 2026-12-01", "!!timestamp"),
            ("timestamp-bad", "!!timestamp x", "!!timestamp"),
            ("binary", "!!binary aGVsbG8=", "!!binary"),
            ("set", "!!set {a, b}", "!!set"),
            ("omap", "!!omap [a: 1]", "!!omap"),
            ("pairs", "!!pairs [a: 1]", "!!pairs"),
            ("map", "!!map {a: 1}", "!!map"),
            ("seq", "!!seq [1]", "!!seq"),
            ("python", "!!python/object/apply:os.system [id]", "!!python/object/apply:os.system"),
            ("python-name", "!!python/name:os.system", "!!python/name:os.system"),
            ("custom", "!x y", "!x"),
            ("custom-map", "!x {a: 1}", "!x"),
            ("non-specific", "! 12", "!"),
            ("verbatim", "!<tag:yaml.org,2002:str> x", "!!str"),
            ("verbatim-other", "!<tag:example.com,2000:x> y", "tag:example.com,2000:x"),
        ]
    },
    "tag-on-key": ("!!str a: b\n", [(1, 1, "$.a", "YAML tag !!str")]),
    "tag-on-document": ("--- !!map\na: 1\n", [(1, 5, "$", "YAML tag !!map")]),
    # Directives.
    "directive-yaml-1-1": ("%YAML 1.1\n---\na: 1\n", [(1, 1, "$", DIRECTIVE + "YAML 1.1 is not allowed")]),
    "directive-yaml-1-2": ("# c\n%YAML 1.2\n---\na: 1\n", [(2, 1, "$", DIRECTIVE + "YAML 1.2")]),
    "directive-tag": (
        "%TAG !e! tag:example.com,2000:\n---\na: !e!x 1\n",
        [(1, 1, "$", DIRECTIVE + "TAG !e!"), (3, 4, "$.a", "YAML tag tag:example.com,2000:x")],
    ),
    # Line breaks only YAML sees, refused before parsing at grep -n's line.
    "nel-in-comment": ("a: 1 # x\x85b: 2\n", [(1, 9, "$", "U+0085 (NEL, next line): YAML 1.1 " + LINE_BREAK)]),
    "ls-in-comment": ("task_id: x # ok\u2028status: dropped\n", [(1, 16, "$", "U+2028 (LS, line separator)")]),
    "ps-in-comment": ("a: 1\nb: 2 # \u2029c: 3\n", [(2, 8, "$", "U+2029 (PS, paragraph separator)")]),
    "nel-in-plain-value": ("a: x\x85y\n", [(1, 5, "$", "U+0085")]),
    "ls-in-quoted-value": ("a: 'x\u2028y'\n", [(1, 6, "$", "U+2028")]),
    "lone-cr-in-comment": ("a: 1 # x\rb: 2\n", [(1, 9, "$", "a carriage return not followed by a newline")]),
    "lone-cr-endings": ("a: 1\rb: 2\r", [(1, 5, "$", "carriage return not followed by a newline (and 1 more")]),
    "cr-cr-lf": ("a: 1\r\r\nb: 2\n", [(1, 5, "$", "carriage return")]),
    "nel-after-crlf-lines": ("a: 1\r\nb: 2 # \x85\r\n", [(2, 8, "$", "U+0085")]),
    "separators-counted": ("a: 1 # \x85\u2028\u2029\n", [(1, 8, "$", "(and 2 more in the file)")]),
    # Where libyaml misreads YAML 1.2, found with the official YAML test suite (652Z, HM87, JEF9, L24T).
    "flow-question-in-sequence": ("flags: [?x]\n", [(1, 9, "$.flags[0].x", "'?x' in a flow collection")]),
    "flow-question-key": ("{ ?foo: bar,\nbar: 42\n}\n", [(1, 3, "$.foo", "a key 'foo'), YAML 1.2 as the text")]),
    "flow-question-second-item": ("paths: [a, ?b]\n", [(1, 12, "$.paths[1].b", "'?b' in a flow collection")]),
    "flow-question-quoted": ('a: [ ?"x" ]\n', [(1, 6, "$.a[0].x", "'?\"x\"' in a flow collection")]),
    "flow-question-next-line": ("a: [\n  ?x\n]\n", [(2, 3, "$.a[0].x", "'?x' in a flow collection")]),
    "blank-last-line-literal": ("- |+\n   ", [(2, 1, "$", "ends in a line of only spaces with no newline")]),
    "blank-last-line-clip": ("foo: |\n  x\n   ", [(3, 1, "$", "end the file with a newline")]),
    "blank-last-line-tab": ("a: 1\n\t", [(2, 1, "$", "ends in a line of only spaces")]),
    # The first hundred problems are reported, then a note.
    "many-problems": (
        "".join(f"k{i}: yes\n" for i in range(150)),
        [(i + 1, len(f"k{i}: ") + 1, f"$.k{i}", "'yes' reads as the boolean true") for i in range(100)]
        + [(101, 7, "$.k100", "more than 100 problems in this file; stopped here")],
    ),
}

# What must still load, and as what (YAML 1.1 and 1.2 read these alike).
ACCEPTED: dict[str, tuple[str, Any]] = {
    "quoted-anchor-text": ("symbol: '&mut deterministic('\n", {"symbol": "&mut deterministic("}),
    "quoted-alias-text": ('symbol: "*const u8"\n', {"symbol": "*const u8"}),
    "ampersand-inside-text": ("sig: fn(&self) -> &str\n", {"sig": "fn(&self) -> &str"}),
    "quoted-numbers": ("a: '0414'\nb: \"1_000\"\n", {"a": "0414", "b": "1_000"}),
    "quoted-booleans": ("a: 'yes'\nb: \"off\"\n", {"a": "yes", "b": "off"}),
    "plain-decimal": ("a: 0\nb: -0\nc: 268\nd: -12\n", {"a": 0, "b": 0, "c": 268, "d": -12}),
    "decimal-floats": (
        "a: 1.5\nb: -0.25\nc: 1.\nd: .5\ne: 1.5e+3\n",
        {"a": 1.5, "b": -0.25, "c": 1.0, "d": 0.5, "e": 1500.0},
    ),
    "core-booleans": ("a: true\nb: False\nc: TRUE\n", {"a": True, "b": False, "c": True}),
    "y-and-n-are-text": ("a: y\nb: n\nc: Y\nd: N\n", {"a": "y", "b": "n", "c": "Y", "d": "N"}),
    "dates-are-text": ("d: 2026-12-01\nt: 2026-12-01T10:00:00Z\n", {"d": "2026-12-01", "t": "2026-12-01T10:00:00Z"}),
    "null-forms": ("a: ~\nb: null\nc: Null\nd: NULL\ne:\n", dict.fromkeys("abcde")),
    "crlf": ("a: 1\r\nb: two words\r\n", {"a": 1, "b": "two words"}),
    "tab-in-text": ("a: x\ty\n", {"a": "x\ty"}),
    "quoted-merge-key": ("'<<': x\n", {"<<": "x"}),
    "hex-like-sha": ("sha: 0a1b2c3\n", {"sha": "0a1b2c3"}),
    "question-marks-in-text": ("question: why? and ?x\n", {"question": "why? and ?x"}),
    "block-question-is-text": ("- ?x\n- ? y\n", ["?x", {"y": None}]),
    "flow-explicit-key": ("a: [? x]\n", {"a": [{"x": None}]}),
    "trailing-spaces-after-content": ("a: x   ", {"a": "x"}),
}


def yaml_cases() -> Iterator[Case]:
    """Each hazard as one fixture of a valid drafts folder, for the subprocess campaign."""
    for name, (text, _) in HAZARDS.items():
        yield Case(f"r3-yaml-{name}", "yaml", _write(BAD, text.encode("utf-8")), BAD)
