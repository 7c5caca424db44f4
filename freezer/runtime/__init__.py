"""How work runs and touches files: forked bounded children, cores, hashing (all through the one
seam :mod:`freezer.runtime.work`), bounded reads, the path guard."""
