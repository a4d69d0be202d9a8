"""What every optimizer inherits from ``Optimizer``: its public hyperparameters."""

import numpy as np
import pytest

import colonnade as cn

Variable = cn.core.Variable


def step_size(opt):
    """How far one gradient of 1 moves a fresh variable (plain gradient descent: the rate)."""
    w = Variable(np.array([0.0]))
    opt.apply_gradients([(np.array([1.0]), w)])
    return -float(w.numpy()[0])


def test_learning_rate_reads_as_given_and_a_number_can_be_set():
    opt = cn.train.GradientDescentOptimizer(0.5)
    assert opt.learning_rate == 0.5
    opt.learning_rate = 0.25
    assert opt.learning_rate == 0.25 and step_size(opt) == 0.25
    with pytest.raises(ValueError, match=r"learning_rate must be >= 0, got -1\.0"):
        opt.learning_rate = -1.0
    assert opt.learning_rate == 0.25


def test_a_schedule_can_be_set_and_is_returned_as_given():
    opt = cn.train.AdamOptimizer(0.1)
    schedule = lambda step: 0.01 * (step + 1)  # noqa: E731
    opt.learning_rate = schedule
    assert opt.learning_rate is schedule
    opt.learning_rate = (0.5).__mul__  # a schedule over a schedule: replaced on purpose
    assert opt.learning_rate(1.0) == 0.5


def test_setting_a_number_over_a_schedule_raises_naming_optimizer_and_schedule():
    def decay(step):
        return 0.5 / (1 + step)

    opt = cn.train.GradientDescentOptimizer(decay, name="sgd")
    with pytest.raises(
        ValueError, match=r"optimizer 'sgd' .* follows the schedule <function .*decay"
    ):
        opt.learning_rate = 0.1
    assert opt.learning_rate is decay
    opt.learning_rate = lambda step: 0.1  # the way to a constant rate
    assert step_size(opt) == pytest.approx(0.1)


def test_hyperparameters_are_a_read_only_view_by_the_update_names():
    opt = cn.train.FtrlOptimizer(0.1, l1_regularization_strength=0.5)
    hyper = opt.hyperparameters
    assert hyper["learning_rate"] == 0.1 and hyper["l1"] == 0.5 and hyper["beta"] == 0.0
    with pytest.raises(TypeError):
        hyper["learning_rate"] = 1.0
    opt.learning_rate = 0.2
    assert opt.hyperparameters["learning_rate"] == 0.2


def test_setting_the_learning_rate_of_a_fresh_copy_leaves_the_original_alone():
    opt = cn.train.AdagradOptimizer(0.5)
    copy = opt.fresh_copy()
    copy.learning_rate = 0.1
    assert opt.learning_rate == 0.5 and copy.learning_rate == 0.1


def test_tf1_gradient_options_are_accepted_and_ignored():
    # TF eager accepts gate_gradients / aggregation_method / colocate_gradients_with_ops
    # and name, and computes the same gradients: d(sum(w * w))/dw = 2w
    w = cn.core.Variable([1.0, -2.0])
    opt = cn.train.GradientDescentOptimizer(0.5)
    assert (opt.GATE_NONE, opt.GATE_OP, opt.GATE_GRAPH) == (0, 1, 2)
    pairs = opt.compute_gradients(
        lambda: cn.core.sum(w * w),
        [w],
        gate_gradients=cn.train.Optimizer.GATE_GRAPH,
        aggregation_method=None,
        colocate_gradients_with_ops=True,
    )
    np.testing.assert_allclose(pairs[0][0], [2.0, -4.0])
    (grad,) = cn.core.gradients(
        cn.core.sum(w * w), [w], name="g", gate_gradients=True, colocate_gradients_with_ops=True
    )
    np.testing.assert_allclose(grad, [2.0, -4.0])
    opt.minimize(lambda: cn.core.sum(w * w), gate_gradients=opt.GATE_NONE, name="step")
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])


def test_zero_argument_callable_hyperparameters_are_read_at_each_update():
    # TF's eager form: learning_rate=lambda: rate, re-read at every apply_gradients
    w = cn.core.Variable([1.0])
    rate = {"now": 0.5}
    opt = cn.train.GradientDescentOptimizer(lambda: rate["now"])
    opt.apply_gradients([(np.array([1.0], np.float32), w)])
    rate["now"] = 0.25
    opt.apply_gradients([(np.array([1.0], np.float32), w)])
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.5 - 0.25])
