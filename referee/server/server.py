"""Start a referee: grpc.aio server with both services, health checking and reflection.

Nothing starts open: `start` refuses to run without an admin token unless `insecure=True`; an
insecure referee logs a warning and reports the health service `arena.v1.Insecure` as SERVING
(a secured one does not know that name: NOT_FOUND). With `tls` it serves TLS only.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from referee.server.auth import INSECURE_HEALTH_SERVICE, FailedAuthLimiter
from referee.server.config import ServerLimits
from referee.server.lobby import Authenticator
from referee.server.referee import Referee
from referee.server.service import handlers
from referee.wire import ADMIN_SERVICE, BOT_SERVICE
from referee.wire._proto.arena.v1 import admin_pb2, bot_pb2

__all__ = ["RunningReferee", "serve_forever", "start"]

log = logging.getLogger("arena.referee")


@dataclass
class RunningReferee:
    """A started referee server."""

    server: grpc.aio.Server
    referee: Referee
    health: HealthServicer
    port: int
    host: str
    #: started with insecure=True: admin calls are open to anyone
    insecure: bool = False
    #: serving TLS
    tls: bool = False
    #: the server on the port shared by every process of `--processes N` (SO_REUSEPORT), if any
    shared: grpc.aio.Server | None = None

    @property
    def address(self) -> str:
        """HOST:PORT for bots."""
        return f"{self.host}:{self.port}"

    async def stop(self, grace: float = 1.0) -> None:
        """Stop serving and end every match task."""
        await self.health.enter_graceful_shutdown()
        await self.referee.close()
        if self.shared is not None:
            await self.shared.stop(grace)
        await self.server.stop(grace)


async def start(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    limits: ServerLimits | None = None,
    admin_token: str | None = None,
    authenticator: Authenticator | None = None,
    insecure: bool = False,
    tls: tuple[bytes, bytes] | None = None,
    auth_limiter: FailedAuthLimiter | None = None,
    unix_socket: str | None = None,
    shared_port: int | None = None,
) -> RunningReferee:
    """Start serving on host:port (port 0: any free port) and return at once.

    `unix_socket`: also listen (plaintext) on this Unix socket path, made accessible to every
    local user: sandboxed bots have no network and reach the referee only through it.

    Admin calls need `admin_token`; without one it refuses to start (ValueError) unless
    `insecure` is set, and then every admin call is open. With an `authenticator`, bots may also
    connect with their bot tokens (remote bots). `tls` is (certificate chain, private key) PEM
    bytes: the port then speaks TLS only. `auth_limiter` counts failed authentications per peer
    (default: 20 a minute).

    `shared_port` (a child of ``--processes N``): also serve the same referee on that port with
    SO_REUSEPORT, which every process of the group binds, so the kernel spreads the connections
    made there (remote bots) over the processes (PROCESSES.md). `port` stays this process's own.
    """
    if not admin_token and not insecure:
        raise ValueError(
            "the referee needs an admin token (a file or $ARENA_ADMIN_TOKEN); "
            "pass insecure=True (--insecure) to run with open admin calls"
        )
    limits = limits or ServerLimits()
    referee = Referee(limits, authenticator)
    limiter = auth_limiter or FailedAuthLimiter()
    health = HealthServicer()

    def make_server(reuse_port: bool) -> grpc.aio.Server:
        options = limits.grpc_options()
        if reuse_port:  # only the shared port: an own port must never be silently shared
            options = [o for o in options if o[0] != "grpc.so_reuseport"] + [("grpc.so_reuseport", 1)]
        made = grpc.aio.server(options=options, maximum_concurrent_rpcs=limits.max_concurrent_rpcs)
        made.add_generic_rpc_handlers(handlers(referee, admin_token or None, limiter))
        health_pb2_grpc.add_HealthServicer_to_server(health, made)
        return made

    server = make_server(reuse_port=False)
    shared = make_server(reuse_port=True) if shared_port is not None else None
    names = ["", BOT_SERVICE, ADMIN_SERVICE]
    if not admin_token:
        names.append(INSECURE_HEALTH_SERVICE)
        log.warning(
            "INSECURE: no admin token; anyone who reaches %s:%s may create, cancel and watch "
            "matches and bind connected remote bots into them (health service %s is SERVING)",
            host, port, INSECURE_HEALTH_SERVICE,
        )
    for name in names:
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    service_names = (
        bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
        admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name,
        health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
        reflection.SERVICE_NAME,
    )
    credentials = None
    if tls is not None:
        cert, key = tls
        credentials = grpc.ssl_server_credentials([(key, cert)])

    def listen(on: grpc.aio.Server, at: int) -> int:
        reflection.enable_server_reflection(service_names, on)
        if credentials is not None:
            bound = on.add_secure_port(f"{host}:{at}", credentials)
        else:
            bound = on.add_insecure_port(f"{host}:{at}")
        if bound == 0:
            raise OSError(f"cannot listen on {host}:{at}")
        return bound

    bound = listen(server, port)
    if shared is not None and shared_port is not None:
        listen(shared, shared_port)
    if unix_socket is not None and server.add_insecure_port(f"unix:{unix_socket}") == 0:
        raise OSError(f"cannot listen on unix:{unix_socket}")
    await server.start()
    if shared is not None:
        await shared.start()
    if unix_socket is not None:
        # a sandboxed bot runs as a user of its own; the socket's folder guards who can reach it
        os.chmod(unix_socket, 0o666)
    log.info("referee listening on %s:%d (%s)", host, bound, "TLS" if tls else "plaintext")
    return RunningReferee(server, referee, health, bound, host, not admin_token, tls is not None, shared)


async def serve_forever(
    host: str,
    port: int,
    *,
    limits: ServerLimits | None = None,
    admin_token: str | None = None,
    authenticator: Authenticator | None = None,
    insecure: bool = False,
    tls: tuple[bytes, bytes] | None = None,
    auth_limiter: FailedAuthLimiter | None = None,
    supervisor_pid: int | None = None,
    shared_port: int | None = None,
) -> None:
    """`arena serve referee`: serve until SIGINT / SIGTERM, or (`supervisor_pid`, a child of
    ``--processes N``) until that process is no longer its parent."""
    running = await start(
        host, port, limits=limits, admin_token=admin_token, authenticator=authenticator,
        insecure=insecure, tls=tls, auth_limiter=auth_limiter, shared_port=shared_port,
    )
    print(f"referee listening on {running.address}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    orphaned = None
    if supervisor_pid is not None:
        orphaned = asyncio.create_task(_watch_parent(supervisor_pid, stop), name="watch-supervisor")
    await stop.wait()
    if orphaned is not None:
        orphaned.cancel()
    await running.stop()


async def _watch_parent(pid: int, stop: asyncio.Event) -> None:
    """Set `stop` once `pid` is no longer this process's parent (it was killed outright: a
    supervisor that stops normally sends SIGTERM first)."""
    while os.getppid() == pid:
        await asyncio.sleep(1.0)
    log.warning("supervisor %d is gone: stopping", pid)
    stop.set()
