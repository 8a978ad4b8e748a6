"""Run the scoring service on uvicorn, draining its work before uvicorn closes connections.

uvicorn, told to stop (SIGTERM, SIGINT), closes its listeners and waits for open connections before
the app's lifespan ends: by then a request still scoring would be cut off without a word. Here the
service drains first (:meth:`~trustscore.api._admission.Admission.drain`): new requests get 503, work in
flight has ``shutdown_grace_s`` to finish, and what is left is answered with the reason.
"""

from __future__ import annotations

import socket

import uvicorn

from trustscore.api._app import ScoringService

__all__ = ["DrainingServer"]


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, service: ScoringService) -> None:
        super().__init__(config)
        self.service = service

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        await self.service.admission.drain(self.service.settings.shutdown_grace_s)
        await super().shutdown(sockets)
