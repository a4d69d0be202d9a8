"""The canned estimators (linear, DNN, wide&deep) of TF 2 (:mod:`.estimators`, the one
definition; the Baseline estimators in :mod:`.baseline`) and TF 1 (:mod:`.v1`, built from
TF 2's and the table of TF 1's defaults in :mod:`.defaults`), their arguments'
descriptions (:mod:`.arguments`), the canned ``model_fn`` (a network and a head), and the
estimators built from config files.

An implementation room: its public names are re-exported by ``colonnade.estimators``;
import its modules by their paths.
"""

__all__: list[str] = []
