"""Only a landed fixture claims a file (issue 36, class 3): a harness script named in a dropped
candidate's ``assets`` is the suite's own file, so its change moves ``assets`` and every landed
fixture with it, never hidden behind a fixture that is in no score. The generic example suite, in a
real git registry, the real CLI in process."""

from __future__ import annotations

import json
from pathlib import Path

from test_delta_claims import _agree, _ok

from registry_helpers import commit_all

HARNESS = "#!/bin/sh\n# runs each candidate\nexec timeout {seconds} ./agent\n"
LANDED = ("add-timeout-flag", "explain-pipeline")


def test_a_file_only_a_dropped_fixture_names_moves_the_suite_assets(api: Path) -> None:
    drafts = api / "drafts/api"
    (drafts / "assets/harness").mkdir(parents=True)
    (drafts / "assets/harness/run.sh").write_text(HARNESS.format(seconds=600))
    dropped = drafts / "fixtures/rename-crate.yaml"
    dropped.write_text(dropped.read_text() + "assets:\n  - assets/harness/run.sh\n")
    commit_all(api, "a harness script the dropped candidate names")
    _ok(api, "cut", "api_v1")
    commit_all(api, "freeze api_v1")
    version_yaml = drafts / "version.yaml"
    version_yaml.write_text(version_yaml.read_text().replace("version: 1\n", "version: 2\n", 1))
    (drafts / "assets/harness/run.sh").write_text(HARNESS.format(seconds=1000))
    changed, delta = _agree(api, "api")
    assert changed == {"rename-crate"}  # the dropped candidate itself did change, through its file
    assert "assets" in delta["moved"], delta["moved"]
    assert not delta["assets"].get("claimed"), delta["assets"]
    arms = json.loads(_ok(api, "compare", "api_v1", "api_v2", "--format", "json"))["result"]["arms"]
    by_assets = [arm for arm in arms if "assets" in arm["depends_on"]]
    assert by_assets, arms
    for arm in by_assets:
        assert set(arm["excluded"]) == set(LANDED), arm
        assert all("assets/harness/run.sh changed" in why for why in arm["excluded"].values()), arm
