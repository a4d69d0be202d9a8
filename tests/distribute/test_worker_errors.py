"""Issue 41 (WEAK, Other): an error raised in a Ray worker's step (bad data, a bad
label) reached the caller as a 58-line ``RayTaskError`` (the worker's traceback inside),
naming a row of the batch only. It is now the original exception type with a short
message naming the worker, its batch and that batch's rows in the worker's shard."""

import numpy as np
import pytest
from test_training import clicks, wide_deep

import colonnade as cn

pytestmark = pytest.mark.usefixtures("ray_cluster")


def test_a_bad_label_in_a_workers_batch_is_the_original_error_naming_its_rows(tmp_path):
    frame = clicks()
    frame.loc[100, "clicked"] = 7  # batch 6 of the data (rows 96 to 111)
    data = cn.data.Dataset.from_pandas(frame, label="clicked").batch(16)
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="async")
    est = wide_deep(tmp_path, "bad_label", strategy=strategy)
    with pytest.raises(ValueError) as raised:
        est.train(data, max_steps=100, verbose=0)
    error = raised.value
    assert type(error) is ValueError, type(error).__mro__
    message = str(error)
    assert len(message.splitlines()) <= 2, message
    # the in-memory data's batches go in turn to the workers: batch 6 is worker 0's
    # batch 3, its rows 48 to 63
    assert message.startswith(
        "worker 0 of 2, in its batch 3 (rows 48 to 63 of its shard): Labels must be <= "
    ), message
    assert "got values from 0 to 7" in message
    assert np.isfinite(est.global_step)
