"""Fixture kinds: how a suite's fixtures are found in its files and what freezer reads of each.

A *kind* answers, for a suite's drafts and for a frozen version's files alike, which files make up
each fixture, its task id, its status, its parsed fields and what it depends on. Every suite has one:

* ``yaml`` (:mod:`freezer.kinds.yamlfiles`): freezer's own format, one YAML (or JSON) file per
  fixture holding ``task_id`` and ``status`` (suites of kind graph and generic);
* ``folders`` (:mod:`freezer.kinds.folders`): each folder the ``fixtures`` glob names (it ends in
  ``/``) is one fixture, with every file in it; its task file holds its fields;
* ``records`` (:mod:`freezer.kinds.records`): each record of the files the glob names (JSON Lines, a
  JSON array or a YAML list) is one fixture;
* ``lm-eval`` (:mod:`freezer.kinds.lmeval`): each lm-evaluation-harness task file the glob names.

To add a kind: write a class meeting :class:`freezer.kinds.base.Kind` (the kinds reading a
benchmark's own files share :class:`freezer.kinds.base.BenchmarkKind`) and register it by name in
:data:`freezer.kinds.catalog.KINDS`. The record of the kinds other than ``yaml`` is frozen in each
manifest (``fixture_kind``), so a version is always read as it was cut; a manifest without one is
read as kind ``yaml`` (:meth:`freezer.domain.fixturekind.FixtureKindRecord.of_manifest`).
"""
