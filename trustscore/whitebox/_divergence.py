"""Divergences between two next-token distributions given as logits: the Jensen-Shannon divergence
ReDeEP's PKS reads, and the released ReDeEP code's legacy variant (shared with AARF)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import torch

__all__ = ["jensen_shannon", "legacy_divergence_sum"]


def jensen_shannon(logits_p: torch.Tensor, logits_q: torch.Tensor) -> torch.Tensor:
    """JSD(P, Q) per row in nats (symmetric, in [0, ln 2]); logits in any dtype, computed in fp32."""
    import torch

    lp = torch.log_softmax(logits_p.float(), dim=-1)
    lq = torch.log_softmax(logits_q.float(), dim=-1)
    lm = torch.logaddexp(lp, lq) - math.log(2.0)
    kl_pm = (lp.exp() * (lp - lm)).sum(dim=-1)
    kl_qm = (lq.exp() * (lq - lm)).sum(dim=-1)
    return (0.5 * (kl_pm + kl_qm)).clamp(0.0, math.log(2.0))


def legacy_divergence_sum(logits_p: torch.Tensor, logits_q: torch.Tensor) -> torch.Tensor:
    """The released code's divergence before its reductions: sum_v ½(KL(M‖P) + KL(M‖Q))_v per row.

    (``F.kl_div(log P, M)`` computes KL(M‖P), the reverse of the JSD's terms.) Token level divides
    by the vocabulary size and multiplies by 1e6; chunk level sums it over the chunk's tokens.
    """
    import torch

    lp = torch.log_softmax(logits_p.float(), dim=-1)
    lq = torch.log_softmax(logits_q.float(), dim=-1)
    lm = torch.logaddexp(lp, lq) - math.log(2.0)
    m = lm.exp()
    return 0.5 * ((m * (lm - lp)).sum(dim=-1) + (m * (lm - lq)).sum(dim=-1))
