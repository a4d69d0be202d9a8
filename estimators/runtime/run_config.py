"""RunConfig and WarmStartSettings: how an estimator runs, and what it starts from."""

from __future__ import annotations

import copy
import inspect
import json
import os
import warnings
from dataclasses import dataclass, field, fields

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
# their TF defaults; a value other than these is warned about
_IGNORED_DEFAULTS = {"session_creation_timeout_secs": 7200}
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
    checkpoint is saved every 600 seconds and at the end of every ``train`` call. Either
    given alone sets the other to ``None`` (as TF: ``save_checkpoints_steps=None`` alone
    saves no checkpoint while training), as does :meth:`replace` given one not ``None``.
    TF's session, device and distribution arguments (:data:`IGNORED_TF_ARGUMENTS`,
    e.g. ``session_config``) are checked as TF checks them, then ignored, with a warning
    once per name. As TF, the ``TF_CONFIG`` environment variable (JSON) may give the
    ``model_dir`` and a ``service`` dict (:attr:`service`); its cluster and task keys are
    TF's gRPC servers, which colonnade does not run (``docs/distributed.md``).

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
            when neither is given).
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
    >>> RunConfig().replace(save_checkpoints_steps=10).save_checkpoints_secs is None
    True
    """

    model_dir: str | None = None
    tf_random_seed: int | None = None
    save_summary_steps: int = 100
    save_checkpoints_steps: int | None = USE_DEFAULT  # type: ignore[assignment]
    save_checkpoints_secs: float | None = USE_DEFAULT  # type: ignore[assignment]
    keep_checkpoint_max: int = 5
    keep_checkpoint_every_n_hours: float = 10000.0
    log_step_count_steps: int = 100
    train_distribute: object = field(default=None, compare=False)
    # IGNORED_TF_ARGUMENTS, checked as TF checks them and ignored:
    session_config: object = field(default=None, repr=False, compare=False)
    device_fn: object = field(default=None, repr=False, compare=False)
    protocol: object = field(default=None, repr=False, compare=False)
    eval_distribute: object = field(default=None, repr=False, compare=False)
    experimental_distribute: object = field(default=None, repr=False, compare=False)
    experimental_max_worker_delay_secs: object = field(default=None, repr=False, compare=False)
    session_creation_timeout_secs: object = field(default=7200, repr=False, compare=False)
    checkpoint_save_graph_def: object = field(default=None, repr=False, compare=False)
    # TF_CONFIG's "service" (not an argument)
    service: dict | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self):
        steps, secs = self.save_checkpoints_steps, self.save_checkpoints_secs
        if steps is USE_DEFAULT and secs is USE_DEFAULT:
            steps, secs = None, DEFAULT_SAVE_CHECKPOINTS_SECS
        elif secs is USE_DEFAULT:
            secs = None
        elif steps is USE_DEFAULT:
            steps = None
        elif steps is not None and secs is not None:
            raise ValueError(_both_checkpoint_schedules(steps, secs))
        object.__setattr__(self, "save_checkpoints_steps", steps)
        object.__setattr__(self, "save_checkpoints_secs", secs)
        tf_config = _tf_config()
        object.__setattr__(self, "model_dir", _model_dir(self.model_dir, tf_config))
        service = tf_config.get("service")
        if service is not None and not isinstance(service, dict):
            raise TypeError(
                f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}'
            )
        object.__setattr__(self, "service", service)
        self._validate()

    def _validate(self) -> None:
        """TF's checks of every property (``_validate_properties``), its messages."""
        for name in IGNORED_TF_ARGUMENTS:
            if getattr(self, name) not in (None, _IGNORED_DEFAULTS.get(name)):
                _warn_ignored(name)
        if self.train_distribute is not None and not callable(
            getattr(self.train_distribute, "train", None)
        ):
            raise TypeError(
                "train_distribute must be a cn.distribute.RayStrategy (an object with "
                f"train(estimator, input_fn, ...)), got {type(self.train_distribute).__name__}"
            )
        for name, ok, expected in _CHECKS:
            value = getattr(self, name)
            if value is not None and not ok(value):
                raise ValueError(f"{name} {expected}, got {value!r}")

    def replace(self, **changes) -> RunConfig:
        """A copy with some properties changed (TF's ``RunConfig.replace``): a
        ``save_checkpoints_steps`` or ``save_checkpoints_secs`` given alone and not
        ``None`` sets the other to ``None``; both given and not ``None`` is a
        ``ValueError``, as is a name that is no argument of ``RunConfig``."""
        allowed = [f.name for f in fields(self) if f.init]
        for name in changes:
            if name not in allowed:
                raise ValueError(
                    f"Replacing {name} is not supported. Allowed properties are {allowed}."
                )
        out = copy.copy(self)
        for name, value in changes.items():
            object.__setattr__(out, name, value)
        steps, secs = out.save_checkpoints_steps, out.save_checkpoints_secs
        if "save_checkpoints_steps" in changes and "save_checkpoints_secs" in changes:
            if steps is not None and secs is not None:
                raise ValueError(_both_checkpoint_schedules(steps, secs))
        elif "save_checkpoints_steps" in changes and steps is not None:
            object.__setattr__(out, "save_checkpoints_secs", None)
        elif "save_checkpoints_secs" in changes and secs is not None:
            object.__setattr__(out, "save_checkpoints_steps", None)
        out._validate()
        return out


def _both_checkpoint_schedules(steps, secs) -> str:
    return (
        f"set at most one of save_checkpoints_steps and save_checkpoints_secs, got {steps} "
        f"and {secs} (TF: `save_checkpoints_steps` and `save_checkpoints_secs` cannot be "
        "both set.)"
    )


def _is_integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _is_device_fn(device_fn) -> bool:
    try:
        names = list(inspect.signature(device_fn).parameters)
    except (TypeError, ValueError):
        return False
    return names == ["op"]


# (property, check of a value that is not None, what TF's message says it should be)
_CHECKS = (
    ("model_dir", lambda path: path != "", "should be non-empty"),
    ("save_summary_steps", lambda n: n >= 0, "should be >= 0"),
    ("save_checkpoints_steps", lambda n: n >= 0, "should be >= 0"),
    ("save_checkpoints_secs", lambda n: n >= 0, "should be >= 0"),
    # colonnade's cn.compat.v1.ConfigProto or TF's own (estimators cannot import either)
    (
        "session_config",
        lambda config: type(config).__name__ == "ConfigProto",
        "must be instance of ConfigProto",
    ),
    ("keep_checkpoint_max", lambda n: n >= 0, "should be >= 0"),
    ("keep_checkpoint_every_n_hours", lambda hours: hours > 0, "should be > 0"),
    ("log_step_count_steps", lambda n: n >= 0, "should be >= 0"),
    ("tf_random_seed", _is_integer, "must be integer"),
    ("experimental_max_worker_delay_secs", _is_integer, "must be an integer if set"),
    ("session_creation_timeout_secs", lambda secs: secs > 0, "should be > 0"),
    ("device_fn", _is_device_fn, 'must be callable with exactly one argument "op"'),
    ("protocol", lambda name: name in ("grpc", "grpc+verbs"), "should be grpc or grpc+verbs"),
)


def _tf_config() -> dict:
    """The ``TF_CONFIG`` environment variable, parsed (``{}`` when unset)."""
    text = os.environ.get("TF_CONFIG", "")
    if not text:
        return {}
    try:
        parsed = json.loads(text)
    except json.JSONDecodeError as err:
        raise ValueError(f"TF_CONFIG is not JSON ({err}): {text[:200]!r}") from None
    if not isinstance(parsed, dict):
        raise ValueError(f"TF_CONFIG must be a JSON object, got {text[:200]!r}")
    return parsed


def _model_dir(model_dir, tf_config: dict):
    """TF's ``_get_model_dir``: the argument, or TF_CONFIG's ``model_dir``; the two
    must agree when both are set, and neither may be empty."""
    if model_dir is not None:
        model_dir = os.fspath(model_dir)
    if model_dir == "":
        raise ValueError("model_dir should be non-empty.")
    from_env = tf_config.get("model_dir")
    if from_env == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if from_env and model_dir and from_env != model_dir:
        raise ValueError(
            "`model_dir` provided in RunConfig construct, if set, must have the same value "
            f"as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
            f'TF_CONFIG["model_dir"]: {from_env}.\n'
        )
    return model_dir or from_env


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
