"""Who may talk to the referee: the admin credential, TLS material, failed-authentication limits.

Nothing starts open: `arena serve referee` needs an admin credential (a file, or
``$ARENA_ADMIN_TOKEN``; never a command-line value, which `ps` shows to every user) unless it is
started with ``--insecure``. Every failed authentication (a wrong admin token, an unknown or used
seat token, an unknown bot token) counts against the caller's address; past
:data:`FAILED_AUTH_LIMIT` failures in :data:`FAILED_AUTH_WINDOW_S` seconds a credential from that
address that does not verify is answered RESOURCE_EXHAUSTED (not UNAUTHENTICATED) until the
window has moved on, so a guesser is slowed and learns nothing from its answers. A credential
that verifies is accepted whatever its address's count: a bot or the operator sharing an
address (a NAT, a campus) with a guesser is never locked out by the guesser.

Exempt by default: clients on a Unix socket. Those are the sandboxed bots of one match on that
match's own referee (`workers.grpc_executor`); counting them would let a hostile bot spend the
shared budget and lock its opponents out (they would forfeit, never connected). Operators may
exempt networks they trust (`--auth-limit-exempt CIDR`, e.g. the workers' network).
"""

from __future__ import annotations

import hmac
import ipaddress
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee import settings

__all__ = [
    "ADMIN_TOKEN_ENV",
    "FAILED_AUTH_LIMIT",
    "FAILED_AUTH_WINDOW_S",
    "INSECURE_HEALTH_SERVICE",
    "MIN_ADMIN_TOKEN_LENGTH",
    "CredentialError",
    "FailedAuthLimiter",
    "TlsFiles",
    "peer_address",
    "read_admin_token",
    "same_token",
]

ADMIN_TOKEN_ENV: Final = "ARENA_ADMIN_TOKEN"
#: failed authentications per peer address in the window before it is refused
FAILED_AUTH_LIMIT: Final = 20
FAILED_AUTH_WINDOW_S: Final = 60.0
#: a referee started with --insecure reports this health service as SERVING (and only then)
INSECURE_HEALTH_SERVICE: Final = "arena.v1.Insecure"
#: an admin token shorter than this is refused: it could be guessed despite the limits
MIN_ADMIN_TOKEN_LENGTH: Final = 16


class CredentialError(ValueError):
    """The admin credential is missing, unreadable or too weak (the message says what to do)."""


def read_admin_token(path: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """The admin token from the file at `path` (its first line, stripped), else from
    ``$ARENA_ADMIN_TOKEN``; None if neither is given. Raises CredentialError for an unreadable
    or empty file, or a token shorter than :data:`MIN_ADMIN_TOKEN_LENGTH`."""
    if path:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CredentialError(f"cannot read the admin token file {path}: {exc}") from None
        token = (text.strip().splitlines() or [""])[0].strip()
        where = f"the admin token file {path}"
    else:
        token = (settings.current() if env is None else settings.Settings.from_env(env)).admin_token or ""
        where = f"${ADMIN_TOKEN_ENV}"
        if not token:
            return None
    if len(token) < MIN_ADMIN_TOKEN_LENGTH:
        raise CredentialError(
            f"{where} holds a token of {len(token)} characters; use at least "
            f"{MIN_ADMIN_TOKEN_LENGTH} (e.g. `python -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
        )
    return token


def same_token(given: str | None, expected: str) -> bool:
    """Constant-time comparison of a presented token with the expected one."""
    if given is None:
        return False
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def peer_address(peer: str | None) -> str:
    """The address part of a gRPC peer string, without the port: ``ipv4:1.2.3.4:5`` ->
    ``1.2.3.4``, ``ipv6:[::1]:5`` -> ``::1``; other kinds (``unix:...``) are kept whole."""
    if not peer:
        return "unknown"
    kind, _, rest = peer.partition(":")
    if kind == "ipv4":
        return rest.rsplit(":", 1)[0]
    if kind == "ipv6":
        host = rest.rsplit(":", 1)[0] if rest.startswith("[") else rest
        return host.strip("[]").split("%", 1)[0]
    return peer


class FailedAuthLimiter:
    """Counts failed authentications per peer address over a sliding window.

    Memory is bounded: at most `max_failures` timestamps per address and `max_peers` addresses
    (the least recently failing ones are forgotten first).
    """

    def __init__(
        self,
        max_failures: int = FAILED_AUTH_LIMIT,
        window_s: float = FAILED_AUTH_WINDOW_S,
        *,
        max_peers: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
        exempt: Iterable[str] = ("unix",),
    ) -> None:
        """`exempt`: "unix" (clients on a Unix socket) and CIDR networks never counted or
        refused. Raises ValueError for a bad limit or network."""
        if max_failures < 1 or window_s <= 0:
            raise ValueError("max_failures must be >= 1 and window_s > 0")
        self.max_failures = max_failures
        self.window_s = window_s
        self.max_peers = max_peers
        self._clock = clock
        given = list(exempt)
        self._exempt_unix = "unix" in given
        self._exempt_networks = [ipaddress.ip_network(n, strict=False) for n in given if n != "unix"]
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()
        #: refusals because of the limit, for logs and tests
        self.refused = 0

    def _recent(self, address: str, now: float) -> deque[float] | None:
        stamps = self._failures.get(address)
        if stamps is None:
            return None
        while stamps and stamps[0] <= now - self.window_s:
            stamps.popleft()
        if not stamps:
            del self._failures[address]
            return None
        return stamps

    def exempted(self, address: str) -> bool:
        """True if failures from `address` are never counted (see `exempt`)."""
        if address.startswith("unix"):
            return self._exempt_unix
        if not self._exempt_networks:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self._exempt_networks)

    def retry_after(self, address: str) -> float | None:
        """Seconds until `address` may try again, or None if it is not blocked."""
        if address not in self._failures:
            return None
        now = self._clock()
        stamps = self._recent(address, now)
        if stamps is None or len(stamps) < self.max_failures:
            return None
        self.refused += 1
        return max(0.0, stamps[0] + self.window_s - now)

    def failed(self, address: str) -> None:
        """Count one failed authentication from `address` (nothing for an exempt one)."""
        if self.exempted(address):
            return
        now = self._clock()
        stamps = self._recent(address, now)
        if stamps is None:
            stamps = self._failures[address] = deque(maxlen=self.max_failures)
            while len(self._failures) > self.max_peers:
                self._failures.popitem(last=False)
        self._failures.move_to_end(address)
        stamps.append(now)

    def message(self, retry_after: float) -> str:
        """What a refused caller is told."""
        return (
            f"too many failed authentications from your address ({self.max_failures} in "
            f"{self.window_s:.0f} s); try again in {retry_after:.0f} s with a valid token"
        )


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """A server certificate chain and its private key (PEM files)."""

    cert: Path
    key: Path

    def load(self) -> tuple[bytes, bytes]:
        """(certificate chain, private key) bytes. Raises CredentialError if unreadable."""
        try:
            return self.cert.read_bytes(), self.key.read_bytes()
        except OSError as exc:
            raise CredentialError(f"cannot read the TLS certificate or key: {exc}") from None
