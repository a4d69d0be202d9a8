"""Write an estimator's export: a timestamped directory that appears whole or not at all.

A canned estimator's export (:func:`export_estimator`) holds ``model.json`` (the head and
the network's declarative spec), the network's weights and the vocabularies its columns
read; a ``model_fn``'s (:func:`export_model_fn`) holds the checkpoint's variables, the
``params`` and the ``model_fn``'s name, and no code. The layout both follow, and how an
export is read back, is :mod:`.directory`'s.
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid

from ... import core
from ..spec.model_fn import fn_name, is_model_variable
from . import model_fn_export
from . import receivers as receivers_module
from .directory import (
    EXPORT_FORMAT_VERSION,
    MODEL_FILE,
    VARIABLES_PREFIX,
    asset_copier,
    export_version,
    head_spec,
    portable_config,
    required_input_columns,
)
from .extenders import export_forward_keys

__all__ = ["export_estimator", "export_model_fn", "write_export"]


def _new_export_dir(base: str) -> str:
    """``base/<timestamp>``, numbered above every export already there (the newest is
    the highest number, even when exports come faster than a second apart and older
    ones are deleted)."""
    os.makedirs(base, exist_ok=True)
    taken = [v for v in map(export_version, os.listdir(base)) if v is not None]
    stamp = max([int(time.time()), *(t + 1 for t in taken)])
    while os.path.exists(os.path.join(base, str(stamp))):
        stamp += 1
    return os.path.join(base, str(stamp))


def write_export(export_dir_base, write, assets_extra=None) -> str:
    """Make ``export_dir_base/<timestamp>`` with ``write(path)`` and return its path. The
    directory appears whole or not at all: it is written under a temporary name and
    renamed when complete. ``assets_extra`` (TF's): ``{relative destination: source
    file}`` copied into the export's ``assets.extra/``."""
    extra = _checked_assets_extra(assets_extra)
    final = _new_export_dir(os.fspath(export_dir_base))
    tmp = os.path.join(os.path.dirname(final), f".tmp-{uuid.uuid4().hex}")
    os.makedirs(tmp)
    try:
        write(tmp)
        for dest, source in extra.items():
            target = os.path.join(tmp, "assets.extra", dest)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copyfile(source, target)
        os.rename(tmp, final)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return final


def _checked_assets_extra(assets_extra) -> dict:
    """``assets_extra`` as a dict of relative destinations to existing files."""
    if assets_extra is None:
        return {}
    if not isinstance(assets_extra, dict):
        raise TypeError(f"assets_extra must be a dict, got {type(assets_extra).__name__}")
    for dest, source in assets_extra.items():
        parts = os.path.normpath(str(dest)).split(os.sep)
        if os.path.isabs(str(dest)) or ".." in parts or not str(dest):
            raise ValueError(
                f"assets_extra key {dest!r} must be a relative path inside assets.extra/"
            )
        if not os.path.isfile(source):
            raise FileNotFoundError(f"assets_extra[{dest!r}]: no file {source!r}")
    return assets_extra


def export_estimator(
    estimator, export_dir_base, serving_input_receiver_fn=None, assets_extra=None
) -> str:
    """Write ``estimator``'s latest state to ``export_dir_base/<timestamp>``; return the path.

    ``serving_input_receiver_fn`` (from ``build_parsing_serving_input_receiver_fn`` or
    ``build_raw_serving_input_receiver_fn``) is recorded in ``model.json``; its features
    must include every input column the model reads.

    Raises ``ValueError`` when ``model_dir`` holds no checkpoint (as TF): an export of an
    untrained model would hold random weights.
    """
    receiver = receivers_module.resolve_receiver(serving_input_receiver_fn)
    if estimator.latest_checkpoint() is None:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    estimator.train_state.resume()
    network = estimator.model.network
    network_spec = network.spec()  # refuses unserializable columns/activations
    if receiver is not None:
        missing = sorted(set(required_input_columns(network)) - set(receiver.features))
        if missing:
            raise ValueError(
                f"the serving input receiver lacks input column(s) {missing} the model reads; "
                "give its feature_spec every one (make_parse_example_spec(feature_columns) "
                "has them all)"
            )

    forwarded = export_forward_keys(
        estimator.model,
        None if receiver is None else receiver.features,
        required_input_columns(network),
    )

    def write(tmp):
        copy_vocabulary = asset_copier(tmp)
        model = {
            "format_version": EXPORT_FORMAT_VERSION,
            "library_version": core.library_version(),
            "estimator": type(estimator).__name__,
            "global_step": estimator.global_step,
            "weight_column": estimator.weight_column,
            "head": head_spec(estimator.head),
            "network": portable_config(network_spec, copy_vocabulary),
        }
        if receiver is not None:
            model["serving_input_receiver"] = receiver.to_json()
        if forwarded:
            model["forward_features"] = forwarded
        core.Checkpoint(model=network).write(os.path.join(tmp, VARIABLES_PREFIX))
        with open(os.path.join(tmp, MODEL_FILE), "w") as f:
            json.dump(model, f, indent=2)

    return write_export(export_dir_base, write, assets_extra)


def export_model_fn(
    estimator,
    export_dir_base,
    receiver_fn=None,
    assets_extra=None,
    checkpoint_path=None,
    predict_spec=None,
) -> str:
    """Write the export of a ``model_fn``'s ``estimator`` to ``export_dir_base/<timestamp>``
    from ``checkpoint_path`` (default: model_dir's latest); return its path. The variables
    are read from the checkpoint file; ``params`` that cannot be saved are refused before
    anything is written. ``predict_spec(batch)``, the model's PREDICT spec in a scratch
    store, gives the ``export_outputs`` keys recorded as the export's signatures."""
    receiver = receivers_module.resolve_receiver(receiver_fn)
    checkpoint = (
        os.fspath(checkpoint_path) if checkpoint_path is not None else estimator.latest_checkpoint()
    )
    if checkpoint is None:
        raise ValueError(f"Couldn't find trained model at {estimator.model_dir}.")
    if not (
        core.checkpoint_exists(checkpoint) or core.checkpoint_index.is_tf_checkpoint(checkpoint)
    ):
        raise ValueError(f"checkpoint_path {checkpoint!r} is not a checkpoint")
    model_fn_export.params_to_json(estimator.params)  # refuses unsavable params first
    weights = {
        name: core.load_variable(checkpoint, name)
        for name, _ in core.list_variables(checkpoint)
        if is_model_variable(name) and name != "global_step"
    }
    meta = {"global_step": int(core.load_variable(checkpoint, "global_step"))}
    if receiver is not None:
        meta["serving_input_receiver"] = receiver.to_json()
    receiver_features = None if receiver is None else receiver.features
    forwarded = export_forward_keys(estimator.model, receiver_features, None)
    if forwarded:
        meta["forward_features"] = forwarded
    signatures = predict_spec and model_fn_export.export_signatures(predict_spec, receiver)
    if signatures:
        meta["signatures"] = signatures
    name = fn_name(estimator.model.model_fn)
    return write_export(
        export_dir_base,
        lambda path: model_fn_export.write_model_fn_export(
            path, name, estimator.params, weights, **meta
        ),
        assets_extra,
    )
