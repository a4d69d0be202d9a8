#!/usr/bin/env python

# Copyright 2017 Google Inc. All Rights Reserved.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# colonnade's port of GoogleCloudPlatform/training-data-analyst at commit
# 1243d53b4ec4167649a1bfeef2dd92e22e5709eb,
# courses/machine_learning/deepdive/03_tensorflow/taxifare/trainer/model.py (Apache-2.0).
# `tf.` became `cn.compat.v1.` (the original is a TF 1 program); the other edits are
# marked `# PORT:` and listed in docs/porting.md.

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import colonnade as cn
import numpy as np  # noqa: F401  (the original's import)
import shutil  # noqa: F401  (the original's import)

cn.compat.v1.logging.set_verbosity(cn.compat.v1.logging.INFO)

# List the CSV columns
CSV_COLUMNS = ['fare_amount', 'pickuplon','pickuplat','dropofflon','dropofflat','passengers', 'key']

#Choose which column is your label
LABEL_COLUMN = 'fare_amount'

# Set the default values for each CSV column in case there is a missing value
DEFAULTS = [[0.0], [-74.0], [40.0], [-74.0], [40.7], [1.0], ['nokey']]

# Create an input function that stores your data into a dataset
def read_dataset(filename, mode, batch_size = 512):
    def _input_fn():
        def decode_csv(value_column):
            columns = cn.compat.v1.decode_csv(value_column, record_defaults = DEFAULTS)
            features = dict(zip(CSV_COLUMNS, columns))
            label = features.pop(LABEL_COLUMN)
            return features, label
    
        # Create list of files that match pattern
        file_list = cn.compat.v1.gfile.Glob(filename)

        # Create dataset from file list
        dataset = cn.compat.v1.data.TextLineDataset(file_list).map(decode_csv)
        
        if mode == cn.compat.v1.estimator.ModeKeys.TRAIN:
            num_epochs = None # indefinitely
            dataset = dataset.shuffle(buffer_size = 10 * batch_size)
        else:
            num_epochs = 1 # end-of-input after this

        dataset = dataset.repeat(num_epochs).batch(batch_size)
        return dataset.make_one_shot_iterator().get_next()
    return _input_fn

# Define your feature columns
INPUT_COLUMNS = [
    cn.compat.v1.feature_column.numeric_column('pickuplon'),
    cn.compat.v1.feature_column.numeric_column('pickuplat'),
    cn.compat.v1.feature_column.numeric_column('dropofflat'),
    cn.compat.v1.feature_column.numeric_column('dropofflon'),
    cn.compat.v1.feature_column.numeric_column('passengers'),
]

# Create a function that will augment your feature set
def add_more_features(feats):
    # Nothing to add (yet!)
    return feats

feature_cols = add_more_features(INPUT_COLUMNS)

# Create your serving input function so that your trained model will be able to serve predictions
def serving_input_fn():
    feature_placeholders = {
        column.name: cn.compat.v1.placeholder(cn.compat.v1.float32, [None]) for column in INPUT_COLUMNS
    }

    features = feature_placeholders
    return cn.compat.v1.estimator.export.ServingInputReceiver(features, feature_placeholders)

# Create an estimator that we are going to train and evaluate
def train_and_evaluate(args):
    estimator = cn.compat.v1.estimator.DNNRegressor(
        model_dir = args['output_dir'],
        feature_columns = feature_cols,
        hidden_units = args['hidden_units'])
    train_spec = cn.compat.v1.estimator.TrainSpec(
        input_fn = read_dataset(args['train_data_paths'],
                                batch_size = args['train_batch_size'],
                                mode = cn.compat.v1.estimator.ModeKeys.TRAIN),
        max_steps = args['train_steps'])
    exporter = cn.compat.v1.estimator.LatestExporter('exporter', serving_input_fn)
    eval_spec = cn.compat.v1.estimator.EvalSpec(
        input_fn = read_dataset(args['eval_data_paths'],
                                batch_size = 10000,
                                mode = cn.compat.v1.estimator.ModeKeys.EVAL),
        steps = None,
        start_delay_secs = args['eval_delay_secs'],
        throttle_secs = args['min_eval_frequency'],
        exporters = exporter)
    return cn.compat.v1.estimator.train_and_evaluate(estimator, train_spec, eval_spec)  # PORT: `return` added, for the test
