"""RunConfig and WarmStartSettings: how an estimator runs, and what it starts from."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field, replace

import numpy as np

# tf.estimator.RunConfig saves a checkpoint every 600 seconds unless told otherwise.
DEFAULT_SAVE_CHECKPOINTS_SECS = 600


class _UseDefault:
    """``save_checkpoints_secs`` left unset (TF's ``_USE_DEFAULT``): 600 seconds unless
    ``save_checkpoints_steps`` is set; an explicit ``None`` stays ``None``."""

    def __repr__(self) -> str:
        return "USE_DEFAULT"


USE_DEFAULT = _UseDefault()
# TF 2.15 RunConfig arguments about sessions, devices and distribution: accepted so that TF
# code runs unchanged, ignored (colonnade has no session or graph), with a warning.
IGNORED_TF_ARGUMENTS = (
    "session_config",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
)
_warned: set = set()


def _warn_ignored(name: str) -> None:
    """Warn once per process for each ignored TF argument that was set."""
    if name not in _warned:
        _warned.add(name)
        warnings.warn(
            f"RunConfig({name}=...) is a TensorFlow setting with no meaning in colonnade; "
            "it is ignored",
            UserWarning,
            stacklevel=4,
        )


@dataclass(frozen=True)
class RunConfig:
    """Where and how an estimator trains (``tf.estimator.RunConfig``'s arguments).

    ``tf_random_seed`` makes a run reproducible bit for bit on the numpy backend: weight
    initialization, dropout masks and ``fit``'s shuffling all derive from it. Set at most
    one of ``save_checkpoints_steps`` and ``save_checkpoints_secs``; with neither, a
    checkpoint is saved every 600 seconds and at the end of every ``train`` call. Both
    given as ``None`` (as TF) save no checkpoint at all while training.
    TF's session, device and distribution arguments (:data:`IGNORED_TF_ARGUMENTS`,
    e.g. ``session_config``) are accepted and ignored, with a warning once per name.

    Args:
        model_dir: where checkpoints and event files go (TF's default ``None``: the
            estimator's ``model_dir``, else a temporary directory).
        tf_random_seed: the seed of every random choice (TF's default ``None``: fresh
            randomness each run).
        save_summary_steps: TensorBoard scalars every this many steps; 0 writes none
            (TF's default 100).
        save_checkpoints_steps: a checkpoint when the global step is a multiple of this
            (TF's default ``None``).
        save_checkpoints_secs: a checkpoint every this many seconds (TF's default 600
            when neither is given; ``None`` with ``save_checkpoints_steps=None``: no
            checkpoints).
        keep_checkpoint_max: the newest checkpoints kept (TF's default 5; ``None``: all).
        keep_checkpoint_every_n_hours: also keep one checkpoint per this many hours
            (TF's default 10000: in practice none).
        log_step_count_steps: log the loss and steps/s every this many steps at INFO; 0
            logs none (TF's default 100).
        train_distribute: ``None`` (default: train in this process) or a
            ``cn.distribute.RayStrategy``: ``train`` and ``fit`` then run on Ray workers
            and parameter servers (see ``docs/distributed.md``).

    >>> RunConfig(save_checkpoints_steps=100).save_checkpoints_secs is None
    True
    """

    model_dir: str | None = None
    tf_random_seed: int | None = None
    save_summary_steps: int = 100
    save_checkpoints_steps: int | None = None
    save_checkpoints_secs: float | None = USE_DEFAULT  # type: ignore[assignment]
    keep_checkpoint_max: int = 5
    keep_checkpoint_every_n_hours: float = 10000.0
    log_step_count_steps: int = 100
    train_distribute: object = field(default=None, compare=False)
    # IGNORED_TF_ARGUMENTS, accepted and ignored:
    session_config: object = field(default=None, repr=False, compare=False)
    device_fn: object = field(default=None, repr=False, compare=False)
    protocol: object = field(default=None, repr=False, compare=False)
    eval_distribute: object = field(default=None, repr=False, compare=False)
    experimental_distribute: object = field(default=None, repr=False, compare=False)
    experimental_max_worker_delay_secs: object = field(default=None, repr=False, compare=False)
    session_creation_timeout_secs: object = field(default=None, repr=False, compare=False)
    checkpoint_save_graph_def: object = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        for name in IGNORED_TF_ARGUMENTS:
            if getattr(self, name) is not None:
                _warn_ignored(name)
        if self.train_distribute is not None and not callable(
            getattr(self.train_distribute, "train", None)
        ):
            raise TypeError(
                "train_distribute must be a cn.distribute.RayStrategy (an object with "
                f"train(estimator, input_fn, ...)), got {type(self.train_distribute).__name__}"
            )
        seed = self.tf_random_seed
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"tf_random_seed must be integer, got {seed!r}")
        if self.save_checkpoints_secs is USE_DEFAULT:
            secs = DEFAULT_SAVE_CHECKPOINTS_SECS if self.save_checkpoints_steps is None else None
            object.__setattr__(self, "save_checkpoints_secs", secs)
        if self.save_checkpoints_steps is not None and self.save_checkpoints_secs is not None:
            raise ValueError(
                "set at most one of save_checkpoints_steps and save_checkpoints_secs; got "
                f"{self.save_checkpoints_steps} and {self.save_checkpoints_secs}"
            )
        for name in ("save_summary_steps", "log_step_count_steps"):
            if getattr(self, name) is not None and getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.keep_checkpoint_max is not None and self.keep_checkpoint_max < 0:
            raise ValueError(f"keep_checkpoint_max must be >= 0, got {self.keep_checkpoint_max}")

    def replace(self, **changes) -> RunConfig:
        """A copy with some fields changed."""
        if "save_checkpoints_steps" in changes and "save_checkpoints_secs" not in changes:
            changes["save_checkpoints_secs"] = None
        return replace(self, **changes)


@dataclass(frozen=True)
class WarmStartSettings:
    """What to warm-start from (``tf.estimator.WarmStartSettings``).

    ``ckpt_to_initialize_from`` is a checkpoint path or a model_dir;
    ``vars_to_warm_start`` a regex or a list of names/regexes; ``var_name_to_vocab_info``
    maps variable names to :class:`VocabInfo` for remapped vocabularies;
    ``var_name_to_prev_var_name`` renames. Warm start applies only when the model_dir
    has no checkpoint yet; otherwise training resumes from that checkpoint.
    """

    ckpt_to_initialize_from: str
    vars_to_warm_start: object = ".*"
    var_name_to_vocab_info: dict = field(default_factory=dict)
    var_name_to_prev_var_name: dict = field(default_factory=dict)
