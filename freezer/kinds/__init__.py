"""Fixture kinds: how a suite's fixtures are found in its files and what freezer reads of each.

A *kind* answers, for a suite's drafts and for a frozen version's files alike, which files make up
each fixture, its task id, its status and its parsed fields. ``graph`` and ``generic`` are the
original kinds (one YAML file per fixture, holding ``task_id`` and ``status``: read by
:mod:`freezer.validate` and :mod:`freezer.registry.record` directly); the kinds here read a
benchmark in its own format, which freezer freezes byte for byte and never rewrites:

* ``folders`` (:mod:`freezer.kinds.folders`): each folder the ``fixtures`` glob names (it ends in
  ``/``) is one fixture, with every file in it; its task file holds its fields;
* ``records`` (:mod:`freezer.kinds.records`): each record of the files the glob names (JSON Lines, a
  JSON array or a YAML list) is one fixture.

To add a kind: write a module with a class meeting :class:`freezer.kinds.base.Kind` (``claims``,
``read``, ``file_fields``), add its name to :data:`freezer.domain.manifest.FixtureKindName` and to
:func:`kind_of`, and to the ``kind`` enum and keys of ``schemas/registry.schema.json`` (read into
:class:`freezer.domain.manifest.FixtureKindRecord` by :mod:`freezer.registry.config`). The record
is frozen in each manifest (``fixture_kind``), so a version is always read as it was cut.
"""
