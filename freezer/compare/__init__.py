"""What moved between versions (the delta) and which scores stay comparable."""
