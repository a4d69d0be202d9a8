"""Training and batch scoring beyond one machine, on Ray (extra ``colonnade[ray]``).

``RayStrategy`` is passed as ``RunConfig(train_distribute=...)``: ``train`` and ``fit``
then run on parameter-server and worker actors (see ``docs/distributed.md``); each call
leaves its :class:`RunStats` in ``estimator.last_run``, and :func:`current_run` is the
call in progress, for hooks. Ray is imported only when a strategy trains, so the core
package works without it.
"""

from .run import RunStats, current_run
from .scoring import predict_dataset
from .settle import JobFailure
from .strategy import RayStrategy

__all__ = ["JobFailure", "RayStrategy", "RunStats", "current_run", "predict_dataset"]
