"""``trustscore api``: a scoring service over one Scorer (the ``api`` extra). See docs/service.md."""

from __future__ import annotations

from trustscore.api.app import ScoringService, create_app
from trustscore.api.settings import ApiSettings

__all__ = ["ApiSettings", "ScoringService", "create_app"]
