"""The versions a server holds: which exist on disk, which is loaded, and the swap.

``EXPORT`` is one export directory (served as a single version: its name when numeric,
else 1) or a base directory of numbered versions, TF Serving's layout ``base/1``,
``base/2``... (colonnade's timestamped exports are numbered the same way). The newest
version is served, as TF Serving's default ``latest`` policy does. A poller thread looks
for newer versions every ``poll_interval`` seconds: a new one is loaded in full, then
the served reference is replaced in one assignment, so a request holds either the old
model or the new one for its whole life and none is dropped. A version that fails to
load is logged and skipped (the old one keeps serving) and tried again only when its
files change. A served version whose directory is removed is unloaded, as TF Serving
does: the newest version left on disk is served in its place, and with none left
requests get a 404 saying so.

>>> store = ModelStore(path)  # doctest: +SKIP
>>> store.serving().version, store.serving().predictor  # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from ..data.tensor_slices import table_from_columns
from ..estimators.export import checks as export_checks
from ..estimators.export.checks import ExportError
from ..estimators.export.directory import MODEL_FILE, Predictor, export_version
from ..estimators.export.extenders import forwarded_values
from ..estimators.export.model_fn_export import signatures_from_json
from ..estimators.export.parse_spec_json import receiver_schema
from ..estimators.export.receivers import ServingInputReceiver
from ..estimators.export.serving_graph_budget import GraphBudgetError
from ..estimators.loading import ModelFnPredictor
from ..feature_columns import make_parse_example_spec
from ..feature_columns.transform_cache import ValueIds
from .inference import predict_table
from .model_fns import FLAG
from .requests import BadRequest
from .signatures import canned_signatures, recorded_signatures

__all__ = ["ModelStore", "ServedModel", "find_versions", "load_inside"]

logger = logging.getLogger("colonnade.serving")

DEFAULT_POLL_INTERVAL = 2.0
"""Seconds between two looks for new versions (TF Serving polls its file system every
``file_system_poll_wait_seconds``, 1 s by default)."""


@dataclass(frozen=True)
class ServedModel:
    """One loaded version: its number, the predictor, and what it reads and answers.

    ``inputs`` maps each raw input column to its Arrow type (``make_parse_example_spec``
    of the model's feature columns); ``outputs`` maps each prediction key to its width
    (``0`` for a ``(n,)`` prediction, ``k`` for ``(n, k)``) and ``output_dtypes`` to its
    numpy dtype. ``value_ids`` is this version's memo of categorical ids for tiny
    requests. ``parse_features`` is the recorded ``tf.Example`` spec (JSON form) of an
    export that takes serialized examples, else ``None``.

    An export of a custom ``Estimator(model_fn)`` (``model_fn`` set: its name) reads the
    inputs of its recorded serving receiver, or, with none recorded, ``inputs`` is
    ``None``: any columns, typed by their JSON values. Its ``outputs`` are the keys of
    the model_fn's predictions, known from the first request that succeeds (empty
    before: a model_fn may compute anything, so no probe row is made up for it). Its
    model_fn runs one request at a time (it is the user's code, not known to be
    thread-safe).
    """

    version: int
    path: str
    predictor: Predictor
    inputs: dict
    outputs: dict
    output_dtypes: dict
    value_ids: ValueIds
    parse_features: dict | None = None
    model_fn: str | None = None
    lock: threading.Lock | None = None
    optional_inputs: tuple = ()
    signatures: dict | None = None
    """``{key: Signature}`` this version serves (:mod:`.signatures`)."""
    example_context: tuple = ()
    """The inputs a request sends beside each serialized example (a ``key``) to an
    export whose receiver parses examples (``ServingInputReceiver.examples_context``)."""

    @classmethod
    def load(cls, version: int, path: str, model_fns: dict | None = None) -> ServedModel:
        """Load the export at ``path`` as ``version``; an export of a custom Estimator
        takes its model_fn from ``model_fns`` (``{name: function}``) by the name it
        records, and is refused, naming that name and ``--model-fn``, without it."""
        meta = export_checks.read_json(os.path.realpath(path), MODEL_FILE)
        if isinstance(meta, dict) and "model_fn" in meta:
            return cls.load_model_fn(version, path, meta, model_fns or {})
        predictor = Predictor(path)
        network = predictor.network
        columns = []
        if network.linear is not None:
            columns += list(network.linear.linear.feature_columns)
        if network.dnn is not None:
            columns += list(network.dnn.input_layer.feature_columns)
        schema = make_parse_example_spec(columns)
        head = predictor.head
        sample = head.predictions(np.zeros((1, head.logits_dimension), np.float32))
        outputs, dtypes = {}, {}
        for key, value in sample.items():
            value = np.asarray(value)
            outputs[key] = value.shape[1] if value.ndim == 2 else 0
            dtypes[key] = value.dtype
        inputs = {field.name: field.type for field in schema}
        forward_inputs_and_outputs(predictor, inputs, outputs, dtypes)
        parse_features = None
        if predictor.takes_examples:
            parse_features = predictor.serving_input_receiver.features
        graph = _graph_inputs(predictor.serving_input_receiver)
        optional = context = ()
        if graph is not None:
            inputs, parse_features, optional, context = graph
        return cls(
            version,
            predictor.path,
            predictor,
            inputs,
            outputs,
            dtypes,
            ValueIds(),
            parse_features,
            optional_inputs=optional,
            signatures=canned_signatures(head),
            example_context=context,
        )

    @classmethod
    def load_model_fn(cls, version: int, path: str, meta: dict, model_fns: dict) -> ServedModel:
        """The export of a custom Estimator at ``path`` (its ``model.json`` is ``meta``)."""
        name = export_checks.model_fn_name(meta, os.path.join(path, MODEL_FILE))
        if name not in model_fns:
            given = ", ".join(sorted(map(repr, model_fns))) or "none"
            raise ExportError(
                f"{path} is an export of a custom Estimator whose model_fn is {name!r}: "
                f"serve it with {FLAG.replace('NAME', name)} (serve(..., model_fns="
                f"{{{name!r}: 'package.module:function'}})); model_fns given: {given}"
            )
        predictor = ModelFnPredictor(path, meta, {name: model_fns[name]})
        recorded = signatures_from_json(meta, os.path.join(path, MODEL_FILE))
        inputs, parse_features, optional, context = None, None, (), ()
        graph = _graph_inputs(predictor.serving_input_receiver)
        if graph is not None:
            inputs, parse_features, optional, context = graph
        elif predictor.serving_input_receiver is not None:
            features = predictor.serving_input_receiver.features
            inputs = {field.name: field.type for field in receiver_schema(features)}
            if predictor.takes_examples:
                parse_features = features
        return cls(
            version,
            path,
            predictor,
            inputs,
            {},
            {},
            ValueIds(),
            parse_features,
            name,
            threading.Lock(),
            optional,
            recorded_signatures(recorded),
            context,
        )

    def predict(self, table: pa.Table) -> dict:
        """``{output: array}`` of this version's predictions for ``table`` (its inputs),
        one row per row."""
        receiver = self.predictor.serving_input_receiver
        graph = isinstance(receiver, ServingInputReceiver)
        if graph:
            parsed = self.parse_features is not None
            table = _through_graph(receiver, table, parsed, self.example_context)
        if self.model_fn is None:
            forwarded = self.predictor.forwarded_features
            keys = [k for k in self.outputs if k not in forwarded]
            arrays = predict_table(self.predictor, table, keys, self.value_ids)
            return {**arrays, **forwarded_values(table, forwarded)}
        with self.lock:  # the serving graph, if any, is applied above: not again
            arrays = self.predictor.predict_arrays(table, features=graph)
        if arrays is None:  # no row: the known outputs, cut to none
            if not self.outputs:
                raise ValueError("the request has no rows; send at least one")
            return {
                k: np.zeros((0, w) if w else (0,), self.output_dtypes[k])
                for k, w in self.outputs.items()
            }
        if not self.outputs:
            for key, value in arrays.items():
                self.output_dtypes[key] = value.dtype
                self.outputs[key] = value.shape[1] if value.ndim == 2 else 0
        return arrays


def forward_inputs_and_outputs(predictor, inputs: dict, outputs: dict, dtypes: dict) -> None:
    """Add the input columns an export of a ``forward_features`` estimator forwards to
    the served ``inputs`` (typed as its receiver records them, else as strings) and to
    its ``outputs`` (one value a row), as TF's ``predict`` signature answers them."""
    forwarded = predictor.forwarded_features
    if not forwarded:
        return
    recorded = {}
    receiver = predictor.serving_input_receiver
    if isinstance(receiver, ServingInputReceiver):
        recorded = dict(receiver.inputs)
    elif receiver is not None:
        recorded = {field.name: field.type for field in receiver_schema(receiver.features)}
    for key in forwarded:
        arrow_type = inputs.setdefault(key, recorded.get(key, pa.string()))
        outputs[key] = 0
        is_string = pa.types.is_string(arrow_type)
        dtypes[key] = np.dtype(object) if is_string else np.dtype(arrow_type.to_pandas_dtype())


def _graph_inputs(receiver):
    """``(inputs, parse_features, optional inputs, context inputs)`` a request to an
    export made with a ``ServingInputReceiver`` is checked against: its receiver
    tensors' types, or, for a receiver of serialized ``tf.Example`` records, the parsed
    features' and those of the inputs sent beside each example (a ``key``); else None."""
    if not isinstance(receiver, ServingInputReceiver):
        return None
    found = receiver.examples_context()
    if found is not None:
        spec, context = found
        inputs = {field.name: field.type for field in receiver_schema(spec)}
        inputs.update({name: receiver.inputs[name] for name in context})
        optional = tuple(n for n in receiver.optional_inputs if n in context)
        return inputs, spec, optional, context
    return receiver.inputs, None, tuple(receiver.optional_inputs), ()


def _through_graph(receiver, table: pa.Table, parsed: bool, context: tuple = ()) -> pa.Table:
    """The model's features of a request ``table``: the export's serving graph applied
    to its receiver tensors (or, ``parsed``, to its already parsed examples and the
    ``context`` inputs sent beside them); a value that does not fit is a
    :class:`~.errors.BadRequest` naming the input, and one the graph would need more
    than its budget of values for a 413 naming both."""
    try:
        if parsed:
            sent = [name for name in context if name in table.column_names]
            columns = {name: table.column(name) for name in sent}
            features = receiver.apply(columns, parsed=table.drop_columns(sent))
        else:
            features = receiver.apply(table)
        return table_from_columns(
            features, "the serving input receiver's features", keep_row_shape=True
        )
    except GraphBudgetError as e:
        raise BadRequest(f"the serving input receiver cannot take the request: {e}", 413) from None
    except (ValueError, TypeError, KeyError, pa.ArrowException) as e:
        raise BadRequest(f"the serving input receiver cannot take the request: {e}") from None


def find_versions(base: str) -> dict:
    """``{version: path}`` of the numbered export directories in ``base``."""
    found = {}
    try:
        names = os.listdir(base)
    except OSError:
        return found
    for name in names:
        version = export_version(name)
        path = os.path.join(base, name)
        if version is not None and os.path.isfile(os.path.join(path, MODEL_FILE)):
            found[version] = path
    return found


def load_inside(base: str, version: int, path: str, model_fns: dict | None = None) -> ServedModel:
    """Load ``version`` at ``path``, refusing a version directory that resolves (through
    a symlink) outside ``base``: the base directory is what the operator pointed the
    server at, and a link out of it would serve whatever it names. A link to another
    place inside ``base`` is followed."""
    real_base, real = os.path.realpath(base), os.path.realpath(path)
    if os.path.commonpath([real_base, real]) != real_base:
        raise PermissionError(
            f"version directory {path!r} is a symlink to {real!r}, outside the base "
            f"directory {real_base!r}; refused. Copy the export into the base directory "
            "(or link to a place inside it)"
        )
    return ServedModel.load(version, path, model_fns)


def _fingerprint(path: str) -> tuple:
    """The names, sizes and modification times of the files under ``path``: a failed
    version is tried again only when this changes (a copy still being written)."""
    entries = []
    for root, _, files in os.walk(path):
        for name in files:
            file = os.path.join(root, name)
            try:
                st = os.stat(file)
            except OSError:
                continue
            entries.append((os.path.relpath(file, path), st.st_size, st.st_mtime_ns))
    return tuple(sorted(entries))


class ModelStore:
    """The served version of the export(s) at ``path`` and the poller that updates it.

    ``serving()`` is the newest loaded version; ``get(version)`` a loaded version or
    ``None``; ``status()`` every version seen, TF Serving's ``model_version_status``.
    ``start()`` starts the poller thread (a base directory only), ``stop()`` ends it;
    ``on_swap``, when set, is called (on the poller's thread) after each swap.
    ``model_fns`` (``{name: function}``) gives the model_fn of custom Estimators' exports
    by the name they record (:mod:`.model_fns` imports them from ``--model-fn``).
    Raises ``FileNotFoundError`` when ``path`` holds no export, and the load error of
    the newest version when no version loads at all.
    """

    def __init__(
        self, path, poll_interval: float = DEFAULT_POLL_INTERVAL, model_fns: dict | None = None
    ):
        self.path = os.fspath(path)
        self.model_fns = dict(model_fns or {})
        self.poll_interval = poll_interval
        self._lock = threading.Lock()  # one poll at a time; readers never take it
        self._stop = threading.Event()
        self._thread = None
        self._failed: dict = {}  # version -> (fingerprint, message)
        self._retired: set = set()
        self.on_swap = None
        if os.path.isfile(os.path.join(self.path, MODEL_FILE)):
            self.is_base = False
            version = export_version(os.path.basename(os.path.normpath(self.path))) or 1
            self._loaded = {version: ServedModel.load(version, self.path, self.model_fns)}
            return
        if not os.path.isdir(self.path):
            raise FileNotFoundError(f"no export at {self.path!r}")
        self.is_base = True
        self._loaded = {}
        versions = find_versions(self.path)
        if not versions:
            raise FileNotFoundError(
                f"{self.path!r} holds no {MODEL_FILE} nor numbered export directories "
                "(base/1, base/2, ... or colonnade's timestamped exports)"
            )
        errors = []
        for version in sorted(versions, reverse=True):
            try:
                self._loaded = {
                    version: load_inside(self.path, version, versions[version], self.model_fns)
                }
                break
            except Exception as e:
                errors.append(e)
                self._note_failure(version, versions[version], e)
        if not self._loaded:
            raise errors[0]

    # ------------------------------------------------------------------ reading

    def serving(self) -> ServedModel:
        """The version answering requests that name none: the newest loaded. With none
        loaded (every version's directory was removed), a 404 ``BadRequest`` saying so,
        as TF Serving answers for a model with no servable version."""
        loaded = self._loaded
        if not loaded:
            raise BadRequest(
                f"no version of the model at {self.path!r} is available: the served "
                "version's directory was removed and no other version on disk loads",
                404,
            )
        return loaded[max(loaded)]

    def get(self, version: int):
        """The loaded ``version``, or ``None``."""
        return self._loaded.get(version)

    def status(self) -> list:
        """TF Serving's ``model_version_status`` list, newest first: loaded versions are
        ``AVAILABLE``, replaced ones ``END``, ones that failed to load ``END`` with their
        error."""
        rows = {}
        for version in self._retired:
            rows[version] = ("END", "OK", "")
        for version, (_, message) in self._failed.items():
            rows[version] = ("END", "UNKNOWN", message)
        for version in self._loaded:
            rows[version] = ("AVAILABLE", "OK", "")
        return [
            {
                "version": str(v),
                "state": state,
                "status": {"error_code": code, "error_message": message},
            }
            for v, (state, code, message) in sorted(rows.items(), reverse=True)
        ]

    # ------------------------------------------------------------------ updating

    def _on_disk(self) -> dict:
        """``{version: path}`` of the versions there are on disk now."""
        if self.is_base:
            return find_versions(self.path)
        if not os.path.isfile(os.path.join(self.path, MODEL_FILE)):
            return {}
        return {export_version(os.path.basename(os.path.normpath(self.path))) or 1: self.path}

    def _unload_removed(self, versions: dict) -> bool:
        """Stop serving the loaded versions whose directory is gone from ``versions`` (as
        TF Serving unloads them); whether any was."""
        gone = [v for v in self._loaded if v not in versions]
        for version in gone:
            logger.warning("version %d was removed from %s: no longer served", version, self.path)
        if gone:
            self._retired.update(gone)
            self._loaded = {v: m for v, m in self._loaded.items() if v in versions}
        return bool(gone)

    def poll(self) -> bool:
        """Stop serving a version whose directory was removed; load the newest version
        on disk if it is newer than the served one (or any, once none is served) and did
        not fail with the same files before; swap it in. Returns whether the served
        version changed."""
        with self._lock:
            versions = self._on_disk()
            removed = self._unload_removed(versions)
            current = max(self._loaded, default=0)
            for version in sorted((v for v in versions if v > current), reverse=True):
                path = versions[version]
                failed = self._failed.get(version)
                if failed is not None and failed[0] == _fingerprint(path):
                    continue
                try:
                    model = load_inside(self.path, version, path, self.model_fns)
                except Exception as e:
                    self._note_failure(version, path, e)
                    continue
                self._failed.pop(version, None)
                self._retired.update(self._loaded)
                self._retired.discard(version)
                self._loaded = {version: model}  # the swap: one reference assignment
                logger.info("serving version %d from %s", version, path)
                removed = True
                break
            if removed and self.on_swap is not None:
                self.on_swap()
            return removed

    def _note_failure(self, version, path, error) -> None:
        message = f"{type(error).__name__}: {error}"
        logger.error("version %d at %s failed to load, skipped: %s", version, path, message)
        self._failed[version] = (_fingerprint(path), message)

    def start(self) -> None:
        """Start the poller thread (a daemon), which also unloads a removed version."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="colonnade-poller", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the poller thread and wait for it."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while not self._stop.wait(self.poll_interval):
            try:
                self.poll()
            except Exception:  # the poller must outlive a bad directory listing
                logger.exception("polling %s for new versions failed", self.path)
