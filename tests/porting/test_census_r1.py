# Copyright 2017 The TensorFlow Authors. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.
# ==============================================================================
"""tensorflow/models' ``official/r1/wide_deep/census_dataset.py`` (commit 23341a2): its
``build_model_columns`` and ``input_fn`` unchanged but for ``import colonnade.compat.v1 as
tf``, reading the UCI file as published (``39, State-gov, 77516, ...``: a space after each
comma) and as the program's downloader cleans it, then training its wide & deep model."""

# TF's code below is kept as it is: its %-format and its indentation.
# ruff: noqa: UP031, UP032

import numpy as np
import pytest

import colonnade.compat.v1 as tf
from colonnade.demo import load_adult

# fmt: off
_CSV_COLUMNS = [
    'age', 'workclass', 'fnlwgt', 'education', 'education_num',
    'marital_status', 'occupation', 'relationship', 'race', 'gender',
    'capital_gain', 'capital_loss', 'hours_per_week', 'native_country',
    'income_bracket'
]

_CSV_COLUMN_DEFAULTS = [[0], [''], [0], [''], [0], [''], [''], [''], [''], [''],
                        [0], [0], [0], [''], ['']]

_HASH_BUCKET_SIZE = 1000

_NUM_EXAMPLES = {
    'train': 32561,
    'validation': 16281,
}


def build_model_columns():
  """Builds a set of wide and deep feature columns."""
  # Continuous variable columns
  age = tf.feature_column.numeric_column('age')
  education_num = tf.feature_column.numeric_column('education_num')
  capital_gain = tf.feature_column.numeric_column('capital_gain')
  capital_loss = tf.feature_column.numeric_column('capital_loss')
  hours_per_week = tf.feature_column.numeric_column('hours_per_week')

  education = tf.feature_column.categorical_column_with_vocabulary_list(
      'education', [
          'Bachelors', 'HS-grad', '11th', 'Masters', '9th', 'Some-college',
          'Assoc-acdm', 'Assoc-voc', '7th-8th', 'Doctorate', 'Prof-school',
          '5th-6th', '10th', '1st-4th', 'Preschool', '12th'])

  marital_status = tf.feature_column.categorical_column_with_vocabulary_list(
      'marital_status', [
          'Married-civ-spouse', 'Divorced', 'Married-spouse-absent',
          'Never-married', 'Separated', 'Married-AF-spouse', 'Widowed'])

  relationship = tf.feature_column.categorical_column_with_vocabulary_list(
      'relationship', [
          'Husband', 'Not-in-family', 'Wife', 'Own-child', 'Unmarried',
          'Other-relative'])

  workclass = tf.feature_column.categorical_column_with_vocabulary_list(
      'workclass', [
          'Self-emp-not-inc', 'Private', 'State-gov', 'Federal-gov',
          'Local-gov', '?', 'Self-emp-inc', 'Without-pay', 'Never-worked'])

  # To show an example of hashing:
  occupation = tf.feature_column.categorical_column_with_hash_bucket(
      'occupation', hash_bucket_size=_HASH_BUCKET_SIZE)

  # Transformations.
  age_buckets = tf.feature_column.bucketized_column(
      age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])

  # Wide columns and deep columns.
  base_columns = [
      education, marital_status, relationship, workclass, occupation,
      age_buckets,
  ]

  crossed_columns = [
      tf.feature_column.crossed_column(
          ['education', 'occupation'], hash_bucket_size=_HASH_BUCKET_SIZE),
      tf.feature_column.crossed_column(
          [age_buckets, 'education', 'occupation'],
          hash_bucket_size=_HASH_BUCKET_SIZE),
  ]

  wide_columns = base_columns + crossed_columns

  deep_columns = [
      age,
      education_num,
      capital_gain,
      capital_loss,
      hours_per_week,
      tf.feature_column.indicator_column(workclass),
      tf.feature_column.indicator_column(education),
      tf.feature_column.indicator_column(marital_status),
      tf.feature_column.indicator_column(relationship),
      # To show an example of embedding
      tf.feature_column.embedding_column(occupation, dimension=8),
  ]

  return wide_columns, deep_columns


def input_fn(data_file, num_epochs, shuffle, batch_size):
  """Generate an input function for the Estimator."""
  assert tf.gfile.Exists(data_file), (
      '%s not found. Please make sure you have run census_dataset.py and '
      'set the --data_dir argument to the correct path.' % data_file)

  def parse_csv(value):
    tf.logging.info('Parsing {}'.format(data_file))
    columns = tf.decode_csv(value, record_defaults=_CSV_COLUMN_DEFAULTS)
    features = dict(list(zip(_CSV_COLUMNS, columns)))
    labels = features.pop('income_bracket')
    classes = tf.equal(labels, '>50K')  # binary classification
    return features, classes

  # Extract lines from input files using the Dataset API.
  dataset = tf.data.TextLineDataset(data_file)

  if shuffle:
    dataset = dataset.shuffle(buffer_size=_NUM_EXAMPLES['train'])

  dataset = dataset.map(parse_csv, num_parallel_calls=5)

  # We call repeat after shuffling, rather than before, to prevent separate
  # epochs from blending together.
  dataset = dataset.repeat(num_epochs)
  dataset = dataset.batch(batch_size)
  return dataset

# fmt: on


ROWS = 400


@pytest.fixture(scope="module")
def census(tmp_path_factory):
    """The first rows of the Adult data as UCI publishes ``adult.data`` and as the
    program's ``_download_and_clean_file`` leaves it (``', '`` -> ``','``)."""
    frame = load_adult("train").head(ROWS)
    lines = [", ".join(str(v) for v in row) for row in frame.itertuples(index=False)]
    folder = tmp_path_factory.mktemp("census")
    raw, clean = folder / "adult.raw", folder / "adult.data"
    raw.write_text("\n".join(lines) + "\n")
    clean.write_text("\n".join(line.replace(", ", ",") for line in lines) + "\n")
    return frame, str(raw), str(clean)


def test_the_published_file_parses_its_numbers(census):
    frame, raw, _ = census
    batches = list(input_fn(raw, 1, False, 128))
    assert sum(len(labels) for _, labels in batches) == ROWS
    features, labels = batches[0]
    assert features["fnlwgt"].to_pylist()[:3] == frame["fnlwgt"].head(3).tolist()
    assert features["age"].type == "int32"  # as TF's [0] default
    assert features["workclass"].to_pylist()[0] == " " + frame["workclass"].iloc[0]
    # strings keep their space, so ' >50K' is not '>50K' (in TF too: hence the cleaning)
    assert not np.asarray(labels).any() and (frame["income"].head(128) == ">50K").any()


def test_the_program_trains_its_wide_and_deep_model(census, tmp_path):
    frame, _, clean = census
    wide_columns, deep_columns = build_model_columns()
    model = tf.estimator.DNNLinearCombinedClassifier(
        model_dir=str(tmp_path / "model"),
        linear_feature_columns=wide_columns,
        dnn_feature_columns=deep_columns,
        dnn_hidden_units=[16, 8],
        config=tf.estimator.RunConfig(tf_random_seed=0, log_step_count_steps=0),
    )
    model.train(input_fn=lambda: input_fn(clean, 2, True, 40))
    assert model.get_variable_value("global_step") == 2 * ROWS // 40
    results = model.evaluate(input_fn=lambda: input_fn(clean, 1, False, 40))
    assert results["global_step"] == 20 and 0.5 < results["accuracy"] <= 1.0
    positives = (frame["income"] == ">50K").mean()
    assert results["label/mean"] == pytest.approx(positives, abs=1e-6)
