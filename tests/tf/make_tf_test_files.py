"""Write tests/tf/tf_test_files.txt: every TensorFlow test file that tests/tf/MANIFEST.md
must give a state (ported, out of scope, to port).

tensorflow/estimator: every test file (``*_test.py``, ``*_test_*.py``) and the shared test
bodies (``*_testing_utils*.py``) under ``tensorflow_estimator/python/estimator/`` at tag
``v2.15.0``, listed with ``git ls-tree`` on a mirror of the repository.

tensorflow/tensorflow: the test files of ``python/feature_column/``, ``python/training/``
(with ``experimental/``), ``util/nest_test.py``, the check_ops, clip_ops, parsing, decode_csv
and TFRecord tests and the TF1 learning-rate decay tests. With ``--tensorflow-mirror`` they are
listed from it at tag ``v2.15.1``. Without one (the repository is too large to mirror here)
the list below is used: the test files of those folders in the public code index, kept
when the module they test is in the TensorFlow 2.15.1 wheel (``python -m pip show -f
tensorflow``), e.g. dense_features_test.py is left out (dense_features.py moved to Keras).

    python tests/tf/make_tf_test_files.py --estimator-mirror /path/to/estimator.git
"""

from __future__ import annotations

import argparse
import re
import subprocess
from pathlib import Path

OUT = Path(__file__).with_name("tf_test_files.txt")
ESTIMATOR_TAG, TENSORFLOW_TAG = "v2.15.0", "v2.15.1"
ESTIMATOR_DIR = "tensorflow_estimator/python/estimator/"
TEST_FILE = re.compile(r"(_test\.py|_test_[a-z0-9_]+\.py|_testing_utils(_v1)?\.py)$")

TENSORFLOW_DIRS = ("tensorflow/python/feature_column/", "tensorflow/python/training/")
TENSORFLOW_FILES = (
    "tensorflow/python/util/nest_test.py",
    "tensorflow/python/kernel_tests/check_ops_test.py",
    "tensorflow/python/kernel_tests/clip_ops_test.py",
    "tensorflow/python/kernel_tests/io_ops/parsing_ops_test.py",
    "tensorflow/python/kernel_tests/io_ops/decode_csv_op_test.py",
    "tensorflow/python/lib/io/tf_record_test.py",
    "tensorflow/python/data/kernel_tests/tf_record_dataset_test.py",
    "tensorflow/python/keras/optimizer_v2/legacy_learning_rate_decay_test.py",
)
# the code index's test files of TENSORFLOW_DIRS whose module is in the 2.15.1 wheel
TENSORFLOW_INDEXED = (
    "feature_column/feature_column_test.py",
    "feature_column/feature_column_v2_test.py",
    "feature_column/sequence_feature_column_integration_test.py",
    "feature_column/sequence_feature_column_test.py",
    "feature_column/serialization_test.py",
    "feature_column/utils_test.py",
    "training/adadelta_test.py",
    "training/adagrad_da_test.py",
    "training/adagrad_test.py",
    "training/adam_test.py",
    "training/basic_loops_test.py",
    "training/basic_session_run_hooks_test.py",
    "training/checkpoint_management_test.py",
    "training/checkpoint_ops_test.py",
    "training/checkpoint_utils_test.py",
    "training/coordinator_test.py",
    "training/device_setter_test.py",
    "training/evaluation_test.py",
    "training/experimental/loss_scale_optimizer_test.py",
    "training/experimental/loss_scale_test.py",
    "training/experimental/mixed_precision_test.py",
    "training/ftrl_test.py",
    "training/gradient_descent_test.py",
    "training/input_test.py",
    "training/learning_rate_decay_test.py",
    "training/momentum_test.py",
    "training/monitored_session_test.py",
    "training/moving_averages_test.py",
    "training/optimizer_test.py",
    "training/proximal_adagrad_test.py",
    "training/proximal_gradient_descent_test.py",
    "training/quantize_training_test.py",
    "training/queue_runner_test.py",
    "training/rmsprop_test.py",
    "training/saver_large_partitioned_variable_test.py",
    "training/saver_large_variable_test.py",
    "training/saver_test.py",
    "training/server_lib_test.py",
    "training/session_manager_test.py",
    "training/slot_creator_test.py",
    "training/supervisor_test.py",
    "training/sync_replicas_optimizer_test.py",
    "training/training_ops_test.py",
    "training/training_util_test.py",
    "training/warm_starting_util_test.py",
)


def _ls_tree(mirror: str, tag: str, paths) -> list[str]:
    out = subprocess.run(
        ["git", "-C", mirror, "ls-tree", "-r", "--name-only", tag, "--", *paths],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return [p for p in out.splitlines() if TEST_FILE.search(p.rsplit("/", 1)[-1])]


def estimator_files(mirror: str) -> list[str]:
    return _ls_tree(mirror, ESTIMATOR_TAG, [ESTIMATOR_DIR])


def tensorflow_files(mirror: str | None) -> list[str]:
    if mirror is None:
        listed = [f"tensorflow/python/{p}" for p in TENSORFLOW_INDEXED]
    else:
        listed = _ls_tree(mirror, TENSORFLOW_TAG, TENSORFLOW_DIRS)
    return sorted(set(listed) | set(TENSORFLOW_FILES))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--estimator-mirror", required=True, help="a git dir of tensorflow/estimator"
    )
    parser.add_argument("--tensorflow-mirror", help="a git dir of tensorflow/tensorflow")
    args = parser.parse_args()
    rows = [f"tensorflow/estimator:{p}" for p in estimator_files(args.estimator_mirror)]
    rows += [f"tensorflow/tensorflow:{p}" for p in tensorflow_files(args.tensorflow_mirror)]
    OUT.write_text("\n".join(rows) + "\n")
    print(f"{len(rows)} files -> {OUT}")


if __name__ == "__main__":
    main()
