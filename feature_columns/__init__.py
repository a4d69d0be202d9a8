"""colonnade.feature_columns: TensorFlow's ``tf.feature_column`` over Arrow data.

Columns are frozen, hashable values built by TF's factory functions; they read
``pyarrow`` tables and record batches, pandas DataFrames or dicts of arrays, scalar or
list (multivalent) columns, and give TensorFlow's ids: hashes are FarmHash
``Fingerprint64`` and crosses fold with ``FingerprintCat64``, so an embedding row means
what it meant in a TF model. Layers (``DenseFeatures``, ``LinearModel``,
``SequenceFeatures``) own the variables and return differentiable tensors.

>>> import colonnade as cn
>>> fc = cn.feature_columns
>>> price = fc.bucketized_column(fc.numeric_column("price"), [0.0, 10.0, 100.0])
>>> kw = fc.categorical_column_with_hash_bucket("keywords", 1000)
>>> cross = fc.crossed_column(["keywords", price], 5000)
>>> model = fc.LinearModel([price, kw, cross])
>>> model({"price": [5.0, 150.0], "keywords": [["a", "b"], ["c"]]}).shape
(2, 1)
>>> fc.make_parse_example_spec([price, kw]).names
['keywords', 'price']
"""

from .base import CategoricalColumn, DenseColumn, FeatureColumn, VariableSpec
from .bucketized import BucketizedColumn, bucketized_column
from .categorical import (
    HashedCategoricalColumn,
    IdentityCategoricalColumn,
    WeightedCategoricalColumn,
    categorical_column_with_hash_bucket,
    categorical_column_with_identity,
    weighted_categorical_column,
)
from .crossed import CrossedColumn, crossed_column
from .dense import EmbeddingColumn, IndicatorColumn, embedding_column, indicator_column
from .embedding_lookup import embedding_lookup
from .equality import EqualityColumn, equality_column
from .features import Features, as_features
from .hashing import DEFAULT_HASH_KEY, fingerprint64, fingerprint_cat64
from .ids import CategoricalIds
from .infer import ColumnPlan, infer
from .layers import DenseFeatures, SequenceFeatures, input_layer
from .linear_layer import LinearModel, linear_model
from .named_initializers import Initializer, initializer
from .normalizers import Normalizer, chain, clip, log1p, log_offset, standardize
from .numeric import NumericColumn, numeric_column
from .piecewise import PiecewiseLinearColumn, piecewise_linear_column
from .sequence import (
    SequenceCategoricalColumn,
    SequenceIds,
    SequenceNumericColumn,
    sequence_categorical_column_with_hash_bucket,
    sequence_categorical_column_with_identity,
    sequence_categorical_column_with_vocabulary_file,
    sequence_categorical_column_with_vocabulary_list,
    sequence_numeric_column,
)
from .serialization import ConfigError, from_config, to_config
from .shared_embedding import (
    SharedEmbeddingColumn,
    SharedEmbeddingSpec,
    shared_embedding_columns,
    shared_embeddings,
)
from .spec import make_parse_example_spec
from .time_parts import TimePartCategoricalColumn, categorical_column_with_time_part
from .transform_cache import (
    DEFAULT_NUM_THREADS,
    BatchFeatures,
    TransformCache,
    transform_features,
)
from .vocabulary import (
    VocabularyFileCategoricalColumn,
    VocabularyListCategoricalColumn,
    categorical_column_with_vocabulary_file,
    categorical_column_with_vocabulary_list,
)

__all__ = [
    # TensorFlow's tf.feature_column names
    "numeric_column",
    "bucketized_column",
    "categorical_column_with_hash_bucket",
    "categorical_column_with_identity",
    "categorical_column_with_vocabulary_list",
    "categorical_column_with_vocabulary_file",
    "crossed_column",
    "embedding_column",
    "shared_embedding_columns",
    "shared_embeddings",
    "indicator_column",
    "weighted_categorical_column",
    "sequence_numeric_column",
    "sequence_categorical_column_with_hash_bucket",
    "sequence_categorical_column_with_identity",
    "sequence_categorical_column_with_vocabulary_list",
    "sequence_categorical_column_with_vocabulary_file",
    "make_parse_example_spec",
    "input_layer",
    "linear_model",
    "DenseFeatures",
    "LinearModel",
    "SequenceFeatures",
    # colonnade's own columns
    "categorical_column_with_time_part",
    "equality_column",
    "piecewise_linear_column",
    # columns inferred from data
    "infer",
    "ColumnPlan",
    # the declarative form
    "to_config",
    "ConfigError",
    "from_config",
    # serializable normalizers and initializers
    "Normalizer",
    "log1p",
    "log_offset",
    "standardize",
    "clip",
    "chain",
    "Initializer",
    "initializer",
    # transforms and their values
    "transform_features",
    "BatchFeatures",
    "TransformCache",
    "DEFAULT_NUM_THREADS",
    "Features",
    "as_features",
    "CategoricalIds",
    "SequenceIds",
    "embedding_lookup",
    "fingerprint64",
    "fingerprint_cat64",
    "DEFAULT_HASH_KEY",
    # column classes
    "FeatureColumn",
    "CategoricalColumn",
    "DenseColumn",
    "VariableSpec",
    "NumericColumn",
    "BucketizedColumn",
    "PiecewiseLinearColumn",
    "EqualityColumn",
    "HashedCategoricalColumn",
    "IdentityCategoricalColumn",
    "TimePartCategoricalColumn",
    "VocabularyListCategoricalColumn",
    "VocabularyFileCategoricalColumn",
    "WeightedCategoricalColumn",
    "CrossedColumn",
    "IndicatorColumn",
    "EmbeddingColumn",
    "SharedEmbeddingColumn",
    "SharedEmbeddingSpec",
    "SequenceCategoricalColumn",
    "SequenceNumericColumn",
]
