"""Optimizer math as pure functions, one per TF1 optimizer, in order of increasing complexity.

Every function here has the signature::

    update(param, grad, slots, step, hyper) -> (new_param, new_slots)

``param`` and ``grad`` are arrays of one shape: a whole variable and its dense gradient, or
just the rows a sparse gradient touches (the optimizer classes gather them). ``slots``
maps TF1's slot names to arrays of the same shape; ``hyper`` maps hyperparameter names to
Python floats already resolved for this step; ``step`` is an integer that only AdagradDA
reads (its ``T``). Nothing is modified: new arrays come back, and
:mod:`colonnade.core.optimizers` writes them into the variables in place.

Each rule is TensorFlow 1's kernel (``training_ops.cc``), written in the kernel's own
arithmetic order (``m + (g - m) * (1 - b1)`` rather than ``b1 * m + (1 - b1) * g``) so that
float32 results agree with TF's to the last bits where possible. Hyperparameters are
Python floats, so a float32 variable stays float32.

>>> import numpy as np
>>> p, s = adagrad_update(
...     np.array([1.0]), np.array([2.0]), {"accumulator": np.array([0.0])}, 1,
...     {"learning_rate": 0.5})
>>> p.tolist(), s["accumulator"].tolist()
([0.5], [4.0])
"""

from __future__ import annotations

from .backend import get_xp

__all__ = [
    "adadelta_update",
    "adagrad_da_update",
    "adagrad_update",
    "adam_update",
    "ftrl_update",
    "gradient_descent_update",
    "momentum_update",
    "proximal_adagrad_update",
    "proximal_gradient_descent_update",
    "rmsprop_update",
]


def _shrink(xp, prox, threshold, scale):
    """``sign(prox) * max(|prox| - threshold, 0) / scale``: the L1 proximal step."""
    return xp.sign(prox) * xp.maximum(xp.abs(prox) - threshold, 0) / scale


def gradient_descent_update(param, grad, slots, step, hyper):
    """Plain gradient descent: ``param <- param - lr * g``. No slots."""
    return param - hyper["learning_rate"] * grad, {}


def momentum_update(param, grad, slots, step, hyper):
    """Momentum (heavy ball or Nesterov), slot ``"momentum"`` (``a``, starts at 0)::

        a     <- momentum * a + g
        param <- param - lr * a                              (use_nesterov=False)
        param <- param - lr * g - lr * momentum * a          (use_nesterov=True)

    ``hyper["use_nesterov"]`` is 0.0 or 1.0.
    """
    lr, mu = hyper["learning_rate"], hyper["momentum"]
    accum = slots["momentum"] * mu + grad
    if hyper["use_nesterov"]:
        new = param - (grad * lr + accum * mu * lr)
    else:
        new = param - accum * lr
    return new, {"momentum": accum}


def adagrad_update(param, grad, slots, step, hyper):
    """Adagrad (Duchi et al., 2011), slot ``"accumulator"`` (``n``)::

    n     <- n + g^2
    param <- param - lr * g / sqrt(n)
    """
    xp = get_xp(param)
    accum = grad * grad
    accum += slots["accumulator"]
    step = grad * hyper["learning_rate"]
    step /= xp.sqrt(accum)  # the same operations in the same order, two temporaries fewer
    return param - step, {"accumulator": accum}


def proximal_gradient_descent_update(param, grad, slots, step, hyper):
    """Proximal gradient descent with L1 and L2 (FOBOS, Duchi & Singer, 2009). No slots::

    prox  = param - lr * g
    param <- sign(prox) * max(|prox| - lr * l1, 0) / (1 + lr * l2)    (l1 > 0)
    param <- prox / (1 + lr * l2)                                     (l1 = 0)
    """
    xp = get_xp(param)
    lr, l1, l2 = hyper["learning_rate"], hyper["l1"], hyper["l2"]
    prox = param - grad * lr
    if l1 > 0:
        return _shrink(xp, prox, lr * l1, 1.0 + lr * l2), {}
    return prox / (1.0 + lr * l2), {}


def proximal_adagrad_update(param, grad, slots, step, hyper):
    """Proximal Adagrad: Adagrad's per-coordinate step, then the L1/L2 proximal step.
    Slot ``"accumulator"`` (``n``)::

        n     <- n + g^2
        a     = lr / sqrt(n)
        prox  = param - a * g
        param <- sign(prox) * max(|prox| - a * l1, 0) / (1 + a * l2)      (l1 > 0)
        param <- prox / (1 + a * l2)                                      (l1 = 0)
    """
    xp = get_xp(param)
    l1, l2 = hyper["l1"], hyper["l2"]
    accum = slots["accumulator"] + grad * grad
    rate = hyper["learning_rate"] / xp.sqrt(accum)
    prox = param - grad * rate
    if l1 > 0:
        new = _shrink(xp, prox, rate * l1, 1.0 + rate * l2)
    else:
        new = prox / (1.0 + rate * l2)
    return new, {"accumulator": accum}


def adagrad_da_update(param, grad, slots, step, hyper):
    """Adagrad dual averaging (Duchi et al., 2011), slots ``"gradient_accumulator"``
    (``z``, starts at 0) and ``"gradient_squared_accumulator"`` (``n``); ``step`` is ``T``,
    the global step *plus one*. The parameter is recomputed from the sums, not stepped::

        z     <- z + g
        n     <- n + g^2
        param <- -lr * sign(z) * max(|z| - l1 * T, 0) / (l2 * T * lr + sqrt(n))
    """
    xp = get_xp(param)
    lr, l1, l2 = hyper["learning_rate"], hyper["l1"], hyper["l2"]
    g_acc = slots["gradient_accumulator"] + grad
    gg_acc = slots["gradient_squared_accumulator"] + grad * grad
    denom = xp.sqrt(gg_acc) + l2 * step * lr
    if l1 > 0:
        new = -lr * xp.sign(g_acc) * xp.maximum(xp.abs(g_acc) - l1 * step, 0) / denom
    else:
        new = -lr * g_acc / denom
    return new.astype(param.dtype, copy=False), {
        "gradient_accumulator": g_acc,
        "gradient_squared_accumulator": gg_acc,
    }


def adadelta_update(param, grad, slots, step, hyper):
    """Adadelta (Zeiler, 2012), slots ``"accum"`` (``E[g^2]``) and ``"accum_update"``
    (``E[dx^2]``), both starting at 0::

        accum        <- rho * accum + (1 - rho) * g^2
        dx           = sqrt(accum_update + eps) / sqrt(accum + eps) * g
        accum_update <- rho * accum_update + (1 - rho) * dx^2
        param        <- param - lr * dx
    """
    xp = get_xp(param)
    lr, rho, eps = hyper["learning_rate"], hyper["rho"], hyper["epsilon"]
    accum = slots["accum"] * rho + grad * grad * (1.0 - rho)
    delta = xp.sqrt(slots["accum_update"] + eps) / xp.sqrt(accum + eps) * grad
    accum_update = slots["accum_update"] * rho + delta * delta * (1.0 - rho)
    return param - delta * lr, {"accum": accum, "accum_update": accum_update}


def adam_update(param, grad, slots, step, hyper):
    """Adam (Kingma & Ba, 2015) as TF1, slots ``"m"`` and ``"v"`` (start at 0).
    ``hyper`` carries ``beta1_power = beta1^t`` and ``beta2_power = beta2^t`` for this
    update ``t`` (TF1 keeps them as variables); ``epsilon`` is the paper's "epsilon hat"::

        lr_t  = lr * sqrt(1 - beta2^t) / (1 - beta1^t)
        m     <- m + (g - m) * (1 - beta1)
        v     <- v + (g^2 - v) * (1 - beta2)
        param <- param - lr_t * m / (sqrt(v) + epsilon)
    """
    xp = get_xp(param)
    b1, b2 = hyper["beta1"], hyper["beta2"]
    lr_t = hyper["learning_rate"] * (1.0 - hyper["beta2_power"]) ** 0.5
    lr_t /= 1.0 - hyper["beta1_power"]
    m = slots["m"] + (grad - slots["m"]) * (1.0 - b1)
    v = slots["v"] + (grad * grad - slots["v"]) * (1.0 - b2)
    return param - m * lr_t / (xp.sqrt(v) + hyper["epsilon"]), {"m": m, "v": v}


def ftrl_update(param, grad, slots, step, hyper):
    """FTRL-Proximal (McMahan et al., 2013) as TF1's ``ApplyFtrlV2``, slots
    ``"accum"`` (``n``) and ``"linear"`` (``z``, starts at 0); ``p = -lr_power``
    (0.5 by default), ``l2s`` the L2 shrinkage strength::

        g_s   = g + 2 * l2s * param
        n_new = n + g^2
        z     <- z + g_s - (n_new^p - n^p) / lr * param
        param <- (l1 * sign(z) - z) / (n_new^p / lr + 2 * l2)   if |z| > l1, else 0
        n     <- n_new

    With ``l2s = 0`` this is the original ``ApplyFtrl``.
    """
    xp = get_xp(param)
    lr, l1, l2 = hyper["learning_rate"], hyper["l1"], hyper["l2"]
    power = -hyper["learning_rate_power"]
    accum = slots["accum"]
    new_accum = accum + grad * grad
    if power == 0.5:
        new_pow, old_pow = xp.sqrt(new_accum), xp.sqrt(accum)
    else:
        new_pow, old_pow = new_accum**power, accum**power
    shrink = hyper["l2_shrinkage"]
    grad_s = grad + (2.0 * shrink) * param if shrink > 0 else grad
    linear = slots["linear"] + grad_s - (new_pow - old_pow) / lr * param
    pre_shrink = (xp.sign(linear) * l1 - linear) / (new_pow / lr + 2.0 * l2)
    new = xp.where(xp.abs(linear) > l1, pre_shrink, 0).astype(param.dtype, copy=False)
    return new, {"accum": new_accum, "linear": linear}


def rmsprop_update(param, grad, slots, step, hyper):
    """RMSProp (Tieleman & Hinton, 2012) as TF1, slots ``"rms"`` (``ms``, starts at 1),
    ``"momentum"`` (``mom``, starts at 0) and, when centered, ``"mg"`` (starts at 0)::

        ms    <- ms + (g^2 - ms) * (1 - decay)
        mg    <- mg + (g - mg) * (1 - decay)                      (centered only)
        den   = ms + eps              or  ms - mg^2 + eps         (centered)
        mom   <- momentum * mom + lr * g / sqrt(den)
        param <- param - mom

    The function is centered exactly when ``slots`` has ``"mg"``.
    """
    xp = get_xp(param)
    rho, eps = hyper["decay"], hyper["epsilon"]
    ms = slots["rms"] + (grad * grad - slots["rms"]) * (1.0 - rho)
    out = {"rms": ms}
    if "mg" in slots:
        mg = slots["mg"] + (grad - slots["mg"]) * (1.0 - rho)
        denom = ms - mg * mg + eps
        out["mg"] = mg
    else:
        denom = ms + eps
    mom = slots["momentum"] * hyper["momentum"] + grad * hyper["learning_rate"] / xp.sqrt(denom)
    out["momentum"] = mom
    return param - mom, out
