"""Reliability diagram and ROC curves as PNG files (needs the ``plots`` extra: matplotlib)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from trustscore.core._extras import install_extra
from trustscore.fitting._evaluation import positive_class_scores
from trustscore.fusion._model import LabelPolarity
from trustscore.rows._scored import ScoredRow, label_column
from trustscore.stats._metrics import reliability_curve, roc_curve

__all__ = ["write_plots"]


def write_plots(
    rows: Sequence[ScoredRow],
    out_dir: str | Path,
    *,
    label: str,
    label_means: LabelPolarity,
    sources: Sequence[str],
    n_bins: int = 10,
) -> list[Path]:
    """Write ``reliability.png`` and ``roc.png`` for the given sources; returns the paths."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RuntimeError(f"--plots needs matplotlib: {install_extra('plots')}") from None
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    y = label_column(rows, label)
    curves = {}
    for name in sources:
        idx, p = positive_class_scores(rows, name, label_means)
        if idx.size:
            curves[name] = (y[idx], p)

    fig, ax = plt.subplots(figsize=(6, 6))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey", label="perfectly calibrated")
    for name, (yy, pp) in curves.items():
        c = reliability_curve(yy, pp, n_bins=n_bins, strategy="width")
        ax.plot(c.mean_predicted, c.fraction_positive, marker="o", label=name)
    ax.set_xlabel(f"predicted P({label} = 1)")
    ax.set_ylabel(f"observed share of {label} = 1")
    ax.set_title(f"Reliability ({n_bins} equal-width bins)")
    ax.legend(fontsize="small")
    reliability = out / "reliability.png"
    fig.savefig(reliability, dpi=120, bbox_inches="tight")
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 6))
    ax.plot([0, 1], [0, 1], linestyle="--", color="grey")
    for name, (yy, pp) in curves.items():
        if np.unique(yy).size == 2:
            fpr, tpr = roc_curve(yy, pp)
            ax.plot(fpr, tpr, label=name)
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.set_title(f"ROC, positive class: {label} = 1")
    ax.legend(fontsize="small")
    roc = out / "roc.png"
    fig.savefig(roc, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return [reliability, roc]
