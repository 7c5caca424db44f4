"""Who vouches for a version: SSH signatures, allowed signers, the status log, checkpoints."""
