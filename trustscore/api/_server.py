"""Run the scoring service on uvicorn, draining its work before uvicorn closes connections, all
within the grace.

uvicorn, told to stop (SIGTERM, SIGINT), closes its listeners and waits for open connections before
the app's lifespan ends: by then a request still scoring would be cut off without a word. Here the
service drains first (:meth:`~trustscore.api._admission.Admission.drain`): new requests get 503, work in
flight has ``shutdown_grace_s`` to finish, and what is left is answered with the reason. uvicorn then
has what is left of the grace to finish writing answers (``timeout_graceful_shutdown``); a connection
still open after that (a client that stopped reading) is cut. So the process ends within the grace,
plus the moment closing takes, whatever the clients do.

A stop by signal ends the process with :attr:`DrainingServer.exit_status` (uvicorn would re-raise the
signal, so a clean stop read as 143): 0 when every answer was finished, :data:`CUT_SHORT` when the
grace cut work or a connection short.

Where the open-file limit lowered uvicorn's ``backlog`` (asyncio's batch of accepts), the listen queue
is given its full length again once the server listens
(:func:`~trustscore.api._protocol.widen_listen_queue`).
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Iterator

import uvicorn

from trustscore.api._app import ScoringService
from trustscore.api._protocol import UVICORN_BACKLOG, widen_listen_queue

__all__ = ["CUT_SHORT", "DrainingServer"]

CUT_SHORT = 4
"""Exit status of a stop whose grace ran out before every answer was finished."""


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, service: ScoringService) -> None:
        super().__init__(config)
        self.service = service
        self.cut_short = False
        self._answers_finished = True

    @property
    def exit_status(self) -> int:
        return CUT_SHORT if self.cut_short else 0

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.config.backlog < UVICORN_BACKLOG:  # a batch lowered for the open-file limit
            servers = getattr(self, "servers", [])  # none when binding failed
            widen_listen_queue(sock.fileno() for server in servers for sock in server.sockets)

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        grace = self.service.settings.shutdown_grace_s
        started = time.monotonic()
        self.cut_short = await self.service.admission.drain(grace)
        left = max(0.0, grace - (time.monotonic() - started))
        self.config.timeout_graceful_shutdown = left  # type: ignore[assignment]  # uvicorn takes a float
        self._answers_finished = False
        await super().shutdown(sockets)
        self.cut_short |= not self._answers_finished

    async def _wait_tasks_to_complete(self) -> None:
        # uvicorn waits on this within timeout_graceful_shutdown, and cancels what is left when it ends
        await super()._wait_tasks_to_complete()
        self._answers_finished = True

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        with super().capture_signals():
            yield
            self._captured_signals.clear()  # drained: the exit status says how it went
