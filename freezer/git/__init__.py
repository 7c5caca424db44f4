"""Every git call: the policy, the code repository, the registry's own repository, pathspec globs."""
