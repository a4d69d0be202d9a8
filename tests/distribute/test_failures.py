"""Distributed runs that fail (issue 29): each says why, and leaves the estimator and
model_dir's latest checkpoint in agreement, with no state of a failed run as the latest.
"""

import logging
import os
import re

import pytest
from test_training import _AtStep, clicks, wide_deep

import colonnade as cn

E = cn.estimators
pytestmark = pytest.mark.usefixtures("ray_cluster")


def data():
    return cn.data.Dataset.from_pandas(clicks(), label="clicked").batch(16).repeat()


def step_of(path) -> int:
    return int(os.path.basename(path).rsplit("-", 1)[1])


def assert_estimator_holds_the_latest_checkpoint(est):
    latest = est.latest_checkpoint()
    assert est.global_step == step_of(latest) == int(cn.train.load_variable(latest, "global_step"))


def test_a_server_killed_at_step_1_restarts_from_the_first_checkpoint(tmp_path, caplog):
    """It said "model_dir holds a checkpoint of a different model": the checkpoint a
    failed server restarts from was written before the optimizers had made their slots."""
    import ray

    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=2, mode="async")
    est = wide_deep(tmp_path, "dist", strategy=strategy, save_checkpoints_steps=100)
    kill = _AtStep(1, lambda: ray.kill(cn.distribute.current_run().server_actors[1]))
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        est.train(data(), max_steps=12, hooks=[kill], verbose=0)
    assert est.global_step == 12
    assert re.search(
        r"restored every parameter server from checkpoint .*model\.ckpt-0 ", caplog.text
    )


def test_a_failing_hook_in_async_mode_leaves_no_later_checkpoint_as_the_latest(tmp_path):
    """The chief's hooks run a little after the workers: a checkpoint of step 29 could be
    written before a hook failed at step 12, and stayed the latest."""
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="async")
    est = wide_deep(tmp_path, "dist", strategy=strategy, save_checkpoints_steps=4)

    def fail():
        raise ValueError("a hook failed")

    hook = _AtStep(10, fail)
    with pytest.raises(ValueError, match="a hook failed"):
        est.train(data(), max_steps=60, hooks=[hook], verbose=0)
    assert step_of(est.latest_checkpoint()) < hook.done_at
    assert_estimator_holds_the_latest_checkpoint(est)
    names = os.listdir(tmp_path / "dist")
    assert all(
        step_of(n.split(".failed-run")[0]) > hook.done_at - 1 for n in names if "failed" in n
    )


def test_a_killed_coordinator_is_a_job_failure_naming_it(tmp_path):
    import ray

    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="async")
    est = wide_deep(tmp_path, "dist", strategy=strategy, save_checkpoints_steps=4)

    def kill():
        ray.kill(cn.distribute.current_run().cluster.hosts["coordinator"])

    with pytest.raises(cn.distribute.JobFailure, match=r"^the coordinator died .* resume from it"):
        est.train(data(), max_steps=60, hooks=[_AtStep(6, kill)], verbose=0)
    assert_estimator_holds_the_latest_checkpoint(est)


def test_giving_up_on_a_worker_leaves_the_estimator_at_the_latest_checkpoint(tmp_path, monkeypatch):
    """It was at step 35 while the latest checkpoint was step 54 (the hooks' step, not the
    variables')."""
    import ray

    from colonnade.distribute import cluster

    monkeypatch.setattr(cluster, "WORKER_REPLACEMENTS", 0)  # give up at the first death
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="async")
    est = wide_deep(tmp_path, "dist", strategy=strategy, save_checkpoints_steps=4)
    kill = _AtStep(9, lambda: ray.kill(cn.distribute.current_run().worker_actors[1]))
    with pytest.raises(cn.distribute.JobFailure, match="worker 1 died 1 times"):
        est.train(data(), max_steps=200, hooks=[kill], verbose=0)
    assert_estimator_holds_the_latest_checkpoint(est)
    assert est.global_step >= 8  # the checkpoints before the failure stay
