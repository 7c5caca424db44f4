"""``freezer results add`` stores the model and the harness's release the files record, when the
command line does not say them: lm-eval's ``model_name`` (else ``config.model``) and
``lm_eval_version`` (else ``git_hash``), Inspect's ``eval.model`` and ``eval.packages``, Harbor's
``agent_info.model_info``. Each file is written in its harness's own shape, Inspect's by Inspect."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import needs_inspect, run_inprocess
from results_board import lmeval_results


@pytest.fixture
def demo(demo_build: Path, tmp_path: Path) -> Path:
    root = tmp_path / "demo"
    shutil.copytree(demo_build, root, symlinks=True)
    shutil.rmtree(root / "results")  # the demo's own stored runs: each test reads the one it adds
    return root


def _header(root: Path, version: str) -> Any:
    [stored] = sorted((root / "results" / version).iterdir())
    return json.loads(stored.read_text().splitlines()[0])


def _add(root: Path, harness: str, source: Path, version: str, *extra: str) -> None:
    added = run_inprocess("results", "add", "--from", harness, str(source), "--version", version, *extra, cwd=root)
    assert added.code == 0, added.text


def test_lmeval_model_name_and_release_are_stored(demo: Path, tmp_path: Path) -> None:
    _add(
        demo,
        "lm-eval",
        lmeval_results(tmp_path, model_name="EleutherAI/pythia-160m", lm_eval_version="0.4.8"),
        "bbh_v2",
    )
    header = _header(demo, "bbh_v2")
    assert (header["model"], header["harness_version"]) == ("EleutherAI/pythia-160m", "0.4.8")


def test_lmeval_without_model_name_stores_the_config_model_and_git_hash(demo: Path, tmp_path: Path) -> None:
    _add(demo, "lm-eval", lmeval_results(tmp_path, git_hash="4f5e6d7"), "bbh_v2")
    header = _header(demo, "bbh_v2")
    assert (header["model"], header["harness_version"]) == ("hf", "4f5e6d7")


def test_the_command_line_says_what_the_files_do_not_override(demo: Path, tmp_path: Path) -> None:
    source = lmeval_results(tmp_path, model_name="EleutherAI/pythia-160m", lm_eval_version="0.4.8")
    _add(demo, "lm-eval", source, "bbh_v2", "--model", "pythia", "--harness-version", "0.4.7")
    header = _header(demo, "bbh_v2")
    assert (header["model"], header["harness_version"]) == ("pythia", "0.4.7")


@needs_inspect
def test_inspect_model_and_release_are_stored(demo: Path, tmp_path: Path) -> None:
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalSample, EvalSpec, write_eval_log
    from inspect_ai.scorer import Score

    spec = EvalSpec(created="2026-12-01T10:00:00+00:00", task="swe_slice", task_version=1,
                    dataset=EvalDataset(name="swe", samples=1), model="mockllm/model",
                    config=EvalConfig(), run_id="run1", packages={"inspect_ai": "0.3.285"})  # fmt: skip
    sample = EvalSample(id="toyshop__cart-101", epoch=1, input="fix it", target="", scores={"m": Score(value="C")})
    path = tmp_path / "log.eval"
    write_eval_log(EvalLog(eval=spec, samples=[sample], status="success"), str(path))
    _add(demo, "inspect", path, "swe_v1")
    header = _header(demo, "swe_v1")
    assert (header["model"], header["harness_version"]) == ("mockllm/model", "0.3.285")


def test_harbor_agent_model_is_stored(demo: Path, tmp_path: Path) -> None:
    trial = tmp_path / "job" / "count-words__1"
    trial.mkdir(parents=True)
    agent = {"name": "terminus-2", "version": "2.0.0", "model_info": {"name": "gpt-5", "provider": "openai"}}
    rewarded = {"verifier_result": {"rewards": {"reward": 1.0}}, "exception_info": None}
    document = {"task_name": "count-words", "trial_name": trial.name, "task_id": {"path": "tasks/count-words"},
                "agent_info": agent, **rewarded}  # fmt: skip
    (trial / "result.json").write_text(json.dumps(document))
    _add(demo, "harbor", tmp_path / "job", "tb_v1")
    assert _header(demo, "tb_v1")["model"] == "openai/gpt-5"
