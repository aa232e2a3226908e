#!/bin/sh
# Development TLS material and admin token for deploy/docker-compose.yml (openssl only).
#
#   sh deploy/make-dev-certs.sh [extra DNS name ...]
#
# writes, next to this script (never overwriting what is there; both folders are git-ignored):
#   certs/ca.pem, certs/ca.key          a private CA: give ca.pem to bot authors (--ca / ARENA_CA)
#   certs/referee.pem, certs/referee.key  for the gRPC referee (names: referee, localhost, 127.0.0.1, extras)
#   certs/api.pem, certs/api.key          for the HTTP API (names: api, localhost, 127.0.0.1, extras)
#   secrets/admin-token                   32 random bytes, url-safe (the operator's admin credential)
# In production use certificates from your own CA or ACME instead, with the public host names.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
certs="$here/certs"
secrets="$here/secrets"
mkdir -p "$certs" "$secrets"
chmod 700 "$secrets"
umask 077

if [ ! -f "$certs/ca.pem" ]; then
  openssl req -x509 -newkey rsa:3072 -nodes -days 825 -subj "/CN=Arena dev CA" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$certs/ca.key" -out "$certs/ca.pem" 2>/dev/null
fi

extra=""
for name in "$@"; do extra="$extra,DNS:$name"; done

issue() {  # issue NAME: a server certificate for the compose service NAME
  [ -f "$certs/$1.pem" ] && return 0
  ext=$(mktemp)
  printf 'subjectAltName=DNS:%s,DNS:localhost,IP:127.0.0.1%s\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n' \
    "$1" "$extra" > "$ext"
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$1" -keyout "$certs/$1.key" -out "$certs/$1.csr" 2>/dev/null
  openssl x509 -req -in "$certs/$1.csr" -CA "$certs/ca.pem" -CAkey "$certs/ca.key" -CAcreateserial \
    -days 825 -extfile "$ext" -out "$certs/$1.pem" 2>/dev/null
  rm -f "$certs/$1.csr" "$ext"
}
issue referee
issue api
# the containers run as another user than yours: the keys must be readable by it (the folder is
# mounted read-only into the containers that need it)
chmod 644 "$certs"/*.pem "$certs"/referee.key "$certs"/api.key
chmod 600 "$certs/ca.key"

if [ ! -f "$secrets/admin-token" ]; then
  python3 -c 'import secrets; print(secrets.token_urlsafe(32))' > "$secrets/admin-token"
fi
chmod 644 "$secrets/admin-token"
echo "TLS material in $certs, admin token in $secrets/admin-token"
