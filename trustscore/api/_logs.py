"""Log filters of ``trustscore api``: nothing a client sends in a URL's query reaches the access log,
and running out of file descriptors is one line a minute, not thousands a second.

asyncio reports a failed ``accept()`` (``EMFILE``: too many open files) once per pending connection
of the listen backlog, with a traceback each, every second while it lasts: a flood that can fill a
disk. :class:`RateLimitedAcceptErrors` lets one through per ``every_s`` and says how many it held back.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

__all__ = ["RateLimitedAcceptErrors", "RedactedQuery", "install_log_filters"]

ACCEPT_ERROR = "socket.accept() out of system resource"


class RedactedQuery(logging.Filter):
    """Drop the query string from uvicorn's access-log lines (a client may put a key there)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str) and "?" in args[2]:
            path = args[2].partition("?")[0]
            record.args = (args[0], args[1], f"{path}?[query redacted]", args[3], args[4])
        return True


class RateLimitedAcceptErrors(logging.Filter):
    """Let one "out of system resource" accept error through per ``every_s`` seconds."""

    def __init__(self, every_s: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.every_s = every_s
        self.clock = clock
        self.last: float | None = None
        self.held_back = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.getMessage().startswith(ACCEPT_ERROR):
            return True
        now = self.clock()
        if self.last is not None and now - self.last < self.every_s:
            self.held_back += 1
            return False
        if self.held_back:
            record.msg = (
                f"{record.msg} ({self.held_back} more like it held back in the last {self.every_s:g} s)"
            )
        record.exc_info = None  # the traceback says nothing the message does not
        self.last, self.held_back = now, 0
        return True


def install_log_filters() -> None:
    """Put both filters on the loggers that write those lines (the process is the service), and
    write the service's own lines (ready, clients cut off) where uvicorn writes its own."""
    logging.getLogger("uvicorn.access").addFilter(RedactedQuery())
    logging.getLogger("asyncio").addFilter(RateLimitedAcceptErrors())
    ours = logging.getLogger("trustscore.api")
    ours.setLevel(logging.INFO)
    ours.propagate = False
    for handler in logging.getLogger("uvicorn").handlers:
        ours.addHandler(handler)
