"""Regenerate the pinned golden values of tests/core/test_{optimizers,schedules,moving_averages}.py.

Not imported by the tests and not a project dependency: it runs once, by hand, in a
throw-away environment with TensorFlow 2.15 (``pip install tensorflow-cpu==2.15.1``)::

    /work/tfenv/bin/python tests/core/golden/make_goldens.py

and rewrites ``optimizers.json``, ``schedules.json`` and ``moving_averages.json`` next to
this file with what ``tf.compat.v1.train`` (TF1's optimizers, decay functions and
``ExponentialMovingAverage``, run eagerly) computes. Hyperparameters are dyadic numbers
(0.125, 0.875, ...) so that TF's float32 hyperparameter tensors hold them exactly and the
float64 trajectories can be compared tightly.
"""

import json
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.training import moving_averages as tf_moving_averages

v1 = tf.compat.v1
HERE = os.path.dirname(os.path.abspath(__file__))
STEPS = 5
DENSE_SHAPE = (2, 3)
SPARSE_SHAPE = (6, 3)  # row 5 is never touched
SPARSE_INDICES = [[0, 3, 0], [1, 1, 4], [3, 0, 3], [2, 4, 2], [0, 0, 1]]

# (optimizer, id, kwargs): the kwargs are the same for TF and colonnade.
CASES = [
    ("GradientDescent", "lr", {"learning_rate": 0.125}),
    ("GradientDescent", "lr_big", {"learning_rate": 0.75}),
    ("Momentum", "plain", {"learning_rate": 0.125, "momentum": 0.875}),
    ("Momentum", "nesterov", {"learning_rate": 0.25, "momentum": 0.5, "use_nesterov": True}),
    ("Adagrad", "default_init", {"learning_rate": 0.125}),
    ("Adagrad", "init_1", {"learning_rate": 0.5, "initial_accumulator_value": 1.0}),
    ("AdagradDA", "plain", {"learning_rate": 0.125}),
    (
        "AdagradDA",
        "l1_l2",
        {
            "learning_rate": 0.5,
            "initial_gradient_squared_accumulator_value": 0.25,
            "l1_regularization_strength": 0.0625,
            "l2_regularization_strength": 0.125,
        },
    ),
    ("Adadelta", "lr_1", {"learning_rate": 1.0, "rho": 0.875, "epsilon": 2.0**-10}),
    ("Adadelta", "defaults", {}),
    ("Adam", "lr", {"learning_rate": 0.125, "beta1": 0.875, "beta2": 0.9375}),
    (
        "Adam",
        "eps_hat",
        {"learning_rate": 0.25, "beta1": 0.5, "beta2": 0.75, "epsilon": 0.125},
    ),
    ("Ftrl", "plain", {"learning_rate": 0.25}),
    (
        "Ftrl",
        "l1_l2",
        {
            "learning_rate": 0.5,
            "initial_accumulator_value": 0.25,
            "l1_regularization_strength": 0.0625,
            "l2_regularization_strength": 0.125,
        },
    ),
    (
        "Ftrl",
        "power_shrinkage",
        {
            "learning_rate": 0.5,
            "learning_rate_power": -0.25,
            "initial_accumulator_value": 0.5,
            "l1_regularization_strength": 0.03125,
            "l2_regularization_strength": 0.0625,
            "l2_shrinkage_regularization_strength": 0.125,
        },
    ),
    ("RMSProp", "plain", {"learning_rate": 0.125}),
    (
        "RMSProp",
        "momentum",
        {"learning_rate": 0.0625, "decay": 0.75, "momentum": 0.5, "epsilon": 2.0**-12},
    ),
    (
        "RMSProp",
        "centered",
        {
            "learning_rate": 0.0625,
            "decay": 0.875,
            "momentum": 0.25,
            "epsilon": 2.0**-10,
            "centered": True,
        },
    ),
    ("ProximalGradientDescent", "plain", {"learning_rate": 0.125}),
    (
        "ProximalGradientDescent",
        "l1_l2",
        {
            "learning_rate": 0.25,
            "l1_regularization_strength": 0.125,
            "l2_regularization_strength": 0.25,
        },
    ),
    ("ProximalAdagrad", "plain", {"learning_rate": 0.125}),
    (
        "ProximalAdagrad",
        "l1_l2",
        {
            "learning_rate": 0.5,
            "initial_accumulator_value": 0.5,
            "l1_regularization_strength": 0.0625,
            "l2_regularization_strength": 0.125,
        },
    ),
]


def _rounded(rng, shape):
    return np.round(rng.normal(size=shape), 3)


def run_optimizer(name, kwargs, mode, seed):
    rng = np.random.default_rng(seed)
    shape = DENSE_SHAPE if mode == "dense" else SPARSE_SHAPE
    init = _rounded(rng, shape)
    var = tf.Variable(init, dtype=tf.float64, name="w")
    global_step = tf.Variable(0, dtype=tf.int64, name="global_step")
    cls = getattr(v1.train, name + "Optimizer")
    tf_kwargs = dict(kwargs)
    if name.startswith("Proximal"):
        # TF's proximal kernels take the hyperparameters uncast: give them float64 tensors.
        tf_kwargs = {"l1_regularization_strength": 0.0, "l2_regularization_strength": 0.0}
        tf_kwargs.update(kwargs)
        tf_kwargs = {
            k: v if k == "initial_accumulator_value" else _lr(v) for k, v in tf_kwargs.items()
        }
    if name == "AdagradDA":
        tf_kwargs["global_step"] = global_step
    opt = cls(**tf_kwargs)
    grads, trajectory = [], []
    for step in range(STEPS):
        if mode == "dense":
            g = _rounded(rng, shape)
            grads.append(g.tolist())
            tf_grad = tf.constant(g)
        else:
            idx = SPARSE_INDICES[step]
            vals = _rounded(rng, (len(idx), shape[1]))
            grads.append({"indices": idx, "values": vals.tolist()})
            tf_grad = tf.IndexedSlices(
                tf.constant(vals), tf.constant(idx, tf.int64), tf.constant(shape, tf.int64)
            )
        opt.apply_gradients([(tf_grad, var)], global_step=global_step)
        trajectory.append(var.numpy().tolist())
    slots = {s: opt.get_slot(var, s).numpy().tolist() for s in opt.get_slot_names()}
    non_slot = {}
    if name == "Adam":
        b1, b2 = opt._get_beta_accumulators()
        non_slot = {"beta1_power": float(b1.numpy()), "beta2_power": float(b2.numpy())}
    return {
        "optimizer": name,
        "case": None,
        "mode": mode,
        "kwargs": kwargs,
        "init": init.tolist(),
        "grads": grads,
        "trajectory": trajectory,
        "slots": slots,
        "non_slot": non_slot,
        "global_step": int(global_step.numpy()),
    }


def optimizer_goldens():
    out = []
    for seed, (name, case, kwargs) in enumerate(CASES):
        for mode in ("dense", "sparse"):
            rec = run_optimizer(name, kwargs, mode, seed * 2 + (mode == "sparse"))
            rec["case"] = case
            out.append(rec)
    return out


def _lr(x):
    return tf.constant(x, tf.float64)


# (function, id, kwargs without global_step, steps)
SCHEDULES = [
    (
        "exponential_decay",
        "smooth",
        dict(learning_rate=0.5, decay_steps=10, decay_rate=0.25),
        [0, 1, 9, 10, 11, 25, 1000],
    ),
    (
        "exponential_decay",
        "staircase",
        dict(learning_rate=0.5, decay_steps=10, decay_rate=0.25, staircase=True),
        [0, 1, 9, 10, 11, 19, 20, 21, 1000],
    ),
    (
        "inverse_time_decay",
        "smooth",
        dict(learning_rate=0.5, decay_steps=10, decay_rate=0.5),
        [0, 1, 9, 10, 11, 1000],
    ),
    (
        "inverse_time_decay",
        "staircase",
        dict(learning_rate=0.5, decay_steps=10, decay_rate=0.5, staircase=True),
        [0, 1, 9, 10, 11, 19, 20, 21, 1000],
    ),
    (
        "natural_exp_decay",
        "smooth",
        dict(learning_rate=0.5, decay_steps=10, decay_rate=0.5),
        [0, 1, 9, 10, 11, 1000],
    ),
    (
        "natural_exp_decay",
        "staircase",
        dict(learning_rate=0.5, decay_steps=10, decay_rate=0.5, staircase=True),
        [0, 1, 9, 10, 11, 19, 20, 21, 100],
    ),
    (
        "polynomial_decay",
        "linear",
        dict(learning_rate=0.5, decay_steps=10, end_learning_rate=0.125),
        [0, 1, 5, 9, 10, 11, 1000],
    ),
    (
        "polynomial_decay",
        "power_defaults",
        dict(learning_rate=0.5, decay_steps=10, power=2.0),
        [0, 1, 9, 10, 11, 1000],
    ),
    (
        "polynomial_decay",
        "cycle",
        dict(learning_rate=0.5, decay_steps=10, end_learning_rate=0.125, power=0.5, cycle=True),
        [0, 1, 9, 10, 11, 19, 20, 21, 1000],
    ),
    (
        "piecewise_constant",
        "three",
        dict(boundaries=[10, 20], values=[1.0, 0.5, 0.25]),
        [0, 9, 10, 11, 19, 20, 21, 1000],
    ),
    (
        "cosine_decay",
        "default",
        dict(learning_rate=0.5, decay_steps=10),
        [0, 1, 5, 9, 10, 11, 1000],
    ),
    (
        "cosine_decay",
        "alpha",
        dict(learning_rate=0.5, decay_steps=10, alpha=0.25),
        [0, 1, 5, 9, 10, 11, 1000],
    ),
    (
        "cosine_decay_restarts",
        "default",
        dict(learning_rate=0.5, first_decay_steps=10),
        [0, 1, 9, 10, 11, 29, 30, 31, 69, 70, 71, 1000],
    ),
    (
        "cosine_decay_restarts",
        "t_mul_1",
        dict(learning_rate=0.5, first_decay_steps=10, t_mul=1.0, m_mul=0.5, alpha=0.125),
        [0, 1, 9, 10, 11, 19, 20, 21, 1000],
    ),
    (
        "cosine_decay_restarts",
        "t_mul_3",
        dict(learning_rate=0.5, first_decay_steps=4, t_mul=3.0, m_mul=0.75, alpha=0.0625),
        [0, 1, 3, 4, 5, 15, 16, 17, 51, 52, 53, 1000],
    ),
    (
        "linear_cosine_decay",
        "default",
        dict(learning_rate=0.5, decay_steps=10),
        [0, 1, 5, 9, 10, 11, 1000],
    ),
    (
        "linear_cosine_decay",
        "periods",
        dict(learning_rate=0.5, decay_steps=10, num_periods=2.0, alpha=0.25, beta=0.125),
        [0, 1, 5, 9, 10, 11, 1000],
    ),
    (
        "noisy_linear_cosine_decay",
        "no_variance",
        dict(learning_rate=0.5, decay_steps=10, initial_variance=0.0, num_periods=1.0),
        [0, 1, 5, 9, 10, 11, 1000],
    ),
]


def _tf_schedule(fn, kwargs, step, dtype):
    tf_kwargs = dict(kwargs)
    if "learning_rate" in tf_kwargs:
        tf_kwargs["learning_rate"] = tf.constant(tf_kwargs["learning_rate"], dtype)
    if fn == "piecewise_constant":
        tf_kwargs["values"] = [tf.constant(v, dtype) for v in tf_kwargs["values"]]
        result = v1.train.piecewise_constant(tf.constant(step, tf.int64), **tf_kwargs)
    else:
        result = getattr(v1.train, fn)(global_step=step, **tf_kwargs)
    return float((result() if callable(result) else result).numpy())


def schedule_goldens():
    out = []
    for fn, case, kwargs, steps in SCHEDULES:
        try:
            values = [_tf_schedule(fn, kwargs, step, tf.float64) for step in steps]
            dtype = "float64"
        except (tf.errors.InvalidArgumentError, ValueError):
            # Some TF schedules mix in float32 constants and reject a float64 learning rate.
            values = [_tf_schedule(fn, kwargs, step, tf.float32) for step in steps]
            dtype = "float32"
        out.append(
            {
                "fn": fn,
                "case": case,
                "kwargs": kwargs,
                "steps": steps,
                "values": values,
                "tf_dtype": dtype,
            }
        )
    return out


def ema_goldens():
    out = []
    rng = np.random.default_rng(99)
    for case, decay, use_num_updates in (("plain", 0.75, False), ("num_updates", 0.875, True)):
        init = _rounded(rng, (2, 3))
        w = tf.Variable(init, name="w")
        b = tf.Variable(np.array([0.5]), name="b")
        step = tf.Variable(0, dtype=tf.int64)
        ema = v1.train.ExponentialMovingAverage(
            decay, num_updates=step if use_num_updates else None
        )
        values, averages = [], []
        for _ in range(STEPS):
            new = _rounded(rng, (2, 3))
            w.assign(new)
            b.assign(b + 0.25)
            values.append(new.tolist())
            ema.apply([w, b])
            step.assign_add(1)
            averages.append(
                {"w": ema.average(w).numpy().tolist(), "b": ema.average(b).numpy().tolist()}
            )
        out.append(
            {
                "case": case,
                "decay": decay,
                "num_updates": use_num_updates,
                "init": init.tolist(),
                "values": values,
                "averages": averages,
            }
        )
    # zero_debias: TF's assign_moving_average(zero_debias=True) on a shadow starting at 0.
    # Built as a TF1 graph: run eagerly, TF makes a fresh "biased" accumulator per call.
    values = [_rounded(rng, (3,)) for _ in range(STEPS)]
    averages = []
    with tf.Graph().as_default():
        shadow = v1.Variable(np.zeros(3), name="zd", use_resource=True)
        value = v1.placeholder(tf.float64, (3,))
        update = tf_moving_averages.assign_moving_average(shadow, value, 0.75, zero_debias=True)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for v in values:
                sess.run(update, {value: v})
                averages.append(sess.run(shadow).tolist())
    out.append(
        {
            "case": "zero_debias",
            "decay": 0.75,
            "values": [v.tolist() for v in values],
            "averages": averages,
        }
    )
    return out


def main():
    for fname, data in (
        ("optimizers.json", optimizer_goldens()),
        ("schedules.json", schedule_goldens()),
        ("moving_averages.json", ema_goldens()),
    ):
        with open(os.path.join(HERE, fname), "w") as f:
            json.dump(
                {
                    "generator": "tests/core/golden/make_goldens.py, TensorFlow " + tf.__version__,
                    "cases": data,
                },
                f,
            )
        print("wrote", fname)


if __name__ == "__main__":
    main()
