"""A fake vLLM server on a real loopback socket, for tests and benchmarks.

It runs an asyncio event loop in its own thread (an anyio blocking portal), so it never blocks the
test's loop, works whichever loop the test runs (asyncio or trio, or none), and serves many keep-alive
HTTP/1.1 connections at once (h11, which httpx already depends on; no thread per connection).

    with FakeVLLMServer(policy=judge_policy()) as server:
        client = AsyncOpenAI(base_url=server.base_url, api_key="x", http_client=httpx.AsyncClient())
        ...
        assert server.stats.requests == 3
"""

from __future__ import annotations

import errno
import secrets
import socket
from collections.abc import Sequence
from concurrent.futures import Future
from contextlib import AbstractContextManager
from types import TracebackType

import anyio
from anyio.abc import SocketStream
from anyio.from_thread import BlockingPortal, start_blocking_portal

from trustscore.core._extras import install_extra

try:
    import h11
except ModuleNotFoundError as exc:  # the fake server's one dependency outside the core install
    raise ModuleNotFoundError(
        f"trustscore.testing's fake vLLM server needs h11: {install_extra('testing')}",
        name="h11",
    ) from exc

from trustscore.testing._engine import EngineView, FakeEngine, UnmatchedRequest
from trustscore.testing._latency import LatencyModel
from trustscore.testing._script import Policy
from trustscore.testing._wire import WireResponse, error_response

__all__ = ["FakeVLLMServer"]

_MAX_BODY = 64 * 1024 * 1024
_OUT_OF_HANDLES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
"""accept() errors that pass once a handle is free: the process (clients and server alike in a test)
has run out of file handles or buffers."""


class FakeVLLMServer(EngineView):
    """A fake OpenAI-compatible vLLM server on ``127.0.0.1`` (an ephemeral port by default).

    Use as a context manager, or call :meth:`start` / :meth:`stop`. Its :attr:`base_url` holds a path
    prefix of its own (``/fake-<random>/v1``; the server also answers without it): a port is reused
    once a server has stopped, and the response cache keys answers by the server's URL, so a later
    server never replays an earlier one's answers. The policy runs on the
    server's own thread and asyncio loop: keep it free of objects bound to the test's loop. A
    request the policy has no answer for gets a 500 naming the request, and is kept in
    :attr:`unmatched`; an exception raised by the policy gets a 500 and is kept in
    :attr:`policy_errors`.
    """

    def __init__(
        self,
        policy: Policy | None = None,
        *,
        models: str | Sequence[str] = "fake-judge",
        latency: LatencyModel | None = None,
        max_model_len: int = 8192,
        port: int = 0,
    ) -> None:
        self.engine = FakeEngine(policy, models=models, latency=latency, max_model_len=max_model_len)
        self._port = port
        self._prefix = f"/fake-{secrets.token_hex(6)}"
        self._portal_cm: AbstractContextManager[BlockingPortal] | None = None
        self._portal: BlockingPortal | None = None
        self._listening: socket.socket | None = None
        self._accepted: set[socket.socket] = set()
        self._serving: Future[None] | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> FakeVLLMServer:
        if self._portal is not None:
            raise RuntimeError("FakeVLLMServer is already started")
        self._portal_cm = start_blocking_portal(backend="asyncio")
        self._portal = self._portal_cm.__enter__()
        try:
            self._listening = socket.create_server(("127.0.0.1", self._port), backlog=2048)
            self._listening.setblocking(False)
            self._port = self._listening.getsockname()[1]
            self._serving = self._portal.start_task_soon(self._serve, self._listening)
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Close the listener and every connection it accepted, as a killed server's would be: a
        client waiting on this server gets an error, not silence; idempotent. Raises if the server
        had stopped serving on its own (a fault of the fake, which a test must not mistake for the
        client's)."""
        died: BaseException | None = None
        if self._serving is not None:
            serving, self._serving = self._serving, None
            if serving.done() and not serving.cancelled():
                died = serving.exception()
            serving.cancel()
        try:
            if self._portal_cm is not None:
                cm, self._portal_cm, self._portal = self._portal_cm, None, None
                cm.__exit__(None, None, None)
        finally:
            for connection in (*self._accepted, *([self._listening] if self._listening else [])):
                connection.close()
            self._accepted.clear()
            self._listening = None
        if died is not None:
            raise RuntimeError(f"the fake vLLM server had stopped serving: {died!r}") from died

    def __enter__(self) -> FakeVLLMServer:
        return self.start()

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # -- what tests read -------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._portal is None:
            raise RuntimeError("FakeVLLMServer is not started: use `with FakeVLLMServer() as server:`")
        return self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` (no ``/v1``), for ``/health``."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/fake-<random>/v1``: what an OpenAI client takes as ``base_url``."""
        return f"{self.url}{self._prefix}/v1"

    # -- serving ---------------------------------------------------------------------------------

    async def _serve(self, listening: socket.socket) -> None:
        """Accept connections until cancelled. A connection leaves the kernel's backlog only in the
        plain ``accept()`` below, after the socket is readable, and is recorded before any await: so
        :meth:`stop` closes every connection a client could be waiting on. (asyncio's ``sock_accept``,
        under anyio's listeners, can accept a connection and then drop it, never closed, when it is
        cancelled at that moment.)"""
        try:
            async with anyio.create_task_group() as connections:
                while True:
                    await anyio.wait_readable(listening)
                    try:
                        accepted, _ = listening.accept()
                    except (BlockingIOError, InterruptedError, ConnectionAbortedError):
                        continue  # nothing to take after all, or the client gave up before it was taken
                    except OSError as e:
                        if e.errno not in _OUT_OF_HANDLES:
                            raise
                        await anyio.sleep(0.05)  # the connection waits in the backlog until one is free
                        continue
                    self._accepted.add(accepted)
                    connections.start_soon(self._connection, accepted)
        except Exception:
            listening.close()  # a server that can no longer serve refuses connections, not queues them
            raise

    async def _connection(self, accepted: socket.socket) -> None:
        try:
            try:
                stream = await SocketStream.from_socket(accepted)
            except (ValueError, OSError):  # the client reset the connection before it was served
                return
            async with stream:
                await self._converse(stream)
        finally:
            accepted.close()
            self._accepted.discard(accepted)

    async def _converse(self, stream: SocketStream) -> None:
        """Answer the requests of one keep-alive connection until either side closes it."""
        conn = h11.Connection(h11.SERVER, max_incomplete_event_size=_MAX_BODY)
        try:
            while True:
                request = await _next_request(conn, stream)
                if request is None:
                    return
                method, target, headers, body = request
                response = await self._answer(method, target, headers, body)
                if response.disconnect:
                    return
                await _send(conn, stream, response)
                if conn.our_state is h11.MUST_CLOSE or conn.their_state is h11.MUST_CLOSE:
                    return
                conn.start_next_cycle()
        except (
            anyio.BrokenResourceError,
            anyio.ClosedResourceError,
            anyio.EndOfStream,
            h11.ProtocolError,
            ConnectionError,
        ):
            return

    async def _answer(self, method: str, target: str, headers: dict[str, str], body: bytes) -> WireResponse:
        path = target.split("?", 1)[0].removeprefix(self._prefix)
        try:
            return await self.engine.handle(method, path, headers, body)
        except UnmatchedRequest as e:
            return error_response(500, "UnmatchedRequest", str(e))
        except Exception as e:
            return error_response(
                500, "InternalServerError", f"fake vLLM policy raised {type(e).__name__}: {e}"
            )


async def _next_request(
    conn: h11.Connection, stream: SocketStream
) -> tuple[str, str, dict[str, str], bytes] | None:
    """Read one whole request; None when the client closed the connection between requests."""
    head: h11.Request | None = None
    chunks: list[bytes] = []
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            try:
                data = await stream.receive(65536)
            except anyio.EndOfStream:
                data = b""
            conn.receive_data(data)
            continue
        if isinstance(event, h11.Request):
            head = event
        elif isinstance(event, h11.Data):
            chunks.append(bytes(event.data))
        elif isinstance(event, h11.EndOfMessage):
            assert head is not None
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in head.headers}
            return head.method.decode("ascii"), head.target.decode("latin-1"), headers, b"".join(chunks)
        elif isinstance(event, h11.ConnectionClosed) or event is h11.PAUSED:
            return None


async def _send(conn: h11.Connection, stream: SocketStream, response: WireResponse) -> None:
    headers = [*response.headers, ("content-length", str(len(response.body))), ("server", "fake-vllm")]
    out = conn.send(h11.Response(status_code=response.status, headers=headers))
    assert out is not None
    out += conn.send(h11.Data(data=response.body)) or b""
    out += conn.send(h11.EndOfMessage()) or b""
    await stream.send(out)
