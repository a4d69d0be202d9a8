"""The signatures an export serves, each under its own key (TF Serving's
``signature_name``), and the outputs each answers.

- A canned estimator's export serves TF's estimator signatures: ``classification``
  (``classes``: ``all_classes``, ``scores``: ``probabilities``) for a classifier,
  ``regression`` (``outputs``: a regressor's ``predictions``, a binary classifier's
  ``logistic``), ``predict`` (every prediction) and ``serving_default`` (TF's: the
  classification signature of a classifier, the regression one of a regressor, for
  ``:classify`` and ``:regress``; on ``:predict`` it answers every prediction, as
  colonnade always has).
- A custom ``model_fn``'s export serves the ``export_outputs`` its model_fn returned in
  PREDICT mode, which the export records (``model.json``'s ``signatures``, each output a
  prediction key); with none recorded, its predictions under ``serving_default`` and
  ``predict``.

:func:`resolve` picks a request's signature by its verb and ``signature_name``;
:func:`select` cuts a prediction's arrays to the signature's outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import BadRequest

__all__ = ["Signature", "canned_signatures", "recorded_signatures", "resolve", "select"]

DEFAULT = "serving_default"
_FALLBACK = {"classify": "classification", "regress": "regression"}
_NO_METHOD = {
    "classify": "this model is not a classifier: it has no :classify (no classification "
    "signature); use :regress or :predict",
    "regress": "this model has no regression output (one value an example; no regression "
    "signature): it takes no :regress; use :classify or :predict",
}


@dataclass(frozen=True)
class Signature:
    """``method``: ``predict``, ``classify`` or ``regress``; ``outputs``: ``{signature
    output: prediction key}`` (a key ``None``: not among the predictions), or ``None``
    for every prediction under its own key."""

    method: str
    outputs: dict | None = None
    predict_all: bool = False
    """On ``:predict``, answer every prediction (a canned export's ``serving_default``)."""


def _every_prediction() -> dict:
    return {DEFAULT: Signature("predict"), "predict": Signature("predict")}


def canned_signatures(head) -> dict:
    """The signatures of a canned export of ``head``: TF's ``export_outputs`` of its
    PREDICT spec, each output found among the head's predictions."""
    from ..estimators.export.model_fn_export import signatures_json
    from ..estimators.spec.model_fn import ModeKeys

    logits = np.zeros((1, head.logits_dimension), np.float32)
    spec = head.create_estimator_spec({}, ModeKeys.PREDICT, logits)
    recorded = signatures_json(spec.export_outputs, spec.predictions)
    signatures = {}
    for key, value in recorded.items():
        if value["method"] == "predict":
            signatures[key] = Signature("predict")
        else:
            signatures[key] = Signature(value["method"], value["outputs"], key == DEFAULT)
    signatures.setdefault(DEFAULT, Signature("predict"))
    signatures.setdefault("predict", Signature("predict"))
    return signatures


def recorded_signatures(recorded: dict | None) -> dict:
    """The signatures of a model_fn's export: what it records (checked), else its
    predictions under ``serving_default`` and ``predict``."""
    if not recorded:
        return _every_prediction()
    signatures = {
        key: Signature(value["method"], dict(value["outputs"])) for key, value in recorded.items()
    }
    signatures.setdefault(DEFAULT, Signature("predict"))
    return signatures


def names_by_method(signatures: dict) -> dict:
    """``{signature key: method}``: what a request's ``signature_name`` is checked
    against (it travels to a parse process, which has no model)."""
    return {key: s.method for key, s in signatures.items()}


def resolve(verb: str, name, methods: dict) -> str:
    """The signature key a ``verb`` request naming ``name`` (``None``: none) is answered
    by, from ``{key: method}``; :class:`~.errors.BadRequest` names the ones served.
    ``:predict`` takes any signature. ``:classify`` and ``:regress`` take one of their
    method; ``serving_default`` (or none, or TF Serving's method name
    ``tensorflow/serving/classify``) is the default signature when it has the verb's
    method, else TF's estimator signature ``classification`` / ``regression``."""
    if name is None:
        name = DEFAULT
    if not isinstance(name, str):
        raise BadRequest(f"'signature_name' must be a string, got {name!r:.80}")
    served = (
        sorted(methods) if verb == "predict" else sorted(k for k, m in methods.items() if m == verb)
    )
    if verb == "predict":
        if name in methods:
            return name
    else:
        if name in (DEFAULT, f"tensorflow/serving/{verb}"):
            for key in (DEFAULT, _FALLBACK[verb]):
                if methods.get(key) == verb:
                    return key
        elif methods.get(name) == verb:
            return name
    if not served:
        raise BadRequest(_NO_METHOD[verb])
    where = "" if verb == "predict" else f" for :{verb}"
    raise BadRequest(f"signature_name {name!r} is not served{where}; this export serves {served}")


def select(signature: Signature, key: str, arrays: dict, verb: str) -> dict:
    """``arrays`` (the predictions) cut to ``signature``'s outputs, under their
    signature names (every prediction for ``predict_all`` on ``:predict``)."""
    if signature.outputs is None or (verb == "predict" and signature.predict_all):
        return arrays
    chosen = {}
    for name, prediction in signature.outputs.items():
        if prediction is None or prediction not in arrays:
            raise BadRequest(
                f"signature {key!r} output {name!r} is not one of the model's predictions "
                f"({sorted(arrays)}), which is what colonnade serves: return it in the "
                "EstimatorSpec's predictions too"
            )
        chosen[name] = arrays[prediction]
    return chosen
