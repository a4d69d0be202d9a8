"""Training and batch scoring beyond one machine, on Ray (extra ``colonnade[ray]``).

Ray is imported only when this package is used, so the core package works without it.
"""

from .scoring import predict_dataset

__all__ = ["predict_dataset"]
