"""The files at a registry's root that hold what is signed about its versions.

Named here, apart from their readers (:mod:`freezer.trust.lifecycle`, :mod:`freezer.trust.checkpoint`,
:mod:`freezer.trust.signing`), so that ``freezer check`` can see a registry has none of them
without importing the readers: the pre-commit hook of a registry that signs nothing pays for no
signature parser.
"""

from __future__ import annotations

# The append-only log of signed yank and deprecate events (freezer.trust.lifecycle).
STATUS_LOG = "status.jsonl"
# The signed chain heads, which may only grow (freezer.trust.checkpoint).
CHECKPOINT = "checkpoint.json"
# The folder of the DSSE envelopes, one per signed version (freezer.trust.signing).
SIGNATURES = "signatures"
