"""A summary's value: TF 1's second argument or TF 2's ``data=``, and a clear error when
neither is given."""

import numpy as np
import pytest

from colonnade.core.model_calls import recording
from colonnade.core.summaries import histogram, image, scalar


def test_the_value_is_the_second_argument_or_tf2s_data():
    with recording() as call:
        assert scalar("a", 0.5) is True
        assert scalar("b", data=2.0, family="f") is True
        assert histogram("h", data=[1.0, 2.0]) is True
    assert call.summaries == {
        "a": ("scalar", 0.5),
        "f/b": ("scalar", 2.0),
        "h": ("histogram", [1.0, 2.0]),
    }


@pytest.mark.parametrize(
    "summary, message",
    [
        (scalar, "summary 'x' has no value: pass it as the second argument"),
        (histogram, "summary 'x' has no values: pass them as the second argument"),
        (image, "summary 'x' has no images: pass them as the second argument"),
    ],
)
def test_a_summary_without_a_value_is_refused(summary, message):
    with recording(), pytest.raises(ValueError, match=message):
        summary("x")


def test_outside_a_recording_call_nothing_is_recorded():
    assert scalar("a", np.float32(1.0)) is False
