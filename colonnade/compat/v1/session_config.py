"""TF 1's ``ConfigProto`` and ``GPUOptions``, the session settings a program hands to
``RunConfig(session_config=...)``. colonnade runs no session, so ``RunConfig`` records them
and says once that they are ignored; they are here so that such a program runs unchanged.
As TF's protocol messages, they refuse a field they do not have, and an unset field
reads as its default.

>>> config = ConfigProto(allow_soft_placement=True, gpu_options=GPUOptions(allow_growth=True))
>>> config.gpu_options.allow_growth, config.log_device_placement
(True, False)
"""

from __future__ import annotations

__all__ = ["ConfigProto", "GPUOptions"]


class _Message:
    """Fields with defaults, set by keyword or attribute, unknown names refused."""

    FIELDS: dict = {}

    def __init__(self, **fields):
        for name, value in self._defaults().items():
            object.__setattr__(self, name, value)
        for name, value in fields.items():
            setattr(self, name, value)

    def _defaults(self) -> dict:
        return {name: make() if callable(make) else make for name, make in self.FIELDS.items()}

    def __setattr__(self, name, value):
        if name not in self.FIELDS:
            raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(other) is type(self) and vars(other) == vars(self)

    def __repr__(self) -> str:
        defaults = self._defaults()
        set_fields = {k: v for k, v in vars(self).items() if v != defaults[k]}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in set_fields.items())})"


class GPUOptions(_Message):
    """TF 1's ``tf.compat.v1.GPUOptions`` (recorded, not acted on)."""

    FIELDS = {
        "per_process_gpu_memory_fraction": 0.0,
        "allow_growth": False,
        "allocator_type": "",
        "deferred_deletion_bytes": 0,
        "visible_device_list": "",
        "polling_active_delay_usecs": 0,
        "polling_inactive_delay_msecs": 0,
        "force_gpu_compatible": False,
        "experimental": None,
    }


class ConfigProto(_Message):
    """TF 1's ``tf.compat.v1.ConfigProto`` (recorded, not acted on)."""

    FIELDS = {
        "device_count": dict,
        "intra_op_parallelism_threads": 0,
        "inter_op_parallelism_threads": 0,
        "use_per_session_threads": False,
        "session_inter_op_thread_pool": list,
        "placement_period": 0,
        "device_filters": list,
        "gpu_options": GPUOptions,
        "allow_soft_placement": False,
        "log_device_placement": False,
        "graph_options": None,
        "operation_timeout_in_ms": 0,
        "rpc_options": None,
        "cluster_def": None,
        "isolate_session_state": False,
        "share_cluster_devices_in_session": False,
        "experimental": None,
    }
