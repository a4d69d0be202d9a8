"""Exporters for ``train_and_evaluate``: TF's ``LatestExporter``, ``BestExporter`` and
``FinalExporter``.

After each evaluation, ``train_and_evaluate`` calls every exporter of the ``EvalSpec``
with ``export(estimator, export_path, checkpoint_path, eval_result,
is_the_final_export)``; ``export_path`` is ``model_dir/export/<exporter name>``, under
which each export is a timestamped directory (``estimator.export_saved_model``'s).

* :class:`LatestExporter` exports after every evaluation and keeps the newest
  ``exports_to_keep``;
* :class:`BestExporter` exports when the evaluation beats the best so far (lower
  ``loss`` by default, or ``compare_fn(best_eval_result, current_eval_result)``). As TF,
  it reads the best so far from the event files ``evaluate`` wrote
  (``event_file_pattern``, relative to ``model_dir``), and its first export of a run
  happens at the run's first evaluation whatever that best was;
* :class:`FinalExporter` exports once, at the evaluation of the last step
  (``TrainSpec.max_steps``; without one, as TF, never).

>>> loss_smaller({"loss": 0.5}, {"loss": 0.4})
True
"""

from __future__ import annotations

import abc
import glob
import inspect
import logging
import os
import shutil

from ..hooks.early_stopping import scalar_events
from .directory import export_version
from .receivers import resolve_receiver

logger = logging.getLogger("colonnade")

__all__ = ["BestExporter", "Exporter", "FinalExporter", "LatestExporter", "loss_smaller"]


class Exporter(abc.ABC):
    """The interface ``train_and_evaluate`` calls: a ``name`` (the export folder's) and
    ``export(estimator, export_path, checkpoint_path, eval_result,
    is_the_final_export)`` returning the export's path or ``None``."""

    @property
    @abc.abstractmethod
    def name(self) -> str: ...

    @abc.abstractmethod
    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export): ...


class _SavedModelExporter(Exporter):
    """One ``export_saved_model`` of the evaluated checkpoint."""

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        if not isinstance(name, str) or not name:
            raise ValueError(f"an exporter's name must be a non-empty string, got {name!r}")
        if os.sep in name or name in (".", ".."):
            raise ValueError(f"an exporter's name is a folder name; got {name!r}")
        resolve_receiver(serving_input_receiver_fn)  # refuses a TF receiver now, not later
        self._name = name
        self.serving_input_receiver_fn = serving_input_receiver_fn
        self.assets_extra, self.as_text = assets_extra, as_text

    @property
    def name(self) -> str:
        return self._name

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        return estimator.export_saved_model(
            export_path,
            self.serving_input_receiver_fn,
            assets_extra=self.assets_extra,
            as_text=self.as_text,
            checkpoint_path=checkpoint_path,
        )


def _check_keep(exports_to_keep):
    if exports_to_keep is not None and (
        not isinstance(exports_to_keep, int) or exports_to_keep <= 0
    ):
        raise ValueError(
            f"exports_to_keep, if provided, must be a positive number, got {exports_to_keep!r}"
        )
    return exports_to_keep


def _keep_newest(export_dir_base: str, keep) -> None:
    """Delete all but the ``keep`` newest timestamped exports under ``export_dir_base``."""
    if keep is None or not os.path.isdir(export_dir_base):
        return
    stamps = sorted(v for v in map(export_version, os.listdir(export_dir_base)) if v is not None)
    for stamp in stamps[:-keep]:
        shutil.rmtree(os.path.join(export_dir_base, str(stamp)), ignore_errors=True)


class LatestExporter(_SavedModelExporter):
    """Export after every evaluation; keep the newest ``exports_to_keep`` (``None``: all).

    ``serving_input_receiver_fn`` as ``export_saved_model``'s (``None``: raw rows, or a
    ``build_parsing_serving_input_receiver_fn(...)``); ``assets_extra`` copied into each
    export; ``as_text`` kept for TF's signature (an export is JSON)."""

    def __init__(
        self, name, serving_input_receiver_fn, assets_extra=None, as_text=False, exports_to_keep=5
    ):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self.exports_to_keep = _check_keep(exports_to_keep)

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        path = super().export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )
        _keep_newest(export_path, self.exports_to_keep)
        return path


class FinalExporter(_SavedModelExporter):
    """Export once, when the evaluation is of the training's last step."""

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if not is_the_final_export:
            return None
        logger.info("performing the final export at the end of training")
        return super().export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )


def loss_smaller(best_eval_result, current_eval_result) -> bool:
    """BestExporter's default: whether ``current_eval_result`` has the lower ``loss``."""
    for name, result in (
        ("best_eval_result", best_eval_result),
        ("current_eval_result", current_eval_result),
    ):
        if not result or "loss" not in result:
            raise ValueError(f"{name} cannot be empty or without a loss; got {result!r:.200}")
    return best_eval_result["loss"] > current_eval_result["loss"]


def _check_compare_fn(compare_fn):
    if not callable(compare_fn):
        raise TypeError(f"compare_fn must be callable, got {type(compare_fn).__name__}")
    names = set(inspect.signature(compare_fn).parameters)
    expected = {"best_eval_result", "current_eval_result"}
    if names != expected:
        raise ValueError(
            f"compare_fn {getattr(compare_fn, '__name__', compare_fn)} must take exactly the "
            f"arguments {sorted(expected)}, got {sorted(names)}"
        )
    return compare_fn


class BestExporter(_SavedModelExporter):
    """Export when an evaluation is better than every earlier one (see the module).

    Args:
        name: the export folder's name under ``model_dir/export``.
        serving_input_receiver_fn: as :class:`LatestExporter`'s.
        event_file_pattern: where ``evaluate`` wrote the earlier results, relative to
            ``model_dir`` (default ``eval/*.tfevents.*``; ``eval_<name>/*.tfevents.*``
            for an ``EvalSpec`` with a name); ``None`` to start from no best.
        compare_fn: ``compare_fn(best_eval_result, current_eval_result) -> bool``, True
            when the current one is better (default: lower ``loss``).
        assets_extra, as_text: as :class:`LatestExporter`'s.
        exports_to_keep: keep the newest this many exports (``None``: all)."""

    def __init__(
        self,
        name="best_exporter",
        serving_input_receiver_fn=None,
        event_file_pattern="eval/*.tfevents.*",
        compare_fn=None,
        assets_extra=None,
        as_text=False,
        exports_to_keep=5,
    ):
        super().__init__(name, serving_input_receiver_fn, assets_extra, as_text)
        self.compare_fn = _check_compare_fn(compare_fn or loss_smaller)
        self.event_file_pattern = event_file_pattern
        self.exports_to_keep = _check_keep(exports_to_keep)
        self._model_dir = None
        self.best_eval_result = None
        self._has_exported = False

    def export(self, estimator, export_path, checkpoint_path, eval_result, is_the_final_export):
        if self._model_dir != estimator.model_dir and self.event_file_pattern:
            self._model_dir = estimator.model_dir
            pattern = os.path.join(self._model_dir, self.event_file_pattern)
            self.best_eval_result = self._best_in_events(pattern)
        better = (
            self.best_eval_result is None
            or not self._has_exported
            or self.compare_fn(
                best_eval_result=self.best_eval_result, current_eval_result=eval_result
            )
        )
        if not better:
            return None
        logger.info("performing best model export")
        self.best_eval_result = dict(eval_result)
        path = super().export(
            estimator, export_path, checkpoint_path, eval_result, is_the_final_export
        )
        _keep_newest(export_path, self.exports_to_keep)
        self._has_exported = True
        return path

    def _best_in_events(self, pattern):
        """The best of the evaluation results recorded in the event files ``pattern``."""
        best = None
        for path in sorted(glob.glob(pattern)):
            for result in _scalar_events(path):
                if best is None or self.compare_fn(
                    best_eval_result=best, current_eval_result=result
                ):
                    best = result
        return best


def _scalar_events(path) -> list:
    """The scalar values of an event file by step, ``[{tag: value}, ...]``."""
    return [values for _, values in sorted(scalar_events(path).items())]
