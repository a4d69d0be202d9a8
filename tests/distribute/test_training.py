"""Parameter-server training on Ray (``cn.distribute.RayStrategy``).

Sync training is checked against single-process training on the same data, order and
seed (the reference is colonnade's single-process loop, itself checked against TF-made
golden values elsewhere): one worker equals it, two workers fed alternate batches equal
it at twice the batch size. Async training is checked on quality, faults on reaching
``max_steps`` and on the logged count of lost steps, and every bad input on its error.
"""

import logging
import re
import uuid

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import colonnade as cn

fc = cn.feature_columns
E = cn.estimators

pytestmark = pytest.mark.usefixtures("ray_cluster")


def clicks(n=192, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "site": rng.integers(0, 30, n),
            "ad": rng.integers(0, 9, n),
            "price": rng.normal(size=n).astype(np.float32),
        }
    )
    df["clicked"] = ((df.site % 3 == 0) | (df.price > 1.0)).astype(np.int64)
    return df


def wide_deep(tmp_path, name, optimizer="Adagrad", strategy=None, **config):
    site = fc.categorical_column_with_identity("site", 30)
    ad = fc.categorical_column_with_identity("ad", 9)
    cfg = E.RunConfig(tf_random_seed=7, save_summary_steps=0, train_distribute=strategy, **config)
    return E.DNNLinearCombinedClassifier(
        linear_feature_columns=[site, ad],
        dnn_feature_columns=[
            fc.embedding_column(site, 4),
            fc.embedding_column(ad, 3),
            fc.numeric_column("price"),
        ],
        dnn_hidden_units=[6],
        linear_optimizer=optimizer,
        dnn_optimizer=optimizer,
        model_dir=str(tmp_path / name),
        config=cfg,
    )


def everything(est) -> dict:
    """Every variable of the estimator's checkpoint, optimizer slots included."""
    return {n: est.get_variable_value(n) for n in est.get_variable_names()}


def assert_same_state(a, b, atol=1e-6):
    va, vb = everything(a), everything(b)
    assert sorted(va) == sorted(vb)
    for name in va:
        np.testing.assert_allclose(vb[name], va[name], atol=atol, rtol=0, err_msg=name)


def test_sync_with_one_worker_equals_single_process(tmp_path):
    df = clicks()
    single = wide_deep(tmp_path, "single")
    single.train(cn.data.Dataset.from_pandas(df, label="clicked").batch(16), verbose=0)
    strategy = cn.distribute.RayStrategy(num_workers=1, num_ps=1, mode="sync")
    dist = wide_deep(tmp_path, "dist", strategy=strategy)
    initial = dist.get_weights()
    dist.train(cn.data.Dataset.from_pandas(df, label="clicked").batch(16), verbose=0)
    assert dist.global_step == single.global_step == 12
    assert_same_state(single, dist)
    moved = [k for k, v in dist.get_weights().items() if not np.allclose(v, initial[k])]
    assert len(moved) == len(initial)  # every variable trained: the equality is not vacuous
    # ordinary checkpoints: a single-process estimator on the model_dir reads them
    reader = wide_deep(tmp_path, "dist")
    assert_same_state(dist, reader, atol=0)
    assert reader.evaluate(df, label="clicked", verbose=0)["global_step"] == 12


@pytest.mark.parametrize("optimizer", ["GradientDescent", "Adagrad", "Ftrl"])
def test_sync_with_two_workers_equals_single_process_at_twice_the_batch(tmp_path, optimizer):
    df = clicks()
    single = wide_deep(tmp_path, "single", optimizer)
    single.train(cn.data.Dataset.from_pandas(df, label="clicked").batch(32), verbose=0)
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=2, mode="sync")
    dist = wide_deep(tmp_path, "dist", optimizer, strategy=strategy)
    dist.train(cn.data.Dataset.from_pandas(df, label="clicked").batch(16), verbose=0)
    assert dist.global_step == single.global_step == 6
    assert_same_state(single, dist)


def test_sync_resumes_from_the_latest_checkpoint(tmp_path):
    data = cn.data.Dataset.from_pandas(clicks(), label="clicked").batch(16).repeat()
    single = wide_deep(tmp_path, "single")
    single.train(data, max_steps=8, verbose=0)
    single.train(data, max_steps=20, verbose=0)
    strategy = cn.distribute.RayStrategy(num_workers=1, num_ps=2, mode="sync")
    first, second = _Actors(), _Actors()
    wide_deep(tmp_path, "dist", strategy=strategy).train(
        data, max_steps=8, hooks=[first], verbose=0
    )
    again = cn.distribute.RayStrategy(num_workers=1, num_ps=2, mode="sync")
    resumed = wide_deep(tmp_path, "dist", strategy=again)  # as a new process would
    resumed.train(data, max_steps=20, hooks=[second], verbose=0)
    assert resumed.global_step == 20
    assert_same_state(single, resumed)
    # the actor processes outlive a run (kept by the driver, not by the strategy)
    assert len(first.actors) == 3 and second.actors == first.actors


class _Actors(E.SessionRunHook):
    """The worker and server actors of the run in progress, as a hook finds them."""

    def begin(self):
        run = cn.distribute.current_run()
        self.actors = {*run.worker_actors, *run.server_actors}


@pytest.mark.parametrize("kind", ["parquet", "tfrecord"])
def test_each_worker_reads_whole_files_of_a_glob(tmp_path, kind):
    df = clicks(80)
    folder = tmp_path / "data"
    folder.mkdir()
    for i, part in enumerate([df.iloc[:64], df.iloc[64:]]):  # 4 batches of 16, and 1
        if kind == "parquet":
            part.to_parquet(folder / f"part-{i}.parquet")
        else:
            cn.io.write_tfrecord(part.reset_index(drop=True), folder / f"part-{i}.tfrecord")
    if kind == "parquet":
        data = cn.data.Dataset.from_parquet(str(folder / "*.parquet"), label="clicked")
    else:
        F = cn.io.FixedLenFeature
        spec = {
            "site": F([], "int64"),
            "ad": F([], "int64"),
            "price": F([], "float32"),
            "clicked": F([], "int64"),
        }
        data = cn.data.Dataset.from_tfrecord(str(folder / "*.tfrecord"), spec, label="clicked")
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="sync")
    est = wide_deep(tmp_path, "m", strategy=strategy)
    est.train(lambda: data.batch(16), verbose=0)
    # whole files: worker 0 trains 4 batches, worker 1 one (then leaves the rounds); a cut
    # by rows would give each 40 rows, 3 batches
    assert est.global_step == 4
    assert est.last_run.rows == 80 and est.last_run.steps == 5


def test_async_wide_and_deep_on_adult_is_as_good_as_single_process(tmp_path):
    from colonnade.demo import load_adult

    train = load_adult("train").sample(3000, random_state=0).reset_index(drop=True)
    test = load_adult("test").head(1000)
    age = fc.numeric_column("age", normalizer_fn=fc.standardize(38.0, 13.0))
    years = fc.numeric_column("educational-num", normalizer_fn=fc.standardize(10.0, 2.5))
    hours = fc.numeric_column("hours-per-week", normalizer_fn=fc.standardize(40.0, 12.0))
    marital = fc.categorical_column_with_hash_bucket("marital-status", 16)
    occupation = fc.categorical_column_with_hash_bucket("occupation", 32)
    relationship = fc.categorical_column_with_hash_bucket("relationship", 16)

    def model(name, strategy=None):
        return E.DNNLinearCombinedClassifier(
            linear_feature_columns=[marital, occupation, relationship],
            linear_optimizer={"name": "Ftrl", "learning_rate": 0.5},
            dnn_feature_columns=[
                age,
                years,
                hours,
                fc.embedding_column(occupation, 4),
                fc.embedding_column(marital, 4),
            ],
            dnn_hidden_units=[16, 8],
            dnn_optimizer={"name": "Adagrad", "learning_rate": 0.3},
            label_vocabulary=["<=50K", ">50K"],
            model_dir=str(tmp_path / name),
            config=E.RunConfig(tf_random_seed=1, save_summary_steps=0, train_distribute=strategy),
        )

    single = model("single")
    single.fit(train, label="income", epochs=4, batch_size=32, verbose=0)
    dist = model("dist", cn.distribute.RayStrategy(num_workers=2, num_ps=2, mode="async"))
    dist.fit(train, label="income", epochs=4, batch_size=32, verbose=0)
    a = single.evaluate(test, label="income", verbose=0)["accuracy"]
    b = dist.evaluate(test, label="income", verbose=0)["accuracy"]
    assert a > 0.79  # always "<=50K" scores 0.76
    assert abs(a - b) <= 0.01, (a, b)


class _AtStep(E.SessionRunHook):
    """Runs ``action`` once, after the first step at or beyond ``step``."""

    def __init__(self, step, action):
        self.step, self.action, self.done_at = step, action, None

    def before_run(self, run_context):
        return E.SessionRunArgs("global_step")

    def after_run(self, run_context, run_values):
        step = run_values.results + 1  # the global step after this step
        if self.done_at is None and step >= self.step:
            self.done_at = step
            self.action()


def test_a_killed_worker_is_replaced_and_training_reaches_max_steps(tmp_path, caplog):
    import ray

    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="async")
    adagrad = {"name": "Adagrad", "learning_rate": 0.5}
    est = wide_deep(tmp_path, "dist", adagrad, strategy=strategy)
    kill = _AtStep(6, lambda: ray.kill(cn.distribute.current_run().worker_actors[1]))
    data = cn.data.Dataset.from_pandas(clicks(), label="clicked").batch(16).repeat()
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        est.train(data, max_steps=60, hooks=[kill], verbose=0)
    assert kill.done_at is not None
    assert est.global_step == 60
    assert "worker 1 died" in caplog.text
    assert est.last_run.workers_replaced == 1 and est.last_run.steps_lost == 0
    held_out = clicks(seed=1)  # 62% not clicked; single-process training reaches 0.94
    assert est.evaluate(held_out, label="clicked", verbose=0)["accuracy"] > 0.8


def test_a_killed_parameter_server_costs_the_steps_since_the_last_checkpoint(tmp_path):
    import ray

    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=2, mode="async")
    est = wide_deep(tmp_path, "dist", strategy=strategy, save_checkpoints_steps=5)
    events = []  # ("saved", step) and ("log", message), in the order they happened

    class Events(logging.Handler):
        def emit(self, record):
            events.append(("log", record.getMessage()))

    def listener(path):
        events.append(("saved", int(path.rsplit("-", 1)[1])))

    kill = _AtStep(12, lambda: ray.kill(cn.distribute.current_run().server_actors[1]))
    data = cn.data.Dataset.from_pandas(clicks(), label="clicked").batch(16).repeat()
    handler, logger = Events(level=logging.WARNING), logging.getLogger("colonnade")
    logger.addHandler(handler)
    try:
        est.train(data, max_steps=30, hooks=[kill], saving_listeners=[listener], verbose=0)
    finally:
        logger.removeHandler(handler)
    assert est.global_step == 30
    pattern = r"died at global step (\d+); restored .* \(step (\d+)\): (\d+) steps lost"
    (at,) = [i for i, (kind, x) in enumerate(events) if kind == "log" and re.search(pattern, x)]
    reached, restored, lost = map(int, re.search(pattern, events[at][1]).groups())
    # the newest checkpoint written before the failure was found (checkpoints are named
    # by the step of the snapshot they hold, which the hooks see a little after it)
    assert restored == [x for kind, x in events[:at] if kind == "saved"][-1]
    assert lost == reached - restored and reached >= kill.done_at
    assert est.last_run.steps_lost == lost
    assert events[-1] == ("saved", 30)


# ---------------------------------------------------------------- errors


def test_num_ps_larger_than_a_table_is_refused(tmp_path):
    strategy = cn.distribute.RayStrategy(num_workers=1, num_ps=3)
    est = E.LinearClassifier(
        [fc.categorical_column_with_identity("flag", 2)],
        model_dir=str(tmp_path / "m"),
        config=E.RunConfig(train_distribute=strategy),
    )
    data = cn.data.Dataset.from_dict({"flag": [0, 1], "y": [0, 1]}, label="y").batch(2)
    with pytest.raises(
        ValueError,
        match=r"num_ps=3 is larger than the 2 rows of table "
        r"'linear/linear_model/flag/weights'",
    ):
        est.train(data, verbose=0)


def test_an_empty_worker_shard_is_an_error_naming_the_worker(tmp_path):
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1)
    est = wide_deep(tmp_path, "m", strategy=strategy)
    one_batch = cn.data.Dataset.from_pandas(clicks(8), label="clicked").batch(8)
    with pytest.raises(ValueError, match=r"worker 1 got an empty shard of the input"):
        est.train(one_batch, verbose=0)


def test_a_python_generator_is_not_a_distributable_input(tmp_path):
    strategy = cn.distribute.RayStrategy(num_workers=2)
    est = wide_deep(tmp_path, "m", strategy=strategy)
    df = clicks(16)

    def batches():
        yield df.drop(columns="clicked"), df["clicked"].to_numpy()

    for input_fn in (batches, batches()):
        with pytest.raises(TypeError, match=r"each worker can read its own shard.*generator"):
            est.train(input_fn, verbose=0)


def test_an_unreachable_address_is_a_clear_error(tmp_path):
    strategy = cn.distribute.RayStrategy(address="ray://127.0.0.1:1")
    est = wide_deep(tmp_path, "m", strategy=strategy)
    data = cn.data.Dataset.from_pandas(clicks(16), label="clicked").batch(8)
    with pytest.raises(
        ConnectionError, match=r"cannot reach the Ray cluster at 'ray://127.0.0.1:1'"
    ):
        est.train(data, verbose=0)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"num_workers": 0}, "num_workers must be an integer >= 1, got 0"),
        ({"num_ps": 1.5}, "num_ps must be an integer >= 1, got 1.5"),
        ({"mode": "ssync"}, "mode must be one of"),
        ({"worker_resources": {"gpus": 1}}, r"unknown keys \['gpus'\]"),
        ({"address": ""}, "address must be None, 'auto'"),
    ],
)
def test_strategy_arguments_are_validated(kwargs, error):
    with pytest.raises(ValueError, match=error):
        cn.distribute.RayStrategy(**kwargs)


def test_a_strategy_is_a_definition_equal_and_hashable_by_its_arguments():
    import copy
    import pickle

    make = cn.distribute.RayStrategy
    resources = {"num_cpus": 2, "resources": {"ssd": 1}}
    a = make(num_workers=3, worker_resources=resources)
    resources["num_cpus"] = 8  # the caller's dict is not the strategy's
    b = make(num_workers=3, worker_resources={"num_cpus": 2, "resources": {"ssd": 1}})
    assert a == b and hash(a) == hash(b) and len({a, b, make(), make()}) == 2
    assert a != make(num_workers=3, worker_resources={"num_cpus": 2})
    assert a.worker_resources == {"num_cpus": 2, "resources": {"ssd": 1}}
    for change in (
        lambda: a.worker_resources.update(num_cpus=4),
        lambda: a.worker_resources["resources"].pop("ssd"),
    ):
        with pytest.raises(TypeError, match="worker_resources is read-only"):
            change()
    with pytest.raises(AttributeError):
        a.num_workers = 4
    assert pickle.loads(pickle.dumps(a)) == a == copy.deepcopy(a)
    assert not hasattr(a, "last_run") and not hasattr(a, "cluster")


def test_current_run_outside_a_distributed_train_is_an_error():
    with pytest.raises(RuntimeError, match="current_run.. is called outside a distributed"):
        cn.distribute.current_run()


def test_a_worker_copy_carries_no_training_state(tmp_path):
    from colonnade.estimators.runtime import distributed as trainer

    strategy = cn.distribute.RayStrategy(num_workers=1)
    est = wide_deep(tmp_path, "m", strategy=strategy)
    est.config = est.config.replace(train_distribute=None)  # train here, with state
    est.train(cn.data.Dataset.from_pandas(clicks(32), label="clicked").batch(16), verbose=0)
    est.config = est.config.replace(train_distribute=strategy)
    sent = trainer.estimator_for_worker(est)
    assert sent.config.train_distribute is None and est.config.train_distribute is strategy
    for (optimizer, variables), (theirs, _) in zip(
        sent.train_state.trained_parts(), est.train_state.trained_parts()
    ):
        assert type(optimizer) is type(theirs) and int(theirs.iterations.numpy()) == 2
        assert int(optimizer.iterations.numpy()) == 0
        names = theirs.get_slot_names()
        assert names and all(theirs.get_slot(v, n) is not None for v in variables for n in names)
        assert all(optimizer.get_slot(v, n) is None for v in variables for n in names)
    ours, theirs = sent.train_state.model_variables(), est.train_state.model_variables()
    assert all(ours[k] is theirs[k] for k in theirs)  # shared until pickled


def test_a_malformed_address_is_refused_when_joining():
    with pytest.raises(ValueError, match="address must be 'auto', 'ray://host:port'"):
        cn.distribute.strategy.connect("nowhere")


def test_run_config_refuses_what_is_not_a_strategy():
    with pytest.raises(TypeError, match="train_distribute must be a cn.distribute.RayStrategy"):
        E.RunConfig(train_distribute=object())


def test_batch_norm_is_refused_with_a_reason(tmp_path):
    strategy = cn.distribute.RayStrategy(num_workers=1)
    est = E.DNNClassifier(
        [4],
        [fc.numeric_column("price")],
        batch_norm=True,
        model_dir=str(tmp_path / "m"),
        config=E.RunConfig(train_distribute=strategy),
    )
    data = cn.data.Dataset.from_pandas(clicks(16), label="clicked").batch(8)
    with pytest.raises(ValueError, match="cannot train batch_norm=True: its moving mean"):
        est.train(data, verbose=0)


# ---------------------------------------------------------------- placement (no actors)


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 500),
    num_ps=st.integers(1, 8),
    touched=st.lists(st.integers(0, 10**6), max_size=40),
)
def test_tables_are_cut_as_fixed_size_partitioner_and_rows_find_their_server(rows, num_ps, touched):
    from colonnade.distribute.placement import Placement, VariableInfo

    infos = [[VariableInfo("t", (rows, 3), True), VariableInfo("k", (4, 2), False)]]
    if rows < num_ps:
        with pytest.raises(ValueError, match=f"num_ps={num_ps} is larger than the {rows} rows"):
            Placement.build(infos, num_ps)
        return
    plan = Placement.build(infos, num_ps)
    bounds = np.array(plan.variables[0].bounds)
    sizes = np.diff(bounds)
    # TF's fixed_size_partitioner: rows // num_ps each, the first rows % num_ps one more
    expected = [rows // num_ps + (1 if s < rows % num_ps else 0) for s in range(num_ps)]
    assert bounds[0] == 0 and bounds[-1] == rows and sizes.tolist() == expected
    ids = np.unique(np.array(touched, dtype=np.int64) % rows)
    seen = np.zeros(0, np.int64)
    for server, local, mask in plan.split_rows(0, ids):
        assert ((0 <= local) & (local < sizes[server])).all()
        np.testing.assert_array_equal(local + bounds[server], ids[mask])
        seen = np.concatenate([seen, ids[mask]])
    np.testing.assert_array_equal(np.sort(seen), ids)
    assert plan.variables[1].server == 0 and plan.on_server(0)[:2] == [0, 1]


def test_a_custom_model_fn_estimator_is_refused(tmp_path):
    def model_fn(features, labels, mode):
        w = cn.core.get_variable("w", shape=(1, 1))
        logits = np.asarray(features["price"], np.float32).reshape(-1, 1) @ w
        return E.EstimatorSpec(
            mode, loss=cn.core.mean(logits), train_op=cn.train.GradientDescentOptimizer(0.1)
        )

    strategy = cn.distribute.RayStrategy(num_workers=1)
    est = E.Estimator(
        model_fn, model_dir=str(tmp_path / "m"), config=E.RunConfig(train_distribute=strategy)
    )
    data = cn.data.Dataset.from_pandas(clicks(16), label="clicked").batch(8)
    with pytest.raises(TypeError, match="train_distribute trains the canned estimators"):
        est.train(data, verbose=0)


# ------------------------------------------------------------ input from Ray Data


def ray_clicks(df, record_to=None):
    """``df`` as a lazy Ray dataset of 4 blocks; with ``record_to``, every row Ray yields
    leaves its ``row`` id in a file there (written by the Ray task that produced it)."""
    import ray

    data = ray.data.from_pandas(df.assign(row=np.arange(len(df)))).repartition(4)
    if record_to is None:
        return data

    def record(batch):
        path = record_to / f"{batch['row'].iloc[0]}-{len(batch)}-{uuid.uuid4().hex}.npy"
        np.save(path, batch["row"].to_numpy())
        return batch

    return data.map_batches(record, batch_format="pandas")


def test_sync_workers_each_stream_a_part_of_a_ray_dataset_and_read_every_row_once(tmp_path):
    seen = tmp_path / "seen"
    seen.mkdir()
    data = ray_clicks(clicks(192), seen)
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="sync")
    est = wide_deep(tmp_path, "dist", strategy=strategy)
    for epoch in (1, 2):
        dataset = cn.data.Dataset.from_ray(data, label="clicked").batch(16)
        for f in seen.iterdir():  # what Ray ran to learn the schema is not an epoch's read
            f.unlink()
        est.train(dataset, verbose=0)
        # 96 rows a worker: 6 synchronous steps of 2 batches of 16
        assert est.global_step == 6 * epoch
        assert est.last_run.rows == 192
        ids = np.sort(np.concatenate([np.load(f) for f in seen.iterdir()]))
        np.testing.assert_array_equal(ids, np.arange(192))  # Ray yielded each row once


def test_sync_with_one_worker_from_a_ray_dataset_equals_single_process(tmp_path):
    data = ray_clicks(clicks()).materialize()
    single = wide_deep(tmp_path, "single")
    single.train(cn.data.Dataset.from_ray(data, label="clicked").batch(16), verbose=0)
    strategy = cn.distribute.RayStrategy(num_workers=1, num_ps=1, mode="sync")
    dist = wide_deep(tmp_path, "dist", strategy=strategy)
    dist.train(cn.data.Dataset.from_ray(data, label="clicked").batch(16), verbose=0)
    assert dist.global_step == single.global_step == 12
    assert_same_state(single, dist)


def test_two_workers_on_a_ray_dataset_train_to_max_steps_as_well_as_pandas(tmp_path):
    # 2 epochs of 3072 rows: each epoch is a new split of the Ray dataset (seconds to
    # start), so the 192 steps are taken in few epochs of more rows
    df = clicks(3072, seed=1)
    test = clicks(512, seed=2)

    def adagrad():
        return cn.core.optimizers.AdagradOptimizer(learning_rate=0.5)

    single = wide_deep(tmp_path, "single", adagrad())
    single.fit(df, label="clicked", batch_size=32, epochs=2, shuffle=False, verbose=0)
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=2, mode="sync")
    dist = wide_deep(tmp_path, "dist", adagrad(), strategy=strategy)
    dist.fit(ray_clicks(df), label="clicked", batch_size=16, epochs=2, shuffle=False, verbose=0)
    assert dist.global_step == single.global_step == 2 * 96
    want = single.evaluate(test, label="clicked", verbose=0)["accuracy"]
    got = dist.evaluate(test, label="clicked", verbose=0)["accuracy"]
    assert want > 0.95  # learned: the comparison is not between two coin flips
    assert abs(got - want) <= 0.01
    more = cn.data.Dataset.from_ray(ray_clicks(df), label="clicked").batch(16).repeat()
    dist.train(more, max_steps=2 * 96 + 20, verbose=0)
    assert dist.global_step == 2 * 96 + 20


def test_a_ray_dataset_with_fewer_rows_than_workers_is_refused(tmp_path):
    # 2 workers, as the other tests: a third would be a new actor process (seconds)
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="sync")
    est = wide_deep(tmp_path, "dist", strategy=strategy)
    tiny = ray_clicks(clicks(1)).materialize()
    with pytest.raises(ValueError, match="1 rows, fewer than the 2 workers"):
        est.fit(tiny, label="clicked", batch_size=16, verbose=0)
    with pytest.raises(ValueError, match="worker .* empty shard .*Ray dataset"):  # lazy: at run
        est.fit(ray_clicks(clicks(1)), label="clicked", batch_size=16, verbose=0)


def test_a_bare_ray_dataset_in_distributed_train_names_from_ray(tmp_path):
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1)
    est = wide_deep(tmp_path, "dist", strategy=strategy)
    with pytest.raises(TypeError, match="Dataset.from_ray"):
        est.train(ray_clicks(clicks(8)), verbose=0)


def test_a_killed_worker_reading_a_materialized_ray_dataset_is_replaced(tmp_path, caplog):
    import ray

    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="async")
    adagrad = {"name": "Adagrad", "learning_rate": 0.5}
    est = wide_deep(tmp_path, "dist", adagrad, strategy=strategy)
    kill = _AtStep(6, lambda: ray.kill(cn.distribute.current_run().worker_actors[1]))
    # 16k rows a worker: the input thread's first chunk is one pass over its part
    materialized = ray_clicks(clicks(32768)).materialize()
    # async passes over a materialized dataset: refused for a lazy one (see below)
    data = cn.data.Dataset.from_ray(materialized, label="clicked").batch(16).repeat()
    with caplog.at_level(logging.WARNING, logger="colonnade"):
        est.train(data, max_steps=60, hooks=[kill], verbose=0)
    assert kill.done_at is not None
    assert est.global_step == 60
    assert "worker 1 died" in caplog.text
    assert est.last_run.workers_replaced == 1
    held_out = clicks(seed=1)  # 62% not clicked; single-process training reaches 0.94
    assert est.evaluate(held_out, label="clicked", verbose=0)["accuracy"] > 0.8


def test_a_materialized_ray_dataset_is_split_into_row_ranges_read_once_a_pass(tmp_path):
    seen = tmp_path / "seen"
    seen.mkdir()
    data = ray_clicks(clicks(190), seen).materialize()
    for f in seen.iterdir():  # what materialize ran
        f.unlink()
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="sync")
    est = wide_deep(tmp_path, "dist", strategy=strategy)
    est.train(cn.data.Dataset.from_ray(data, label="clicked").batch(19), verbose=0)
    assert list(seen.iterdir()) == []  # the blocks were read from the object store
    assert est.last_run.rows == 190  # 95 rows a worker: 5 sync steps of 2 x 19
    assert est.global_step == 5


def test_repeat_over_a_ray_split_in_async_mode_is_refused_before_it_could_hang(tmp_path):
    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="async")
    est = wide_deep(tmp_path, "dist", strategy=strategy)
    data = cn.data.Dataset.from_ray(ray_clicks(clicks()), label="clicked").batch(16)
    with pytest.raises(ValueError, match='repeat.. over a Ray dataset with mode="async"'):
        est.train(data.repeat(), max_steps=30, verbose=0)
    est.train(data, verbose=0)  # one pass: each worker ends its part and leaves
    assert est.global_step == 12


# Last: the killed worker is not replaced (a Ray split part cannot be handed over), so a
# test after it would start a new actor process in its place (seconds).
def test_a_killed_worker_reading_a_ray_split_stops_the_job_with_a_reason(tmp_path):
    import ray

    strategy = cn.distribute.RayStrategy(num_workers=2, num_ps=1, mode="sync")
    est = wide_deep(tmp_path, "dist", strategy=strategy)
    kill = _AtStep(3, lambda: ray.kill(cn.distribute.current_run().worker_actors[1]))
    rows = ray_clicks(clicks(4096))  # few passes (each a split barrier) to a first chunk
    data = cn.data.Dataset.from_ray(rows, label="clicked").batch(16).repeat()
    with pytest.raises(RuntimeError, match="worker 1 died.*streaming_split"):
        est.train(data, max_steps=60, hooks=[kill], verbose=0)
    assert kill.done_at is not None
