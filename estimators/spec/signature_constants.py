"""TF's ``tf.saved_model.signature_constants``: the names of export signatures, their
method names and their input and output keys, which serving clients send and read.

>>> DEFAULT_SERVING_SIGNATURE_DEF_KEY, PREDICT_METHOD_NAME
('serving_default', 'tensorflow/serving/predict')
"""

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"

CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"

CLASSIFY_INPUTS = "inputs"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
PREDICT_INPUTS = "inputs"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_OUTPUTS = "outputs"
