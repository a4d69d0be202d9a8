"""The canned estimators (linear, DNN, wide&deep) of TF 2 (:mod:`.estimators`) and TF 1
(:mod:`.v1`, TF 1's defaults), the canned ``model_fn`` (a network and a head), and the
estimators built from config files.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
