"""Making versions: init, status, cut (and its code checks), next, and the atomic snapshot."""
