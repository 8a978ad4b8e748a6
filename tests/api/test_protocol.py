"""The connection bounds uvicorn lacks (a request head's deadline, a connection cap) and the log
filters of `trustscore api`, driven with a fake transport and a fake clock."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("uvicorn")

import uvicorn
from uvicorn.server import ServerState

from trustscore.api._logs import ACCEPT_ERROR, RateLimitedAcceptErrors, RedactedQuery
from trustscore.api._protocol import BoundedH11Protocol


class Timer:
    def __init__(self, delay: float, callback: Callable[[], None], at: float) -> None:
        self.delay, self.callback, self.cancelled, self.at = delay, callback, False, at

    def when(self) -> float:
        return self.at

    def cancel(self) -> None:
        self.cancelled = True


class FakeLoop:
    """The clock is ours: a timer fires when the test says so."""

    def __init__(self) -> None:
        self.timers: list[Timer] = []
        self.now = 0.0

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        self.timers.append(Timer(delay, callback, self.now + delay))
        return self.timers[-1]

    def create_task(self, coro: Any) -> Any:
        coro.close()  # the app is not what is tested here
        return _Task()

    def armed(self) -> list[Timer]:
        return [t for t in self.timers if not t.cancelled]


class _Task:
    def add_done_callback(self, callback: Any) -> None:
        pass


class FakeTransport:
    def __init__(self) -> None:
        self.closed = self.aborted = False

    def get_extra_info(self, name: str) -> Any:
        return ("127.0.0.1", 9) if name in ("sockname", "peername") else None

    def is_closing(self) -> bool:
        return self.closed or self.aborted

    def close(self) -> None:
        self.closed = True

    def abort(self) -> None:
        self.aborted = True

    def write(self, data: bytes) -> None:
        pass

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _app(scope: Any, receive: Any, send: Any) -> None:
    pass


def protocol(
    state: ServerState | None = None, max_connections: int = 10
) -> tuple[BoundedH11Protocol, FakeLoop]:
    loop = FakeLoop()
    config = uvicorn.Config(_app, lifespan="off", log_config=None)
    proto = BoundedH11Protocol(
        config=config,
        server_state=state or ServerState(),
        app_state={},
        _loop=loop,  # type: ignore[arg-type]
        header_timeout_s=7.0,
        max_connections=max_connections,
    )
    return proto, loop


def test_a_trickled_request_head_is_cut_at_its_deadline() -> None:
    proto, loop = protocol()
    transport = FakeTransport()
    proto.connection_made(transport)  # type: ignore[arg-type]
    (timer,) = loop.armed()
    assert timer.delay == 7.0
    for byte in b"GET /heal":  # a byte at a time does not move the deadline
        proto.data_received(bytes([byte]))
    assert loop.armed() == [timer] and not transport.closed
    timer.callback()
    assert transport.closed, "no head within header_timeout_s: the connection is closed"


def test_a_whole_head_disarms_the_deadline() -> None:
    proto, loop = protocol()
    transport = FakeTransport()
    proto.connection_made(transport)  # type: ignore[arg-type]
    proto.data_received(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    head = [t for t in loop.timers if t.delay == 7.0]
    assert len(head) == 1 and head[0].cancelled and not transport.closed


def test_at_the_cap_a_new_connection_evicts_the_oldest_waiting_head() -> None:
    state = ServerState()
    first, _ = protocol(state, max_connections=2)
    older = FakeTransport()
    first.connection_made(older)  # type: ignore[arg-type]
    first.data_received(b"GET /hea")  # a trickler
    second, later = protocol(state, max_connections=2)
    later.now = 1.0
    newer = FakeTransport()
    second.connection_made(newer)  # type: ignore[arg-type]
    third, _ = protocol(state, max_connections=2)
    arriving = FakeTransport()
    third.connection_made(arriving)  # type: ignore[arg-type]
    assert older.closed and not newer.closed and not arriving.aborted


def test_connections_over_the_cap_are_closed_when_all_are_busy() -> None:
    state = ServerState()
    first, _ = protocol(state, max_connections=1)
    first.connection_made(FakeTransport())  # type: ignore[arg-type]
    first.data_received(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")  # busy
    second, loop = protocol(state, max_connections=1)
    transport = FakeTransport()
    second.connection_made(transport)  # type: ignore[arg-type]
    assert transport.aborted and loop.armed() == [] and len(state.connections) == 1
    second.connection_lost(None)  # asyncio still reports the loss: nothing to undo
    assert len(state.connections) == 1


def record(msg: str, *args: Any) -> logging.LogRecord:
    return logging.LogRecord("x", logging.INFO, __file__, 1, msg, args, None)


def test_the_access_log_never_holds_a_query_string() -> None:
    line = record('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "POST", "/v1/score?api_key=sk-123", "1.1", 401)
    assert RedactedQuery().filter(line)
    assert "sk-123" not in line.getMessage() and "/v1/score?[query redacted]" in line.getMessage()
    plain = record('%s - "%s %s HTTP/%s" %d', "127.0.0.1:5", "GET", "/healthz", "1.1", 200)
    RedactedQuery().filter(plain)
    assert "/healthz HTTP/1.1" in plain.getMessage()


def test_accept_errors_are_one_line_a_minute() -> None:
    now = [0.0]
    limit = RateLimitedAcceptErrors(every_s=60, clock=lambda: now[0])
    message = f"{ACCEPT_ERROR}\nexception: [Errno 24] Too many open files"
    let_through = [limit.filter(record(message)) for _ in range(2048)]
    assert let_through.count(True) == 1
    now[0] = 61.0
    later = record(message)
    assert limit.filter(later) and "2047 more like it" in later.getMessage()
    assert limit.filter(record("something else")), "other lines pass untouched"


def test_a_connection_answered_before_its_body_was_read_is_closed() -> None:
    proto, _ = protocol()
    transport = FakeTransport()
    proto.connection_made(transport)  # type: ignore[arg-type]
    proto.data_received(b"GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n")
    proto.on_response_complete()  # e.g. a 401: the body was never read
    assert transport.closed, "a client trickling a body nobody reads holds no connection"
