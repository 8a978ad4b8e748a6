"""``trustscore api``: a scoring service over one Scorer (the ``api`` extra). See docs/service.md."""

from __future__ import annotations

from trustscore.api._app import ScoringService, create_app
from trustscore.api._settings import ApiSettings

__all__ = ["ApiSettings", "ScoringService", "create_app"]
