"""freezer validate: the drafts of a suite, checked by schema and by semantic rules."""
