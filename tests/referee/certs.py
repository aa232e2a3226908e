"""A throwaway certificate authority and a server certificate for TLS tests (openssl CLI)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Certs:
    """PEM files: the CA's certificate (what clients trust) and the server's certificate + key."""

    ca: Path
    cert: Path
    key: Path
    #: a second CA that signed nothing here: a client trusting only it must fail the handshake
    other_ca: Path


def _openssl(*args: str, cwd: Path) -> None:
    done = subprocess.run(["openssl", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _ca(folder: Path, name: str) -> tuple[Path, Path]:
    key, cert = folder / f"{name}.key", folder / f"{name}.pem"
    _openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key.name, "-out", cert.name,
        "-days", "2", "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        cwd=folder,
    )
    return key, cert


def make_certs(folder: Path) -> Certs:
    """A CA, and a certificate it signed for localhost / 127.0.0.1 / ::1 (and `referee`)."""
    folder.mkdir(parents=True, exist_ok=True)
    ca_key, ca_cert = _ca(folder, "test-ca")
    _, other = _ca(folder, "other-ca")
    (folder / "san.ext").write_text(
        "subjectAltName=DNS:localhost,DNS:referee,IP:127.0.0.1,IP:::1\n"
        "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\n"
    )
    _openssl(
        "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
        "-subj", "/CN=localhost",
        cwd=folder,
    )
    _openssl(
        "x509", "-req", "-in", "server.csr", "-CA", ca_cert.name, "-CAkey", ca_key.name,
        "-CAcreateserial", "-out", "server.pem", "-days", "2", "-extfile", "san.ext",
        cwd=folder,
    )
    return Certs(ca=ca_cert, cert=folder / "server.pem", key=folder / "server.key", other_ca=other)
