"""Training and batch scoring beyond one machine, on Ray (extra ``colonnade[ray]``).

``RayStrategy`` is passed as ``RunConfig(train_distribute=...)``: ``train`` and ``fit``
then run on parameter-server and worker actors (see ``docs/distributed.md``). Ray is
imported only when a strategy trains, so the core package works without it.
"""

from .scoring import predict_dataset
from .strategy import RayStrategy

__all__ = ["RayStrategy", "predict_dataset"]
