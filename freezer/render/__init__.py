"""What a version says to people: METHOD.md, the delta as text, the provenance statement."""
