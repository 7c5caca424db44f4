"""How work runs and touches files: forked bounded children, cores, hashing, bounded reads, the path guard."""
