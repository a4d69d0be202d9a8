"""Make ``tf_hostile/string_kernel``: TF's ``custom_adam`` model_dir (``tf_takeover/``) with
``hidden/kernel`` replaced by a string tensor of the same shape, written by TensorFlow's
own ``SaveV2``, so the takeover test reads a string tensor exactly as TF stores one.

Not run by the tests (they read the committed files). Regenerate with a Python that has
``tensorflow-cpu==2.15.1``::

    /tmp/tfenv/bin/python tests/estimators/golden/make_tf_hostile.py
"""

import os
import shutil

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "tf_takeover", "custom_adam", "model.ckpt-20")
TARGET = os.path.join(HERE, "tf_hostile", "string_kernel")


def main():
    reader = tf.train.load_checkpoint(SOURCE)
    names = sorted(reader.get_variable_to_shape_map())
    tensors = []
    for name in names:
        value = reader.get_tensor(name)
        if name == "hidden/kernel":
            value = np.full(value.shape, b"0.5", dtype=object)
        tensors.append(tf.constant(value))
    shutil.rmtree(TARGET, ignore_errors=True)
    os.makedirs(TARGET)
    prefix = os.path.join(TARGET, "model.ckpt-20")
    tf.raw_ops.SaveV2(
        prefix=prefix, tensor_names=names, shape_and_slices=[""] * len(names), tensors=tensors
    )
    with open(os.path.join(TARGET, "checkpoint"), "w") as f:
        f.write('model_checkpoint_path: "model.ckpt-20"\n')
        f.write('all_model_checkpoint_paths: "model.ckpt-20"\n')
    back = tf.train.load_checkpoint(prefix)
    assert back.get_variable_to_dtype_map()["hidden/kernel"] == tf.string


if __name__ == "__main__":
    main()
