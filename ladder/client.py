"""The client side of the ladder's HTTP API: credentials, bot archives, requests.

What ``arena login``, ``arena bot ...`` and ``arena ladder ...`` (``cli/client.py``)
are made of. The CLI is a client of the HTTP API only: nothing here touches the database.

Errors, drawn once::

    ClientError             one line for the user; the CLI prints it and exits 1
     ├── NotLoggedIn        no server or key: run `arena login`
     ├── ArchiveError       a directory or archive that cannot be sent as it is
     └── ApiError           the server answered with an error (status, its message)

Credentials (:func:`credentials_path`): ``$XDG_CONFIG_HOME/arena/credentials.json`` (default
``~/.config/arena/credentials.json``), a JSON object ``{"server", "key"[, "ca"][, "plain_http"]}``.
The file is created with mode 0600 from the start (a fresh file opened ``O_EXCL`` with that mode,
then renamed over the old one), so the key is never readable by others, not even for a moment.
The key is read from a file, the environment or the terminal, never from a command-line
argument (those show in ``ps``).

A stored key is bound to the server it was stored for: it is sent only to a server with the
same scheme, host and port (:func:`same_origin`). A command given another ``--server`` (or
``$ARENA_SERVER``) has no key for it and says so (:class:`NotLoggedIn`, naming the
``arena login`` to run); a key in ``$ARENA_API_KEY`` is the user's choice for the server the
command names. No key is ever sent over plain ``http://`` to a host that is not this machine's
loopback (127.0.0.0/8, ::1, ``localhost``) unless the user says so with ``--allow-plain-http``
(stored by ``arena login`` with the key, for that server only).

Archives (:func:`pack_directory`): a directory is packed client-side into a deterministic
tar.gz (sorted names, mtime 0, owner 0, permissions kept), so the same files give the same
SHA-256. Skipped: version-control folders (``.git``, ``.hg``, ``.svn``), ``__pycache__`` and
``*.pyc``, ``.DS_Store``. Not skipped: ``node_modules`` and vendored packages — the sandbox has
no network, so a bot must bring its dependencies. A symlink whose target lies inside the
directory is kept as a link (the server stores a copy of its target file, and drops a link to a
folder); one pointing outside is refused (the server refuses it too).
"""

from __future__ import annotations

import contextlib
import gzip
import io
import ipaddress
import json
import os
import re
import ssl
import stat
import tarfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import quote, urlsplit

import httpx

from referee import settings

__all__ = [
    "ARCHIVE_TYPES",
    "ENV_API_KEY",
    "ENV_SERVER",
    "MAX_ANSWER_BYTES",
    "SKIPPED_NAMES",
    "ApiClient",
    "ApiError",
    "ArchiveError",
    "ClientError",
    "Credentials",
    "NotLoggedIn",
    "PackedArchive",
    "credentials_path",
    "is_loopback",
    "load_credentials",
    "normalise_server",
    "pack_directory",
    "plain_http_refusal",
    "read_archive",
    "read_secret",
    "same_origin",
    "save_credentials",
    "write_secret_file",
]

ENV_API_KEY: Final = "ARENA_API_KEY"
ENV_SERVER: Final = "ARENA_SERVER"
#: files and folders a packed directory leaves out (anywhere in the tree)
SKIPPED_NAMES: Final = frozenset({".git", ".hg", ".svn", "__pycache__", ".DS_Store"})
_SKIPPED_SUFFIXES: Final = (".pyc", ".pyo")
#: archive file name endings the upload accepts, and the Content-Type each is sent with
ARCHIVE_TYPES: Final = {".tar.gz": "application/gzip", ".tgz": "application/gzip", ".zip": "application/zip"}
#: seconds for one request (an upload gets longer)
TIMEOUT_S: Final = 30.0
UPLOAD_TIMEOUT_S: Final = 300.0
#: an upload answered 503 with Retry-After (the server is checking its most uploads at once) is
#: sent again, this many times in all, waiting what it says (at most UPLOAD_BUSY_WAIT_S)
UPLOAD_BUSY_TRIES: Final = 5
UPLOAD_BUSY_WAIT_S: Final = 30
_DOWNLOAD_CHUNK: Final = 64 * 1024
#: the most an API answer may be, held in memory (`ApiClient.request`): a bot's profile, a match,
#: a seat's log (at most 1 MiB on the server, ladder.bots.MAX_LOG_BYTES) are far below it;
#: replays, the one large download, stream to a file under their own cap (`ApiClient.download`)
MAX_ANSWER_BYTES: Final = 16 * 1024 * 1024


class ClientError(Exception):
    """A failure to tell the user in one line (the CLI prints ``error: <message>``)."""


class NotLoggedIn(ClientError):
    """No server or API key is known."""


class ArchiveError(ClientError):
    """A bot directory or archive that cannot be uploaded."""


class ApiError(ClientError):
    """The server answered with an error status."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(f"{message} (HTTP {status})")
        self.status = status
        self.message = message
        #: the server's Retry-After (whole seconds), if it sent one
        self.retry_after = retry_after


# --- credentials ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Credentials:
    """Where the API is, the key to use there, and the CA that signs its certificate."""

    server: str
    key: str
    ca: str | None = None
    #: the user accepted sending the key to this (non-loopback) server over plain http://
    plain_http: bool = False


def credentials_path() -> Path:
    """``$XDG_CONFIG_HOME/arena/credentials.json`` (``~/.config`` when unset or not absolute)."""
    base = os.environ.get("XDG_CONFIG_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".config"
    return root / "arena" / "credentials.json"


def normalise_server(url: str) -> str:
    """`url` as the API's base (``http(s)://host[:port]``, no trailing slash).

    Raises ClientError for anything that is not an http(s) URL.
    """
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ClientError(f"--server: {url!r} is not an http:// or https:// URL")
    return url


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(normalise_server(url))
    try:
        port = parts.port
    except ValueError as exc:
        raise ClientError(f"--server: {url!r} has a malformed port") from exc
    default = 443 if parts.scheme == "https" else 80
    return parts.scheme, (parts.hostname or "").lower(), port if port is not None else default


def same_origin(a: str, b: str) -> bool:
    """True if the server URLs `a` and `b` have the same scheme, host and port (a port left out
    is the scheme's default): the only servers a key stored for one may be sent to."""
    return _origin(a) == _origin(b)


def is_loopback(host: str) -> bool:
    """True for this machine's own addresses: ``localhost``, 127.0.0.0/8, ::1."""
    host = host.lower().strip("[]")
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def plain_http_refusal(server: str) -> str | None:
    """Why a key must not be sent to `server` without ``--allow-plain-http`` (plain http:// to a
    host other than this machine), or None if it may be."""
    scheme, host, _port = _origin(server)
    if scheme != "http" or is_loopback(host):
        return None
    return (
        f"refusing to send an API key over plain http:// to {host} (anyone on the way could read "
        f"it): use https://, or pass --allow-plain-http to `arena login` if you accept that"
    )


def write_secret_file(path: Path, text: str) -> None:
    """Write `text` to `path`, readable by its owner only from the first byte on.

    A new file is created next to `path` with mode 0600 and ``O_EXCL`` (so it cannot be a
    file or link someone else prepared), written, flushed, and renamed over `path`.
    """
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp = _exclusive_temp(path)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _exclusive_temp(path: Path) -> tuple[int, str]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(100):
        tmp = str(path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp"))
        try:
            return os.open(tmp, flags, 0o600), tmp
        except FileExistsError:
            continue
    raise ClientError(f"cannot create a temporary file next to {path}")


def save_credentials(creds: Credentials, path: Path | None = None) -> Path:
    """Store `creds` (mode 0600); returns the file's path."""
    path = path or credentials_path()
    data: dict[str, str | bool] = {"server": creds.server, "key": creds.key}
    if creds.ca:
        data["ca"] = creds.ca
    if creds.plain_http:
        data["plain_http"] = True
    try:
        write_secret_file(path, json.dumps(data, indent=2) + "\n")
    except OSError as exc:
        raise ClientError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


def load_credentials(
    server: str | None = None, ca: str | None = None, path: Path | None = None
) -> Credentials:
    """The credentials to use: `server` / `ca` (from the command line) over ``$ARENA_SERVER``
    over the stored server; ``$ARENA_API_KEY`` over the stored key, which is used only for the
    server it was stored for (:func:`same_origin`). Raises NotLoggedIn if no server is known, or
    no key for the chosen one."""
    path = path or credentials_path()
    stored: dict[str, Any] = {}
    if path.exists():
        try:
            mode = path.stat().st_mode
            text = path.read_text(encoding="utf-8")
            loaded = json.loads(text)
        except (OSError, ValueError) as exc:
            raise ClientError(f"cannot read {path}: {exc}; run `arena login` again") from exc
        if not isinstance(loaded, dict):
            raise ClientError(f"{path} is not a JSON object; run `arena login` again")
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            raise ClientError(
                f"{path} is readable by others (mode {stat.S_IMODE(mode):o}): run `chmod 600 {path}` "
                "and consider replacing the key"
            )
        stored = loaded
    chosen_server = server or settings.current().server or stored.get("server")
    if not chosen_server:
        raise NotLoggedIn("no server: run `arena login --server URL` (or pass --server)")
    chosen = normalise_server(str(chosen_server))
    stored_server = normalise_server(str(stored["server"])) if stored.get("server") else None
    # the stored key, CA and plain-http consent belong to the stored server only
    home = stored_server is not None and same_origin(chosen, stored_server)
    key = settings.current().api_key or (stored.get("key") if home else None)
    if not key:
        if stored.get("key") and stored_server is not None:
            raise NotLoggedIn(
                f"no API key for {chosen}: the stored key is for {stored_server} and is sent to no "
                f"other server; run `arena login --server {chosen}` to use {chosen}"
            )
        raise NotLoggedIn(f"no API key for {chosen}: run `arena login --server {chosen}`")
    if not ca and home:
        ca = stored.get("ca")
    plain_http = home and stored.get("plain_http") is True and not settings.current().api_key
    return Credentials(chosen, str(key), str(ca) if ca else None, plain_http)


# --- archives -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PackedArchive:
    """An archive ready to send."""

    data: bytes
    content_type: str
    files: int
    source: str


def _skipped(name: str) -> bool:
    return name in SKIPPED_NAMES or name.endswith(_SKIPPED_SUFFIXES)


def _walk(root: Path) -> Iterator[Path]:
    """Every path under `root` (sorted, skipped names left out), never following links."""
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if not _skipped(d))
        here = Path(dirpath)
        for name in sorted(dirnames + [f for f in filenames if not _skipped(f)]):
            yield here / name


def pack_directory(directory: Path) -> PackedArchive:
    """Pack `directory`'s contents into a deterministic tar.gz (see the module docstring).

    Raises ArchiveError for a missing or empty directory, a symlink out of it, or a file of a
    kind that cannot be archived (a socket, a device).
    """
    root = directory.resolve()
    if not root.is_dir():
        raise ArchiveError(f"{directory}: not a directory")
    buf = io.BytesIO()
    files = 0
    # gzip with a zero mtime and no file name, so equal trees give equal bytes
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0) as gz, tarfile.open(
        fileobj=gz, mode="w", format=tarfile.PAX_FORMAT
    ) as tar:
        for path in _walk(root):
            rel = path.relative_to(root).as_posix()
            st = path.lstat()
            info = tarfile.TarInfo(rel)
            info.mtime = 0
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mode = stat.S_IMODE(st.st_mode) & 0o755
            if stat.S_ISLNK(st.st_mode):
                target = os.readlink(path)
                resolved = (path.parent / target).resolve()
                if os.path.isabs(target) or not resolved.is_relative_to(root):
                    raise ArchiveError(f"{path}: a symlink out of the bot's directory ({target})")
                info.type = tarfile.SYMTYPE
                info.linkname = target
                tar.addfile(info)
            elif stat.S_ISDIR(st.st_mode):
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            elif stat.S_ISREG(st.st_mode):
                info.size = st.st_size
                with path.open("rb") as f:
                    tar.addfile(info, f)
                files += 1
            else:
                raise ArchiveError(f"{path}: not a regular file, folder or symlink")
    if files == 0:
        raise ArchiveError(f"{directory}: no files to upload")
    return PackedArchive(buf.getvalue(), "application/gzip", files, str(directory))


def read_archive(path: Path) -> PackedArchive:
    """A ready-made ``.tar.gz`` / ``.tgz`` / ``.zip``, sent as it is (the server checks it)."""
    name = path.name.lower()
    content_type = next((t for end, t in ARCHIVE_TYPES.items() if name.endswith(end)), None)
    if content_type is None:
        raise ArchiveError(f"{path}: not a directory, .tar.gz, .tgz or .zip")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ArchiveError(f"{path}: {exc.strerror or exc}") from exc
    return PackedArchive(data, content_type, 0, str(path))


# --- requests -------------------------------------------------------------------------------


def _verify(ca: str | None) -> ssl.SSLContext | bool:
    if not ca:
        return True
    try:
        return ssl.create_default_context(cafile=ca)
    except (OSError, ssl.SSLError) as exc:
        raise ClientError(f"--ca {ca}: cannot load it ({exc})") from exc


def _error_message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        body = None
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return str(body["error"])
    if isinstance(body, dict) and "detail" in body:
        return str(body["detail"])
    # something else answered (a proxy's error page, another service): say so, briefly
    text = " ".join(re.sub(r"<[^>]*>", " ", response.text).split())[:200]
    kind = response.headers.get("content-type", "no content type").split(";")[0]
    return f"not an Arena API answer ({kind}): {text or response.reason_phrase or 'empty'}"


class ApiClient:
    """Calls the ladder's HTTP API with a bearer key; every failure is a :class:`ClientError`."""

    def __init__(
        self,
        server: str,
        key: str | None = None,
        *,
        ca: str | None = None,
        transport: httpx.BaseTransport | None = None,
        allow_plain_http: bool = False,
    ) -> None:
        """A client of the API at `server` using `key` (None: anonymous), trusting `ca`.

        Raises ClientError for a key to be sent over plain http:// to a host other than this
        machine, unless `allow_plain_http` (:func:`plain_http_refusal`).
        """
        self.server = normalise_server(server)
        headers = {"User-Agent": "arena-cli"}
        refusal = plain_http_refusal(self.server) if key and not allow_plain_http else None
        if refusal is not None:
            raise ClientError(refusal)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.Client(
            base_url=self.server,
            headers=headers,
            timeout=TIMEOUT_S,
            verify=_verify(ca),
            transport=transport,
            follow_redirects=False,
        )

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def __enter__(self) -> ApiClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def request(
        self,
        method: str,
        path: str,
        *,
        json_body: Any = None,
        params: Mapping[str, str] | None = None,
        content: bytes | None = None,
        content_type: str | None = None,
        timeout: float = TIMEOUT_S,
        max_bytes: int = MAX_ANSWER_BYTES,
    ) -> httpx.Response:
        """One request; raises ApiError for an error status, ClientError if the server is
        unreachable or the TLS handshake fails, or if its answer is over `max_bytes`.

        The answer is read as the server sends it, a chunk at a time, and refused in one line as
        soon as it is over the cap (announced or counted), so a hostile server cannot make the
        client hold more than that (:meth:`download` streams to a file the same way).
        """
        headers = {"Content-Type": content_type} if content_type else None
        refused = ClientError(
            f"{self.server}'s answer to {method} {path} is larger than {max_bytes:,} bytes, the most "
            "an API answer may be: refused"
        )
        with self._streamed(
            method, path, json=json_body, params=params, content=content, headers=headers, timeout=timeout
        ) as response:
            body = b"".join(_bounded(response, max_bytes, refused))
        return _settled(response, body)

    @contextlib.contextmanager
    def _streamed(self, method: str, path: str, **options: Any) -> Iterator[httpx.Response]:
        """One request, its body not yet read: an error status raised as :func:`_raise_for_status`
        does, from at most the body's first 64 KiB; transport failures as :meth:`_errors` says,
        while the body is read too."""
        with self._errors(), self._http.stream(method, path, **options) as response:
            if response.status_code >= 400:  # its message, from at most the body's first 64 KiB
                head = b""
                for chunk in response.iter_bytes(_DOWNLOAD_CHUNK):
                    head += chunk
                    if len(head) >= _DOWNLOAD_CHUNK:
                        break
                _raise_for_status(_settled(response, head[:_DOWNLOAD_CHUNK]))
            yield response

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Transport failures as one-line ClientErrors."""
        try:
            yield
        except httpx.ConnectError as exc:
            reason = str(exc) or type(exc).__name__
            if "CERTIFICATE" in reason.upper() or "SSL" in reason.upper():
                raise ClientError(
                    f"TLS handshake with {self.server} failed ({reason}); pass --ca FILE if its "
                    "certificate is signed by your own CA"
                ) from exc
            raise ClientError(f"cannot reach {self.server}: {reason}") from exc
        except httpx.TimeoutException as exc:
            raise ClientError(f"{self.server} did not answer in time ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise ClientError(f"request to {self.server} failed: {exc}") from exc

    def download(self, path: str, dest: Path, max_bytes: int, what: str) -> int:
        """GET `path` into the new file `dest`, streamed (a chunk at a time, never the whole body
        in memory), refusing a body over `max_bytes` in one line naming `what`; the bytes written.

        A body announced (Content-Length) or found over the cap is refused as soon as that is
        known, and whatever was written of it is removed.
        """
        refused = ClientError(
            f"{what} is larger than {max_bytes:,} bytes, the most it may be: refused, nothing written"
        )
        written = 0
        with self._streamed("GET", path, timeout=TIMEOUT_S) as response:
            try:
                with dest.open("xb") as out:
                    for chunk in _bounded(response, max_bytes, refused):
                        written += len(chunk)
                        out.write(chunk)
            except BaseException:
                with contextlib.suppress(OSError):
                    dest.unlink()
                raise
        return written

    def get_json(self, path: str, params: Mapping[str, str] | None = None) -> Any:
        """GET `path` and decode its JSON body."""
        return _json(self.request("GET", path, params=params))

    def post_json(self, path: str, body: Any = None, params: Mapping[str, str] | None = None) -> Any:
        """POST `body` as JSON to `path` and decode the answer."""
        return _json(self.request("POST", path, json_body=body if body is not None else {}, params=params))

    # --- the calls the commands make ----------------------------------------------------

    def me(self) -> dict[str, Any]:
        """The account the key belongs to."""
        return dict(self.get_json("/api/me"))

    def bot_by_name(self, name: str) -> dict[str, Any]:
        """A bot's profile by its name (404 if there is none)."""
        return dict(self.get_json(f"/api/bots/by-name/{quote(name, safe='')}"))

    def upload(
        self, bot_id: int, archive: PackedArchive, run: str, version: str | None
    ) -> dict[str, Any]:
        """Send `archive` as a new version of bot `bot_id`, launched with `run`."""
        params = {"run": run}
        if version:
            params["version"] = version
        for attempt in range(UPLOAD_BUSY_TRIES):
            try:
                response = self.request(
                    "POST",
                    f"/api/bots/{bot_id}/versions",
                    params=params,
                    content=archive.data,
                    content_type=archive.content_type,
                    timeout=UPLOAD_TIMEOUT_S,
                )
            except ApiError as exc:
                # the server is checking as many uploads as it takes at once: it says when to
                # come back, and the upload has changed nothing there
                last = attempt == UPLOAD_BUSY_TRIES - 1
                if exc.status != 503 or exc.retry_after is None or last:
                    raise
                time.sleep(min(exc.retry_after, UPLOAD_BUSY_WAIT_S))
                continue
            return dict(_json(response))
        raise AssertionError("unreachable")  # pragma: no cover


def _bounded(response: httpx.Response, max_bytes: int, refused: ClientError) -> Iterator[bytes]:
    """`response`'s body a chunk at a time (as decoded), raising `refused` as soon as it is
    known to be over `max_bytes`: announced so (Content-Length), or counted so."""
    announced = response.headers.get("content-length", "")
    if announced.isdigit() and int(announced) > max_bytes:
        raise refused
    total = 0
    for chunk in response.iter_bytes(_DOWNLOAD_CHUNK):
        total += len(chunk)
        if total > max_bytes:
            raise refused
        yield chunk


#: the headers that describe the body as it was sent, not as it was read (decoded, whole)
_WIRE_HEADERS: Final = frozenset({"content-encoding", "content-length", "transfer-encoding"})


def _settled(response: httpx.Response, body: bytes) -> httpx.Response:
    """A streamed `response` with `body`, the part of it read, as a read response: its status,
    headers (Retry-After, Content-Type) and request, for .json(), .text and the errors."""
    headers = [(k, v) for k, v in response.headers.multi_items() if k.lower() not in _WIRE_HEADERS]
    return httpx.Response(response.status_code, headers=headers, content=body, request=response.request)


def _raise_for_status(response: httpx.Response) -> None:
    if response.status_code >= 400:
        message = _error_message(response)
        if response.status_code == 401:
            message += " — run `arena login` with a valid API key"
        wait = response.headers.get("retry-after", "")
        raise ApiError(response.status_code, message, int(wait) if wait.isdigit() else None)


def _json(response: httpx.Response) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise ClientError(
            f"{response.request.url} answered {response.status_code} with something that is not JSON"
        ) from exc


def read_secret(prompt: str, stdin: Any, *, interactive: bool) -> str:
    """One line from `stdin` (or a hidden prompt when it is a terminal), stripped."""
    if interactive:
        import getpass

        return getpass.getpass(prompt).strip()
    line: str = stdin.readline()
    return line.strip()

