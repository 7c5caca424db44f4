"""Every size bound on what freezer reads, in one table.

validate and cut read a suite's drafts, and audit, show, compare, site, ``freezer.load`` and the
results readers read the frozen version, all under these same numbers: a file cut accepts is one
every reader can read, and a file a reader refuses was refused at validation first. Two kinds of
bound stand here: how much of a file is read into memory at all, and how much of each format is
parsed (a format's cap is checked by the parser, which the drafts and a frozen version share).
"""

from __future__ import annotations

# -- Files a suite holds --------------------------------------------------------------------------

# The largest file a suite's drafts may hold (``max_file_bytes`` in freezer.yaml changes it): copied
# and hashed in a stream, never read whole.
MAX_FILE_BYTES = 4 << 30

# The largest file freezer reads whole into memory: a records file (SWE-bench's full test split,
# 2,294 instances, is ~80 MB as JSON Lines; this holds three of it), and any file of a frozen version
# a reader loads. Parsing a JSON Lines file costs about 5 times its size in memory.
MAX_WHOLE_FILE_BYTES = 256 << 20

# A document of fields: a YAML fixture, an lm-eval task file or a file it includes, a folder's task
# file (TOML, YAML or JSON). A records file is a list of records, bounded by MAX_WHOLE_FILE_BYTES.
MAX_DOCUMENT_BYTES = 1 << 20
MAX_DOCUMENT_NODES = 100_000
MAX_DOCUMENT_DEPTH = 64

# One record (one line of a JSON Lines file): a SWE-bench instance with its patches is tens of
# kilobytes; this leaves room.
MAX_RECORD_BYTES = 16 << 20

# -- freezer's own files --------------------------------------------------------------------------

# Manifests, delta.json, SHA256SUMS, METHOD.md, provenance.json: written by freezer, read whole.
MAX_METADATA_BYTES = 64 << 20
MAX_TEMPLATE_BYTES = 1 << 20
MAX_SCHEMA_BYTES = 1 << 20
MAX_DOCKERFILE_BYTES = 1 << 20
# The drafts' lock file (freezer lock): a digest per image named by tag, ~150 bytes each.
MAX_LOCK_BYTES = 4 << 20
# A manifest or an index skopeo prints for freezer lock: a few KiB; the distribution spec lets a
# registry refuse one over 4 MiB, so a larger answer is no manifest.
MAX_IMAGE_MANIFEST_BYTES = 4 << 20
# The tail of what a tool freezer runs (skopeo) wrote to stderr when it failed, read for its last line.
MAX_TOOL_MESSAGE_BYTES = 64 << 10

# -- Problems -------------------------------------------------------------------------------------

# The problems one fixture file gets listed one by one, by every fixture reader (YAML, TOML, records,
# lm-eval); past this they are counted in one last problem, or the parse stops there: a file of
# another format, or a list of 100,000 non-records, would otherwise give a line per line or item.
MAX_LISTED_PROBLEMS = 100

# -- Results from harnesses -----------------------------------------------------------------------

# A results file in freezer's schema (JSON Lines): read line by line, never whole.
MAX_RESULTS_FILE_BYTES = 1 << 30  # 1 GiB: ~6 million result rows
MAX_RESULT_ROW_BYTES = 1 << 20  # a result row is a short object; 1 MiB leaves room for extra fields
MAX_RESULT_ROWS = 10_000_000
# Distinct (version, arm, run) in one check: the tallies stay bounded whatever the files hold.
MAX_RESULT_RUNS = 10_000
# An Inspect log: a .eval (a zip) as it lies on disk, each member and all of them once inflated, and
# their number (Inspect's reader inflates every member whole); a .json log is read whole, so it is held
# to one member's limit.
MAX_INSPECT_LOG_BYTES = 2 << 30
MAX_INSPECT_MEMBER_BYTES = 256 << 20
MAX_INSPECT_TOTAL_BYTES = 4 << 30
MAX_INSPECT_MEMBERS = 100_000
# Trial folders read from one Harbor job folder.
MAX_HARBOR_TRIALS = 100_000
# The problems a results check or import keeps and prints; the rest are counted.
MAX_RESULT_PROBLEMS = 200
