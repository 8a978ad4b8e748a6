"""The connection bounds uvicorn lacks (a request head's deadline, a connection cap) and the log
filters of `trustscore api`, driven with a fake transport and a fake clock."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import h11
import pytest

pytest.importorskip("uvicorn")

import uvicorn
from uvicorn.server import ServerState

from trustscore.api import _protocol
from trustscore.api._logs import ACCEPT_ERROR, RateLimitedAcceptErrors, RedactedQuery
from trustscore.api._protocol import FILES_RESERVED, BoundedH11Protocol, accept_limits


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
    state: ServerState | None = None, max_connections: int = 10, loop: FakeLoop | None = None
) -> tuple[BoundedH11Protocol, FakeLoop]:
    loop = loop or FakeLoop()
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


class Clients:
    """Connections to one service (shared state, one fake clock), each with its transport."""

    def __init__(self, max_connections: int) -> None:
        self.state, self.loop, self.cap = ServerState(), FakeLoop(), max_connections

    def connect(self, at: float, sent: bytes = b"") -> tuple[BoundedH11Protocol, FakeTransport]:
        self.loop.now = at
        proto, _ = protocol(self.state, self.cap, self.loop)
        transport = FakeTransport()
        proto.connection_made(transport)  # type: ignore[arg-type]
        if sent and not transport.is_closing():
            proto.data_received(sent)
        return proto, transport


VALID_HEAD = b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n"


def test_at_the_cap_tricklers_make_way_for_a_valid_client_and_it_keeps_its_place() -> None:
    clients = Clients(max_connections=4)
    tricklers = [clients.connect(at=float(i), sent=b"P") for i in range(4)]
    valid, valid_transport = clients.connect(at=9.0)  # its head still in the kernel's buffer
    assert not valid_transport.aborted and tricklers[0][1].closed
    clients.connect(at=9.1, sent=b"P")  # one more trickler arrives before the head is read
    assert not valid_transport.closed, "a connection in its first moments is not taken for a trickler"
    assert tricklers[1][1].closed
    valid.data_received(VALID_HEAD)
    assert valid.conn.their_state is h11.SEND_BODY and not valid_transport.is_closing()
    clients.connect(at=9.2, sent=b"P")
    assert not valid_transport.closed, "a connection busy with a request is never evicted"


def test_at_the_cap_the_trickler_that_sent_least_for_longest_goes_before_an_older_steady_sender() -> None:
    clients = Clients(max_connections=2)
    steady, steady_transport = clients.connect(at=0.0, sent=b"POST /v1/score HTTP/1.1\r\n")
    _, trickler_transport = clients.connect(at=2.0, sent=b"P")
    clients.loop.now = 4.0
    steady.data_received(b"Host: x\r\n")  # slow, but its head keeps coming
    clients.connect(at=6.0)
    assert trickler_transport.closed and not steady_transport.closed


def test_at_the_cap_an_idle_keep_alive_connection_goes_first() -> None:
    clients = Clients(max_connections=3)
    _, trickler_transport = clients.connect(at=0.0, sent=b"P")
    idle, idle_transport = clients.connect(at=1.0, sent=b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    idle.conn.send(h11.Response(status_code=200, headers=[("content-length", "0")]))
    idle.conn.send(h11.EndOfMessage())
    idle.on_response_complete()  # answered: waits, kept alive, for a next request
    clients.connect(at=1.5, sent=VALID_HEAD)  # busy
    _, arriving = clients.connect(at=2.0)
    assert idle_transport.closed and not trickler_transport.closed and not arriving.aborted


def test_a_small_open_file_limit_leaves_room_for_a_burst_of_accepts_and_their_evictions(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import resource

    monkeypatch.setattr(resource, "getrlimit", lambda _: (256, 256))
    cap, backlog = accept_limits(1000)
    # asyncio accepts a backlog at a wake-up, and the evicted give their descriptors back a tick later
    assert cap + 2 * backlog + FILES_RESERVED <= 256 and cap >= 100
    monkeypatch.setattr(resource, "getrlimit", lambda _: (1_000_000, 1_000_000))
    assert accept_limits(1000) == (1000, _protocol.UVICORN_BACKLOG)


def test_a_widened_listen_queue_holds_every_client_a_short_one_would_drop() -> None:
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)  # holds 2 not yet accepted; Linux drops a third's attempt
        _protocol.widen_listen_queue([listener.fileno()], length=16)
        clients = [socket.socket() for _ in range(6)]
        try:
            for client in clients:
                client.settimeout(5)  # bounds a failure; a queued connection completes at once
                client.connect(listener.getsockname())
            accepted = []
            for _ in clients:
                listener.settimeout(5)
                accepted.append(listener.accept()[0])
            assert len(accepted) == 6
            for conn in accepted:
                conn.close()
        finally:
            for client in clients:
                client.close()


def test_a_connection_whose_head_is_not_read_yet_outlasts_older_ones_in_their_first_moments() -> None:
    clients = Clients(max_connections=2)
    _, older = clients.connect(at=0.0, sent=b"P")
    _, unread = clients.connect(at=0.1)  # accepted; its whole head may wait in the kernel's buffer
    clients.connect(at=0.2)
    assert older.closed and not unread.closed


def test_an_incomplete_head_goes_before_a_connection_not_read_yet() -> None:
    clients = Clients(max_connections=2)
    _, unread = clients.connect(at=0.0)
    _, partial = clients.connect(at=0.1, sent=b"POST /v1/sc")  # read, and not whole: a trickler
    clients.connect(at=0.2)
    assert partial.closed and not unread.closed


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])  # uvicorn serves on asyncio
async def test_the_server_gives_a_lowered_backlog_its_full_listen_queue_once_it_listens() -> None:
    import socket

    from trustscore.api._server import DrainingServer

    config = uvicorn.Config(_app, host="127.0.0.1", port=0, backlog=1, lifespan="off", log_config=None)
    config.load()
    server = DrainingServer(config, service=None)  # type: ignore[arg-type]  # shutdown is not run
    server.lifespan = config.lifespan_class(config)
    await server.startup()
    try:
        (listener,) = server.servers[0].sockets
        clients = [socket.socket() for _ in range(6)]
        for client in clients:  # the loop is held here: nothing is accepted, the kernel queues them
            client.settimeout(5)  # bounds a failure; a queued connection completes at once
            client.connect(listener.getsockname())
        for client in clients:
            client.close()
    finally:
        for listening in server.servers:
            listening.close()
