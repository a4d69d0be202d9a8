"""The same seed and data give the same weights, bit for bit, under any load and BLAS
thread setting (issue 41: seed 0 twice gave RMSE 13.1383 and 13.1553, the BLAS thread
count following the machine's idle cores).

Each fit runs in a fresh process under another thread setting (OpenBLAS's and OpenMP's
environment, colonnade's fixed count, a neighbour process keeping a core busy) and
prints a digest of every variable's bytes; the digests must all be equal.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from colonnade.core import threads

FIT = textwrap.dedent(
    """
    import hashlib, tempfile
    import numpy as np, pandas as pd
    import colonnade as cn

    rng = np.random.default_rng(0)
    n, d = 2048, 12
    x = rng.normal(size=(n, d)).astype(np.float32)
    frame = pd.DataFrame(x, columns=[f"x{i}" for i in range(d)])
    frame["label"] = (x @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(np.int64)
    columns = [cn.feature_columns.numeric_column(f"x{i}") for i in range(d)]
    digest = hashlib.sha256()
    with tempfile.TemporaryDirectory() as tmp:
        model = cn.estimators.DNNLinearCombinedClassifier(
            linear_feature_columns=columns, dnn_feature_columns=columns,
            dnn_hidden_units=[256, 64], model_dir=tmp,
            config=cn.estimators.RunConfig(tf_random_seed=0),
        )
        model.fit(frame, label="label", epochs=2, batch_size=512)
        for name in sorted(model.get_variable_names()):
            value = np.ascontiguousarray(model.get_variable_value(name))
            digest.update(name.encode() + value.tobytes())
    print("DIGEST", digest.hexdigest())

    # A float64 ridge design's eigendecomposition (the zero-config linear model's): LAPACK
    # rounds it differently with 1 and 2 threads, so only a count fixed by shape repeats it.
    from colonnade.estimators.tabular.linear import gram

    wide = rng.normal(size=(3000, 600))
    s, v, mean = gram(wide)
    print("LAPACK", hashlib.sha256(s.tobytes() + v.tobytes() + mean.tobytes()).hexdigest())
    """
)

SETTINGS = {
    "OpenBLAS and OpenMP at 1 thread": {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    "OpenBLAS and OpenMP at 2 threads": {"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "2"},
    "colonnade fixed at 1 thread": {"COLONNADE_BLAS_THREADS": "1"},
    "colonnade fixed at 2 threads": {"COLONNADE_BLAS_THREADS": "2"},
}


def fit_digests(env: dict, neighbour: bool = False) -> dict:
    """``{"DIGEST": the fit's weights, "LAPACK": the decomposition}``, from a fresh process
    run with ``env``."""
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    environment.pop("COLONNADE_BLAS_THREADS", None)
    environment.update(env)
    busy = None
    if neighbour:  # a process keeping a core busy for the whole fit
        busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        out = subprocess.run(
            [sys.executable, "-c", FIT],
            env=environment,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        if busy is not None:
            busy.kill()
            busy.wait()
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line.split() for line in out.stdout.splitlines()]
    return {line[0]: line[1] for line in lines if len(line) == 2}


@pytest.fixture(scope="module")
def default_digests():
    return fit_digests({})


@pytest.mark.parametrize("setting", list(SETTINGS))
def test_a_fit_gives_the_same_bits_under_another_thread_setting(default_digests, setting):
    got = fit_digests(SETTINGS[setting])
    assert got["DIGEST"] == default_digests["DIGEST"]
    if "COLONNADE_BLAS_THREADS" not in SETTINGS[setting]:  # colonnade chooses the count
        assert got["LAPACK"] == default_digests["LAPACK"]


def test_a_fit_gives_the_same_bits_while_a_neighbour_keeps_a_core_busy(default_digests):
    assert fit_digests({}, neighbour=True) == default_digests


def test_the_default_thread_choice_never_reads_the_machine_load(monkeypatch):
    """By default the count is a function of the product's size and the process's CPUs:
    the load readings are not consulted, so they cannot change a model."""

    def unread(*args):
        raise AssertionError("the default thread choice read the machine's load")

    threads.set_blas_threads(None)
    threads.set_cpu_share(4)
    monkeypatch.setattr(threads, "cpu_times", unread)
    monkeypatch.setattr(threads.os, "getloadavg", unread)
    try:
        counts = [threads.threads_for(k * threads.MIN_FLOPS_PER_THREAD) for k in (0, 1, 2, 3, 99)]
    finally:
        monkeypatch.undo()
        threads.set_cpu_share(None)
        threads.set_blas_threads(threads.blas_threads_from_environment())
    assert counts == [1, 1, 2, 3, 4]


def test_load_is_an_opt_in_setting(monkeypatch):
    monkeypatch.setenv("COLONNADE_BLAS_THREADS", "load")
    assert threads.blas_threads_from_environment() == threads.BY_LOAD
    monkeypatch.setenv("COLONNADE_BLAS_THREADS", "loud")
    with pytest.raises(ValueError, match="a positive integer or 'load', got 'loud'"):
        threads.blas_threads_from_environment()
