"""TF 1's one-shot iterator over a :class:`~.dataset.Dataset`, for ``input_fn``s written as
``return dataset.make_one_shot_iterator().get_next()``.

In TF 1's graph, ``get_next()`` is a tensor that yields the next batch each time the
session runs a step. Eagerly, an ``input_fn`` runs once, so ``get_next()`` returns a
stand-in for "the batch of every step": :class:`NextElement` (``features``, and
``labels`` on a labelled dataset, unpacked as TF's ``features, labels = ...``). The
estimators read the dataset behind it, so the ``input_fn`` trains, evaluates and predicts
on every batch, as TF's did.

>>> from colonnade.data import Dataset
>>> ds = Dataset.from_dict({"x": [1, 2, 3], "y": [0, 1, 0]}, label="y").batch(2)
>>> features, labels = ds.make_one_shot_iterator().get_next()
>>> dataset_of((features, labels)) is ds
True
"""

from __future__ import annotations

__all__ = ["NextElement", "OneShotIterator", "dataset_of", "make_one_shot_iterator"]


class NextElement:
    """ "The next ``features`` (or ``labels``) of ``dataset``", in an ``input_fn``'s
    return value; not a value itself: using it as an array is an error naming why."""

    def __init__(self, dataset, part: str):
        self.dataset, self.part = dataset, part

    def __repr__(self) -> str:
        return f"<the next {self.part} of {self.dataset!r}>"

    def __getitem__(self, key):
        raise TypeError(
            f"{self!r} stands for every batch of the dataset, not one batch: return it from "
            "the input_fn as it is (transform the data with dataset.map instead)"
        )


class OneShotIterator:
    """TF 1's ``make_one_shot_iterator()`` result: :meth:`get_next`."""

    def __init__(self, dataset):
        self.dataset = dataset

    def get_next(self, name=None):
        """``(features, labels)`` on a labelled dataset, else ``features``: stand-ins for
        every batch, to return from an ``input_fn``."""
        features = NextElement(self.dataset, "features")
        if self.dataset.label is None:
            return features
        return features, NextElement(self.dataset, "labels")


def make_one_shot_iterator(dataset) -> OneShotIterator:
    """TF 1's ``tf.compat.v1.data.make_one_shot_iterator(dataset)``.

    >>> from colonnade.data import Dataset
    >>> make_one_shot_iterator(Dataset.from_dict({"x": [1]})).get_next()
    <the next features of Dataset(dict of columns: 1 rows)>
    """
    return OneShotIterator(dataset)


def dataset_of(returned):
    """The dataset behind an ``input_fn``'s ``get_next()`` result (a :class:`NextElement`
    or a pair of them), else ``None``."""
    if isinstance(returned, NextElement):
        return returned.dataset
    if (
        isinstance(returned, tuple)
        and len(returned) == 2
        and all(isinstance(x, NextElement) for x in returned)
        and returned[0].dataset is returned[1].dataset
    ):
        return returned[0].dataset
    return None
