"""Start a referee: grpc.aio server with both services, health checking and reflection."""

from __future__ import annotations

import asyncio
import logging
import signal
from dataclasses import dataclass

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from bots.python.arena_bot._proto.arena.v1 import admin_pb2, bot_pb2
from bots.python.arena_bot.wire import ADMIN_SERVICE, BOT_SERVICE
from referee.server.config import ServerLimits
from referee.server.lobby import Authenticator
from referee.server.referee import Referee
from referee.server.service import handlers

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

    @property
    def address(self) -> str:
        """HOST:PORT for bots."""
        return f"{self.host}:{self.port}"

    async def stop(self, grace: float = 1.0) -> None:
        """Stop serving and end every match task."""
        await self.health.enter_graceful_shutdown()
        await self.referee.close()
        await self.server.stop(grace)


async def start(
    host: str = "127.0.0.1",
    port: int = 0,
    *,
    limits: ServerLimits | None = None,
    admin_token: str | None = None,
    authenticator: Authenticator | None = None,
) -> RunningReferee:
    """Start serving on host:port (port 0: any free port) and return at once.

    With an `authenticator`, bots may also connect with their bot tokens (remote bots).
    """
    limits = limits or ServerLimits()
    referee = Referee(limits, authenticator)
    server = grpc.aio.server(
        options=limits.grpc_options(), maximum_concurrent_rpcs=limits.max_concurrent_rpcs
    )
    server.add_generic_rpc_handlers(handlers(referee, admin_token))
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    for name in ("", BOT_SERVICE, ADMIN_SERVICE):
        await health.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (
            bot_pb2.DESCRIPTOR.services_by_name["BotService"].full_name,
            admin_pb2.DESCRIPTOR.services_by_name["AdminService"].full_name,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        raise OSError(f"cannot listen on {host}:{port}")
    await server.start()
    log.info("referee listening on %s:%d", host, bound)
    return RunningReferee(server, referee, health, bound, host)


async def serve_forever(
    host: str,
    port: int,
    *,
    limits: ServerLimits | None = None,
    admin_token: str | None = None,
    authenticator: Authenticator | None = None,
) -> None:
    """`arena serve referee`: serve until SIGINT / SIGTERM."""
    running = await start(host, port, limits=limits, admin_token=admin_token, authenticator=authenticator)
    print(f"referee listening on {running.address}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await running.stop()
