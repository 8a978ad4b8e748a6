"""Fit a linear model and the precisions of its evidence terms together, by maximum likelihood.

The model (:mod:`trustscore.fusion._evidence`): ``P(trustworthy) = sigmoid(A . b + c) * prod_k (1 -
pi_k) ** e_k``, ``pi_k = sigmoid(g_k)``. The negative log-likelihood with ridge ``l2 / 2`` on ``b`` and
on ``g`` (so a finding seen on few rows keeps a precision near 0.5, never 0 or 1) is minimised by
Newton's method with a backtracking line search; the Hessian is the central difference of the exact
gradient (a few dozen parameters). Started from the plain logistic fit and ``g = 0``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from trustscore.stats._logistic import fit_logistic, sigmoid

__all__ = ["fit_evidence", "fit_evidence_lowering", "intercept_matching_mean_evidence"]

_CLIP = 1e-12


def _unpack(theta: NDArray[np.float64], k: int) -> tuple[NDArray[np.float64], float, NDArray[np.float64]]:
    d = theta.size - k - 1
    return theta[:d], float(theta[d]), theta[d + 1 :]


def _trust(
    design: NDArray[np.float64], fired: NDArray[np.float64], theta: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    b, c, g = _unpack(theta, fired.shape[1])
    q = sigmoid(design @ b + c)
    log_keep = -np.logaddexp(0.0, g)  # ln(1 - pi) = -softplus(g)
    return q, np.clip(q * np.exp(fired @ log_keep), _CLIP, 1 - _CLIP)


def _loss(
    design: NDArray[np.float64],
    t: NDArray[np.float64],
    fired: NDArray[np.float64],
    theta: NDArray[np.float64],
    l2: float,
) -> float:
    _, p = _trust(design, fired, theta)
    b, _, g = _unpack(theta, fired.shape[1])
    nll = -float(np.sum(t * np.log(p) + (1 - t) * np.log1p(-p)))
    return nll + 0.5 * l2 * float(b @ b + g @ g)


def _gradient(
    design: NDArray[np.float64],
    t: NDArray[np.float64],
    fired: NDArray[np.float64],
    theta: NDArray[np.float64],
    l2: float,
) -> NDArray[np.float64]:
    q, p = _trust(design, fired, theta)
    b, _, g = _unpack(theta, fired.shape[1])
    dlog = -t + (1 - t) * p / (1 - p)  # d loss / d ln P
    da = dlog * (1 - q)  # d ln P / d (A.b + c) = 1 - q
    grad_g = (fired * dlog[:, None]).sum(axis=0) * -sigmoid(g) + l2 * g
    return np.concatenate([design.T @ da + l2 * b, [da.sum()], grad_g])


def fit_evidence(
    design: NDArray[np.float64],
    t: NDArray[np.float64],
    fired: NDArray[np.float64],
    *,
    l2: float,
    max_iter: int = 60,
) -> tuple[NDArray[np.float64], float, NDArray[np.float64]]:
    """``(coef, intercept, precisions)`` minimising the penalised negative log-likelihood of
    P(trustworthy) = ``t`` (1 = trustworthy) over ``design`` (standardised columns) and the 0/1
    ``fired`` matrix (one column per evidence term)."""
    coef, intercept = fit_logistic(design, t, l2=l2)
    theta = np.concatenate([coef, [intercept], np.zeros(fired.shape[1])])
    n = theta.size
    loss = _loss(design, t, fired, theta, l2)
    for _ in range(max_iter):
        grad = _gradient(design, t, fired, theta, l2)
        h = 1e-5
        hess = np.empty((n, n))
        for j in range(n):
            step = np.zeros(n)
            step[j] = h
            hess[:, j] = (
                _gradient(design, t, fired, theta + step, l2) - _gradient(design, t, fired, theta - step, l2)
            ) / (2 * h)
        hess = 0.5 * (hess + hess.T) + 1e-9 * np.eye(n)
        direction = -np.linalg.solve(hess, grad)
        if grad @ direction >= 0:  # not a descent direction: fall back to the gradient
            direction = -grad
        size = 1.0
        while size > 1e-8:
            candidate = theta + size * direction
            new_loss = _loss(design, t, fired, candidate, l2)
            if new_loss <= loss:
                break
            size /= 2
        else:
            break
        theta, improvement, loss = candidate, loss - new_loss, new_loss
        if improvement < 1e-10:
            break
    b, c, g = _unpack(theta, fired.shape[1])
    return b, c, sigmoid(g)


def fit_evidence_lowering(
    design: NDArray[np.float64],
    t: NDArray[np.float64],
    fired_columns: NDArray[np.float64],
    counts: list[int],
    l2: float,
) -> tuple[NDArray[np.float64], float, NDArray[np.float64]]:
    """:func:`fit_evidence` with the linear weight of each evidence count kept at or below 0: a second
    contradiction never raises the score. A count whose weight comes out positive keeps weight 0 (its
    column zeroed, refitted), its evidence term still fitted; with a strong term the linear weight has
    nothing left to explain and can otherwise drift above 0."""
    design = design.copy()
    zeroed: set[int] = set()
    while True:  # each pass zeroes at least one more count column, so at most len(counts) + 1 passes
        coef, intercept, precisions = fit_evidence(design, t, fired_columns, l2=l2)
        coef[sorted(zeroed)] = 0.0
        rising = [j for j in counts if j not in zeroed and coef[j] > 0]
        if not rising:
            return coef, intercept, precisions
        zeroed.update(rising)
        design[:, rising] = 0.0


def intercept_matching_mean_evidence(
    linear: NDArray[np.float64], factor: NDArray[np.float64], t: NDArray[np.float64]
) -> float:
    """The intercept ``c`` for which ``mean(sigmoid(linear + c) * factor)`` equals ``mean(t)`` (bisection:
    the mean rises with ``c``); the evidence ``factor`` caps what any intercept reaches."""
    target = float(np.mean(t))
    lo, hi = -30.0, 30.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if float(np.mean(sigmoid(linear + mid) * factor)) < target:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
