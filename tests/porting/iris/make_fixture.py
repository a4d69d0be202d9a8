#!/usr/bin/env python

#  Copyright 2016 The TensorFlow Authors. All Rights Reserved.
#
#  Licensed under the Apache License, Version 2.0 (the "License");
#  you may not use this file except in compliance with the License.
#  You may obtain a copy of the License at
#
#   http://www.apache.org/licenses/LICENSE-2.0
#
#  Unless required by applicable law or agreed to in writing, software
#  distributed under the License is distributed on an "AS IS" BASIS,
#  WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
#  See the License for the specific language governing permissions and
#  limitations under the License.

# The original program: tensorflow/models, samples/core/get_started/iris_data.py (commit
# 2c94ade5739d82e03a3116218144b54d1838caa5) and premade_estimator.py (commit
# 009556f32100e064006309d409d0e94eca1dbf6a), Apache-2.0, here in one file (the
# `iris_data.` prefixes dropped). Run under TF 2.15 (/work/tfenv/bin/python
# make_fixture.py) with one edit, TF's own migration line `import tensorflow.compat.v1 as
# tf`. The driver at the bottom (not the original's) writes a small synthetic iris data set
# in place of the download, runs `main` with TF_CONFIG naming the model_dir (the original
# passes none), and records TF's predictions and metrics next to it (fixture/).

# ---- iris_data.py ----
import pandas as pd
import tensorflow.compat.v1 as tf

TRAIN_URL = "http://download.tensorflow.org/data/iris_training.csv"
TEST_URL = "http://download.tensorflow.org/data/iris_test.csv"

CSV_COLUMN_NAMES = ['SepalLength', 'SepalWidth',
                    'PetalLength', 'PetalWidth', 'Species']
SPECIES = ['Sentosa', 'Versicolor', 'Virginica']

def maybe_download():
    train_path = tf.keras.utils.get_file(TRAIN_URL.split('/')[-1], TRAIN_URL)
    test_path = tf.keras.utils.get_file(TEST_URL.split('/')[-1], TEST_URL)

    return train_path, test_path

def load_data(y_name='Species'):
    """Returns the iris dataset as (train_x, train_y), (test_x, test_y)."""
    train_path, test_path = maybe_download()

    train = pd.read_csv(train_path, names=CSV_COLUMN_NAMES, header=0)
    train_x, train_y = train, train.pop(y_name)

    test = pd.read_csv(test_path, names=CSV_COLUMN_NAMES, header=0)
    test_x, test_y = test, test.pop(y_name)

    return (train_x, train_y), (test_x, test_y)


def train_input_fn(features, labels, batch_size):
    """An input function for training"""
    # Convert the inputs to a Dataset.
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))

    # Shuffle, repeat, and batch the examples.
    dataset = dataset.shuffle(1000).repeat().batch(batch_size)

    # Return the read end of the pipeline.
    return dataset.make_one_shot_iterator().get_next()


def eval_input_fn(features, labels, batch_size):
    """An input function for evaluation or prediction"""
    features=dict(features)
    if labels is None:
        # No labels, use only features.
        inputs = features
    else:
        inputs = (features, labels)

    # Convert the inputs to a Dataset.
    dataset = tf.data.Dataset.from_tensor_slices(inputs)

    # Batch the examples
    assert batch_size is not None, "batch_size must not be None"
    dataset = dataset.batch(batch_size)

    # Return the read end of the pipeline.
    return dataset.make_one_shot_iterator().get_next()

# ---- premade_estimator.py ----
import argparse  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument('--batch_size', default=100, type=int, help='batch size')
parser.add_argument('--train_steps', default=1000, type=int,
                    help='number of training steps')

def main(argv):
    args = parser.parse_args(argv[1:])

    # Fetch the data
    (train_x, train_y), (test_x, test_y) = load_data()

    # Feature columns describe how to use the input.
    my_feature_columns = []
    for key in train_x.keys():
        my_feature_columns.append(tf.feature_column.numeric_column(key=key))

    # Build 2 hidden layer DNN with 10, 10 units respectively.
    classifier = tf.estimator.DNNClassifier(
        feature_columns=my_feature_columns,
        # Two hidden layers of 10 nodes each.
        hidden_units=[10, 10],
        # The model must choose between 3 classes.
        n_classes=3)

    # Train the Model.
    classifier.train(
        input_fn=lambda:train_input_fn(train_x, train_y,
                                                 args.batch_size),
        steps=args.train_steps)

    # Evaluate the model.
    eval_result = classifier.evaluate(
        input_fn=lambda:eval_input_fn(test_x, test_y,
                                                args.batch_size))

    print('\nTest set accuracy: {accuracy:0.3f}\n'.format(**eval_result))

    # Generate predictions from the model
    expected = ['Setosa', 'Versicolor', 'Virginica']
    predict_x = {
        'SepalLength': [5.1, 5.9, 6.9],
        'SepalWidth': [3.3, 3.0, 3.1],
        'PetalLength': [1.7, 4.2, 5.4],
        'PetalWidth': [0.5, 1.5, 2.1],
    }

    predictions = classifier.predict(
        input_fn=lambda:eval_input_fn(predict_x,
                                                labels=None,
                                                batch_size=args.batch_size))

    for pred_dict, expec in zip(predictions, expected):
        template = ('\nPrediction is "{}" ({:.1f}%), expected "{}"')

        class_id = pred_dict['class_ids'][0]
        probability = pred_dict['probabilities'][class_id]

        print(template.format(SPECIES[class_id],
                              100 * probability, expec))


# ---- driver (not part of the original) ----
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from programs import prune_model_dir  # noqa: E402  (tests/porting/programs.py)

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixture")
ARGV = ["premade_estimator.py", "--batch_size", "32", "--train_steps", "40"]


def write_iris_rows(path, n, seed):
    """Synthetic rows in the iris CSV layout (a header line, then 4 floats and a class id)."""
    rng = np.random.RandomState(seed)
    species = rng.randint(0, 3, n)
    centres = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]])
    x = centres[species] + 0.3 * rng.randn(n, 4)
    with open(path, "w") as f:
        f.write("%d,4,setosa,versicolor,virginica\n" % n)
        for i in range(n):
            f.write("%.1f,%.1f,%.1f,%.1f,%d\n" % (*x[i], species[i]))


def local_files():
    """The driver's stand-in for `maybe_download` (no network here)."""
    return os.path.join(FIXTURE, "iris_training.csv"), os.path.join(FIXTURE, "iris_test.csv")


def main_driver():
    global maybe_download
    shutil.rmtree(FIXTURE, ignore_errors=True)
    os.makedirs(FIXTURE)
    write_iris_rows(os.path.join(FIXTURE, "iris_training.csv"), 120, 0)
    write_iris_rows(os.path.join(FIXTURE, "iris_test.csv"), 30, 1)
    maybe_download = local_files
    model_dir = os.path.join(FIXTURE, "model_dir")
    os.environ["TF_CONFIG"] = json.dumps({"model_dir": model_dir})
    main(ARGV)
    (train_x, train_y), (test_x, test_y) = load_data()
    classifier = tf.estimator.DNNClassifier(
        feature_columns=[tf.feature_column.numeric_column(key=k) for k in train_x.keys()],
        hidden_units=[10, 10],
        n_classes=3,
    )
    assert classifier.model_dir == model_dir, classifier.model_dir
    metrics = classifier.evaluate(input_fn=lambda: eval_input_fn(test_x, test_y, 32))
    predictions = list(classifier.predict(input_fn=lambda: eval_input_fn(test_x, None, 32)))[:8]
    names = classifier.get_variable_names()
    prune_model_dir(model_dir, int(metrics["global_step"]))
    with open(os.path.join(FIXTURE, "tf_results.json"), "w") as f:
        json.dump(
            {
                "tf_version": tf.__version__,
                "argv": ARGV,
                "global_step": int(metrics["global_step"]),
                "metrics": {k: float(v) for k, v in metrics.items()},
                "probabilities_first_8_test_rows": [p["probabilities"].tolist() for p in predictions],
                "logits_first_8_test_rows": [p["logits"].tolist() for p in predictions],
                "class_ids_first_8_test_rows": [int(p["class_ids"][0]) for p in predictions],
                "variable_names": names,
            },
            f,
            indent=1,
        )


if __name__ == "__main__":
    main_driver()
