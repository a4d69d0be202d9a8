"""When a hook acts: every N steps or every N seconds, on one clock tests can replace."""

from __future__ import annotations

import time


def now() -> float:
    """The hooks' clock (seconds, monotonic); tests replace it."""
    return time.monotonic()


class Every:
    """Fires every ``steps`` steps or every ``secs`` seconds (exactly one must be set)."""

    def __init__(self, steps=None, secs=None, what="hook"):
        if (steps is None) == (secs is None):
            raise ValueError(
                f"{what}: set exactly one of every-steps or every-secs, got "
                f"steps={steps}, secs={secs}"
            )
        if (steps is not None and steps < 1) or (secs is not None and secs <= 0):
            raise ValueError(
                f"{what}: the interval must be positive, got steps={steps}, secs={secs}"
            )
        self.steps, self.secs = steps, secs
        self.last_step, self.last_time = None, None

    def due(self, step: int) -> bool:
        if self.last_step is None:
            return True
        if self.steps is not None:
            return step >= self.last_step + self.steps
        return now() >= self.last_time + self.secs

    def due_on_grid(self, step: int) -> bool:
        """Due when ``step`` crossed a multiple of ``steps`` since the last mark (the
        global step's grid, whatever step a run started from), or ``secs`` passed."""
        if self.steps is not None and self.last_step is not None:
            return step // self.steps > self.last_step // self.steps
        return self.due(step)

    def mark(self, step: int) -> None:
        self.last_step, self.last_time = step, now()


class SecondOrStepTimer:
    """TF's timer for hooks that act every N seconds or every N steps: exactly one of
    ``every_secs`` and ``every_steps``.

    >>> timer = SecondOrStepTimer(every_steps=10)
    >>> timer.should_trigger_for_step(0), timer.update_last_triggered_step(0)
    (True, (None, None))
    >>> timer.should_trigger_for_step(9), timer.should_trigger_for_step(10)
    (False, True)
    """

    def __init__(self, every_secs=None, every_steps=None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError("Either every_secs or every_steps should be provided.")
        self._every_secs, self._every_steps = every_secs, every_steps
        self.reset()

    def reset(self) -> None:
        """Forget the last trigger: the next step triggers."""
        self._last_step, self._last_time = None, None

    def should_trigger_for_step(self, step: int) -> bool:
        """Whether ``step`` is due: the first step, then ``every_steps`` steps or
        ``every_secs`` seconds after the last trigger (never the same step twice)."""
        if self._last_step is None:
            return True
        if step == self._last_step:
            return False
        if self._every_secs is not None and now() >= self._last_time + self._every_secs:
            return True
        return self._every_steps is not None and step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step: int) -> tuple:
        """Mark ``step`` triggered; ``(seconds, steps)`` since the last trigger, or
        ``(None, None)`` the first time."""
        current = now()
        elapsed = (None, None)
        if self._last_step is not None:
            elapsed = (current - self._last_time, step - self._last_step)
        self._last_step, self._last_time = step, current
        return elapsed

    def last_triggered_step(self):
        """The last step marked, or ``None``."""
        return self._last_step


__all__ = ["Every", "SecondOrStepTimer", "now"]
