#!/usr/bin/env bash
# Start PostgreSQL and Redis for the test suite when they are not already listening.
# On the development machines both run before a session starts; on a fresh machine this
# starts the locally installed servers the same way. It never stops anything.
set -euo pipefail

listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if ! listening 5432; then
  echo "ensure-services: starting PostgreSQL" >&2
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    pg_ctlcluster --skip-systemctl-redirect "$version" main start
  else
    echo "ensure-services: PostgreSQL is not installed (need a server on 127.0.0.1:5432)" >&2
    exit 1
  fi
fi

if ! listening 6379; then
  echo "ensure-services: starting Redis" >&2
  if command -v redis-server >/dev/null 2>&1; then
    mkdir -p /tmp/arena-redis
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no \
      --dir /tmp/arena-redis --logfile /tmp/arena-redis/redis.log
  else
    echo "ensure-services: Redis is not installed (need a server on 127.0.0.1:6379)" >&2
    exit 1
  fi
fi

for _ in $(seq 1 50); do
  if listening 5432 && listening 6379; then exit 0; fi
  sleep 0.2
done
echo "ensure-services: PostgreSQL or Redis did not come up" >&2
exit 1
