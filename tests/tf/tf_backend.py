"""The one switch between colonnade and TensorFlow for the ported TF tests.

A ported test file imports its TF names from here: by default they are colonnade's (with
numpy for TF's array ops, colonnade's eager equivalents), and with
``COLONNADE_TF_BACKEND=tf`` they are TensorFlow 2.15's own, so that the same translated
scenario also checks that TF behaves as the expected values say
(``tests/tf/run_against_tf.sh``; CI runs the colonnade side only).

``colonnade_differs(row)`` marks a case colonnade fails on purpose: a strict xfail naming
its docs/tf_differences.md row under colonnade, a plain test under TF.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

BACKEND = os.environ.get("COLONNADE_TF_BACKEND", "colonnade")
if BACKEND not in ("colonnade", "tf"):
    raise ValueError(f"COLONNADE_TF_BACKEND must be 'colonnade' or 'tf', got {BACKEND!r}")
ON_TF = BACKEND == "tf"

if ON_TF:
    import tensorflow as tf

    nest = tf.nest
    debugging = tf.debugging
    debugging_v1 = tf.compat.v1.debugging
    constant = tf.constant
    ones, zeros, tanh, reduce_all = tf.ones, tf.zeros, tf.math.tanh, tf.math.reduce_all
    float16, float32, float64 = tf.float16, tf.float32, tf.float64
    int32, int64, string, bool_ = tf.int32, tf.int64, tf.string, tf.bool
    InvalidArgumentError = tf.errors.InvalidArgumentError
else:
    import colonnade as cn

    nest = cn.nest
    debugging = cn.debugging
    debugging_v1 = cn.compat.v1.debugging
    constant = cn.constant
    ones, zeros, tanh, reduce_all = np.ones, np.zeros, np.tanh, np.all
    float16, float32, float64 = np.float16, np.float32, np.float64
    int32, int64, string, bool_ = np.int32, np.int64, np.str_, np.bool_
    InvalidArgumentError = cn.debugging.InvalidArgumentError


def colonnade_differs(row: str):
    """A strict xfail under colonnade naming docs/tf_differences.md's ``row``; none on TF."""
    return pytest.mark.xfail(
        not ON_TF, strict=True, reason=f"kept difference, docs/tf_differences.md: {row}"
    )
