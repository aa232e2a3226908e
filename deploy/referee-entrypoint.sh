#!/bin/sh
# The referee container's entrypoint (deploy/docker-compose.yml): load the per-address connection
# cap (referee-connlimit.nft, beside this file) into the container's network namespace, then run
# `arena ARGS` as the unprivileged user (10001, the image's `arena`; $ARENA_REFEREE_UID to change)
# with no capability left. Started as root with NET_ADMIN; the rule is loaded again at every start,
# since a restarted container may get a new network namespace. A rule that does not load stops the
# start: a referee without its cap does not run.
set -eu
here=$(dirname "$0")
uid=${ARENA_REFEREE_UID:-10001}
if ! out=$(nft -f "$here/referee-connlimit.nft" 2>&1); then
  echo "referee-entrypoint: cannot load $here/referee-connlimit.nft (needs root with NET_ADMIN and nftables): $(printf '%s\n' "$out" | head -n 1)" >&2
  exit 1
fi
exec setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all --bounding-set=-all \
  --no-new-privs -- arena "$@"
