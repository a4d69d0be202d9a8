"""The Estimator names of the ported estimator and hook tests, from colonnade by default
and from TensorFlow 2.15 (its ``tf.compat.v1`` Estimator, in graph mode, as TF's own tests
run it) with ``COLONNADE_TF_BACKEND=tf`` (see :mod:`tf_backend`).

A ``model_fn`` written with these names runs on both: ``get_global_step().assign_add(1)``
is TF's ``state_ops.assign_add(training.get_global_step(), 1)``, ``input_constant`` the
values of an ``input_fn``'s features and labels.
"""

from __future__ import annotations

import tempfile

import numpy as np
from tf_backend import ON_TF

if ON_TF:
    import tensorflow as tf

    Estimator = tf.compat.v1.estimator.Estimator
    EstimatorSpec = tf.compat.v1.estimator.EstimatorSpec
    ModeKeys = tf.estimator.ModeKeys
    RunConfig = tf.estimator.RunConfig
    SessionRunHook = tf.estimator.SessionRunHook
    SessionRunArgs = tf.estimator.SessionRunArgs
    CheckpointSaverListener = tf.estimator.CheckpointSaverListener
    CheckpointSaverHook = tf.estimator.CheckpointSaverHook
    StopAtStepHook = tf.estimator.StopAtStepHook
    LoggingTensorHook = tf.estimator.LoggingTensorHook
    SummarySaverHook = tf.estimator.SummarySaverHook
    SecondOrStepTimer = tf.compat.v1.train.SecondOrStepTimer
    GlobalStepWaiterHook = tf.estimator.GlobalStepWaiterHook

    def ProfilerHook(*args, **kwargs):  # noqa: N802 - TF's class, made as its test makes it
        """TF's hook, made in a graph as TF's test makes it (its summary writer needs one),
        writing into a temporary folder when the test names none (TF's default, the
        working directory, would get an events file)."""
        kwargs["output_dir"] = kwargs.get("output_dir") or tempfile.mkdtemp()
        with tf.compat.v1.Graph().as_default():
            return tf.estimator.ProfilerHook(*args, **kwargs)

    get_global_step = tf.compat.v1.train.get_global_step
    load_variable = tf.train.load_variable
    get_checkpoint_state = tf.train.get_checkpoint_state
    input_constant = tf.constant
    tensor = tf.constant

    LOGGER = "tensorflow"

    def named(value, name):
        """``value`` as the graph tensor ``name`` (what a hook fetches by name)."""
        return tf.identity(value, name=name)

    def summary_op(name, value):
        """A scalar summary of ``value`` for a ``SummarySaverHook``."""
        return tf.compat.v1.summary.scalar(name, value)

    def summary_scalars(summary):
        """``{tag: value}`` of a serialized ``Summary`` a writer was given."""
        parsed = tf.compat.v1.Summary.FromString(summary)
        return {v.tag: v.simple_value for v in parsed.value}

    def local_variable(name, value):
        """A variable of TF's LOCAL_VARIABLES collection (evaluation state)."""
        return tf.compat.v1.Variable(
            value, name=name, collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]
        )
else:
    import colonnade as cn

    E = cn.estimators
    Estimator, EstimatorSpec, ModeKeys, RunConfig = (
        E.Estimator,
        E.EstimatorSpec,
        E.ModeKeys,
        E.RunConfig,
    )
    SessionRunHook, SessionRunArgs = E.SessionRunHook, E.SessionRunArgs
    CheckpointSaverListener, CheckpointSaverHook = E.CheckpointSaverListener, E.CheckpointSaverHook
    StopAtStepHook, LoggingTensorHook = E.StopAtStepHook, E.LoggingTensorHook
    SummarySaverHook, SecondOrStepTimer = E.SummarySaverHook, E.SecondOrStepTimer
    GlobalStepWaiterHook = E.GlobalStepWaiterHook
    ProfilerHook = E.ProfilerHook
    get_global_step = cn.train.get_global_step
    load_variable = cn.train.load_variable
    get_checkpoint_state = cn.train.get_checkpoint_state
    input_constant = np.asarray
    tensor = cn.constant

    LOGGER = "colonnade"

    def named(value, name):
        """``value``; a hook fetches it by its key in the TRAIN spec's predictions."""
        return value

    def summary_op(name, value):
        """The fetchable name ``name`` (the TRAIN spec's loss or a prediction key)."""
        return name

    def summary_scalars(summary):
        """colonnade's writers get scalars (``add_scalar``), not serialized summaries."""
        raise TypeError(f"a colonnade hook wrote a summary object: {summary!r}")

    def local_variable(name, value):
        """A variable of the LOCAL_VARIABLES collection (evaluation state)."""
        return cn.compat.v1.get_variable(
            name,
            initializer=np.float32(value),
            collections=[cn.compat.v1.GraphKeys.LOCAL_VARIABLES],
        )
