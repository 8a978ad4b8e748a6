"""L2-regularised logistic regression by Newton's method (IRLS), in numpy.

Shared by the fused model and by ReDeEP's fitting: small dense problems (tens of features,
thousands of rows) where Newton converges in a handful of steps to the exact optimum.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["fit_logistic", "intercept_matching_mean", "sigmoid"]


def sigmoid(z: ArrayLike) -> NDArray[np.float64]:
    z = np.asarray(z, dtype=np.float64)
    return np.where(z >= 0, 1.0 / (1.0 + np.exp(-np.abs(z))), np.exp(-np.abs(z)) / (1.0 + np.exp(-np.abs(z))))


def fit_logistic(
    x: ArrayLike,
    y: ArrayLike,
    *,
    l2: float = 1.0,
    sample_weight: ArrayLike | None = None,
    fit_intercept: bool = True,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> tuple[NDArray[np.float64], float]:
    """Minimise  sum_i w_i * logloss(y_i, x_i.b + c) + l2/2 * ||b||^2  (the intercept is not penalised).

    ``l2`` is scikit-learn's ``1/C``: ``fit_logistic(x, y, l2=1/C)`` matches
    ``LogisticRegression(C=C)``. Returns ``(coef, intercept)``.
    """
    X = np.asarray(x, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    t = np.asarray(y, dtype=np.float64).ravel()
    n = X.shape[0]
    if t.shape[0] != n:
        raise ValueError(f"x has {n} rows but y has {t.shape[0]}")
    if not np.all((t == 0) | (t == 1)):
        raise ValueError("y must be 0/1 labels")
    w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).ravel()
    A = np.hstack([X, np.ones((n, 1))]) if fit_intercept else X
    k = A.shape[1]
    penalty = np.full(k, float(l2))
    if fit_intercept:
        penalty[-1] = 0.0
    beta = np.zeros(k)
    for _ in range(max_iter):
        p = sigmoid(A @ beta)
        grad = A.T @ (w * (p - t)) + penalty * beta
        hess = (A * (w * p * (1 - p))[:, None]).T @ A + np.diag(penalty) + 1e-12 * np.eye(k)
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < tol:
            break
    if fit_intercept:
        return beta[:-1].copy(), float(beta[-1])
    return beta.copy(), 0.0


def intercept_matching_mean(margin: ArrayLike, t: ArrayLike) -> float:
    """The intercept that makes ``sigmoid(margin + c)`` average to the mean of ``t`` (Newton in 1-D)."""
    m = np.asarray(margin, dtype=np.float64)
    target = np.asarray(t, dtype=np.float64)
    c = 0.0
    for _ in range(100):
        p = sigmoid(m + c)
        step = float(np.sum(p - target) / max(np.sum(p * (1 - p)), 1e-12))
        c -= step
        if abs(step) < 1e-10:
            break
    return c
