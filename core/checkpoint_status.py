"""What a :meth:`~colonnade.core.checkpoint.Checkpoint.restore` matched: TF's load
statuses and their assertions (``assert_consumed``, ``assert_existing_objects_matched``,
``assert_nontrivial_match``, ``expect_partial``).

>>> s = CheckpointLoadStatus("ckpt-1", ["w"], [], [])
>>> s.assert_consumed() is s
True
"""

from __future__ import annotations

import logging

__all__ = ["CheckpointLoadStatus", "InitializationOnlyStatus"]

logger = logging.getLogger("colonnade")


def _listing(items, limit=10) -> str:
    items = sorted(items)
    shown = ", ".join(repr(i) for i in items[:limit])
    return shown + (f", ... ({len(items) - limit} more)" if len(items) > limit else "")


class CheckpointLoadStatus:
    """What a :meth:`Checkpoint.restore` matched, with TF's assertions.

    ``unused_keys``: saved values with no matching object. ``unmatched_objects``: paths of
    current objects that got no value. Each assertion returns the status, so they chain.

    - ``assert_consumed()``: both lists are empty — the checkpoint and the objects match
      exactly.
    - ``assert_existing_objects_matched()``: every current object got a value; extra saved
      values are fine (loading only the model from a training checkpoint).
    - ``assert_nontrivial_match()``: at least one value was restored.
    - ``expect_partial()``: silences the warning about unused values logged when the status
      is garbage collected.
    """

    def __init__(self, path, restored, unused_keys, unmatched_objects):
        self.path = path
        self.restored_keys = sorted(restored)
        self.unused_keys = sorted(unused_keys)
        self.unmatched_objects = sorted(unmatched_objects)
        self._silenced = False

    def assert_consumed(self):
        """Raise ``AssertionError`` unless every saved value and every object were matched."""
        self.assert_existing_objects_matched()
        if self.unused_keys:
            raise AssertionError(
                f"unused values in checkpoint {self.path}: {_listing(self.unused_keys)}; no "
                "current object has these paths (use assert_existing_objects_matched() or "
                "expect_partial() when restoring only part of a checkpoint)"
            )
        return self

    def assert_existing_objects_matched(self):
        """Raise ``AssertionError`` if a current object got no value from the checkpoint."""
        if self.unmatched_objects:
            raise AssertionError(
                f"objects not found in checkpoint {self.path}: {_listing(self.unmatched_objects)}"
            )
        return self

    def assert_nontrivial_match(self):
        """Raise ``AssertionError`` if nothing at all was restored."""
        if not self.restored_keys:
            raise AssertionError(f"nothing in the current objects matched checkpoint {self.path}")
        return self

    def expect_partial(self):
        """Declare a partial restore intended: no warning about unused values."""
        self._silenced = True
        return self

    def run_restore_ops(self, session=None) -> None:
        """TF's: run the restore ops in a graph; the values are already restored (eager),
        so there is nothing to run."""

    def __del__(self):
        try:
            if self.unused_keys and not self._silenced:
                logger.warning(
                    "restore of %s left %d saved values unused: %s (call expect_partial() on "
                    "the status to silence this)",
                    self.path,
                    len(self.unused_keys),
                    _listing(self.unused_keys),
                )
        except Exception:  # noqa: BLE001 - interpreter shutdown may have torn logging down
            pass


class InitializationOnlyStatus:
    """The status of ``restore(None)``: nothing restored; the assertions all raise."""

    path = None
    restored_keys, unused_keys, unmatched_objects = [], [], []

    def _fail(self):
        raise AssertionError("no checkpoint specified (save_path=None); nothing is restored")

    def run_restore_ops(self, session=None) -> None:
        """TF's: initialize the variables in a graph; they already are (eager)."""

    def assert_consumed(self):
        """Always raises: there was no checkpoint."""
        self._fail()

    def assert_existing_objects_matched(self):
        """Always raises: there was no checkpoint."""
        self._fail()

    def assert_nontrivial_match(self):
        """Always raises: there was no checkpoint."""
        self._fail()

    def expect_partial(self):
        """Nothing to silence; returns the status."""
        return self
