"""The typed domain: errors, findings, fixtures, manifests. Imports nothing else of freezer."""
