"""TensorFlow's wide&deep census model, as data and one column builder: the label, the
vocabularies (in TF's order, which fixes the weight row each value gets), the hash bucket
size and age boundaries of TF's ``official/wide_deep`` tutorial, for the UCI Adult data
shipped with colonnade (``colonnade.demo.load_adult``).

:func:`wide_and_deep_columns` uses only the feature-column names TensorFlow and colonnade
share, and this module imports nothing from colonnade: ``colonnade demo``, the tutorials
and the benchmarks build the same columns from it, and ``benchmarks/tf_estimators.py``
builds them with ``tf.feature_column`` (loading this file by path, without colonnade).

>>> import colonnade as cn
>>> from colonnade.census import wide_and_deep_columns
>>> fc = cn.feature_columns
>>> wide, deep = wide_and_deep_columns(fc, standardize=fc.standardize, log1p=fc.log1p())
>>> len(wide), len(deep)
(8, 10)
"""

from __future__ import annotations

LABEL = "income"
LABEL_VOCABULARY = ["<=50K", ">50K"]
HASH_BUCKET_SIZE = 1000
AGE_BOUNDARIES = [18, 25, 30, 35, 40, 45, 50, 55, 60, 65]
HIDDEN_UNITS = [100, 75, 50, 25]

EDUCATION = [
    "Bachelors", "HS-grad", "11th", "Masters", "9th", "Some-college", "Assoc-acdm",
    "Assoc-voc", "7th-8th", "Doctorate", "Prof-school", "5th-6th", "10th", "1st-4th",
    "Preschool", "12th",
]  # fmt: skip
MARITAL_STATUS = [
    "Married-civ-spouse", "Divorced", "Married-spouse-absent", "Never-married", "Separated",
    "Married-AF-spouse", "Widowed",
]  # fmt: skip
RELATIONSHIP = ["Husband", "Not-in-family", "Wife", "Own-child", "Unmarried", "Other-relative"]
WORKCLASS = [
    "Self-emp-not-inc", "Private", "State-gov", "Federal-gov", "Local-gov", "?", "Self-emp-inc",
    "Without-pay", "Never-worked",
]  # fmt: skip
# The deep part's numbers, standardized with the training split's mean and standard
# deviation (rounded); the heavy-tailed capital columns go through log1p instead.
STANDARDIZED = {
    "age": (38.6, 13.6),
    "educational-num": (10.1, 2.6),
    "hours-per-week": (40.4, 12.3),
}


def wide_and_deep_columns(fc, standardize, log1p):
    """``(wide_columns, deep_columns)``: hashed education and occupation, vocabulary
    lists, age buckets and two crosses for the wide part; numbers, indicators and
    8-dimensional embeddings for the deep part.

    Args:
        fc: the feature-column module, ``colonnade.feature_columns`` or
            ``tf.feature_column``.
        standardize: ``standardize(mean, std)`` gives a numeric column's normalizer_fn.
        log1p: the normalizer_fn of the capital-gain and capital-loss columns.
    """
    age = fc.numeric_column("age")
    education = fc.categorical_column_with_hash_bucket("education", HASH_BUCKET_SIZE)
    marital = fc.categorical_column_with_vocabulary_list("marital-status", MARITAL_STATUS)
    relationship = fc.categorical_column_with_vocabulary_list("relationship", RELATIONSHIP)
    workclass = fc.categorical_column_with_vocabulary_list("workclass", WORKCLASS)
    occupation = fc.categorical_column_with_hash_bucket("occupation", HASH_BUCKET_SIZE)
    age_buckets = fc.bucketized_column(age, AGE_BOUNDARIES)
    wide = [
        education,
        marital,
        relationship,
        workclass,
        occupation,
        age_buckets,
        fc.crossed_column(["education", "occupation"], HASH_BUCKET_SIZE),
        fc.crossed_column([age_buckets, "education", "occupation"], HASH_BUCKET_SIZE),
    ]
    numbers = {key: standardize(*stats) for key, stats in STANDARDIZED.items()}
    numbers.update({"capital-gain": log1p, "capital-loss": log1p})
    deep = [
        fc.numeric_column(key, normalizer_fn=numbers[key])
        for key in ("age", "educational-num", "capital-gain", "capital-loss", "hours-per-week")
    ]
    deep += [
        fc.indicator_column(workclass),
        fc.indicator_column(marital),
        fc.indicator_column(relationship),
        fc.embedding_column(education, dimension=8),
        fc.embedding_column(occupation, dimension=8),
    ]
    return wide, deep
