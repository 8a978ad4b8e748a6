"""Numeric primitives shared by fusion and the fitted signals: logistic regression, ranking and
calibration metrics, grouped cross-validation splits (numpy only)."""
