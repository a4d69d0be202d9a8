"""``cn.saved_model``: the constants of ``tf.saved_model`` that estimator programs use.

``signature_constants`` names the export signatures (``serving_default``) and their keys;
``tag_constants`` the meta-graph tags. colonnade's exports are not SavedModels (see
``docs/exports.md``): these names let a ported program keep its code unchanged, e.g.
``export_outputs={signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: ...}``.

>>> import colonnade as cn
>>> cn.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
'serving_default'
>>> cn.saved_model.tag_constants.SERVING
'serve'
"""

from types import SimpleNamespace

from colonnade.estimators.spec import signature_constants
from colonnade.estimators.spec.signature_constants import DEFAULT_SERVING_SIGNATURE_DEF_KEY

tag_constants = SimpleNamespace(SERVING="serve", TRAINING="train", GPU="gpu", TPU="tpu")

__all__ = ["DEFAULT_SERVING_SIGNATURE_DEF_KEY", "signature_constants", "tag_constants"]
