#!/usr/bin/env bash
# Install the validators `make deploy-check` and tests/deploy run when they are missing:
# promtool (Debian's prometheus package) and docker-compose (Debian's Compose, used client side
# only: `config` needs no daemon), and nft (Debian's nftables: tests/deploy/test_referee_connlimit.py
# loads deploy/referee-connlimit.nft into a network namespace). kubernetes-validate and check-jsonschema are Python dev
# dependencies (pyproject.toml), installed by `make install`.
# Needs root and Debian's apt on a fresh machine; it never removes anything.
set -euo pipefail

missing=()
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
command -v nft >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v nft >/dev/null 2>&1 || missing+=(nftables)

if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-deploy-tools: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "ensure-deploy-tools: need root and apt-get to install ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  # --no-install-recommends: the Prometheus server is not started or needed, only its promtool
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 || {
    apt-get update -q >/dev/null 2>&1
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
  }
fi
