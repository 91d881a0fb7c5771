#!/bin/sh
# Entry point of the infra image: `postgres`, `redis` or `haproxy`, each in the foreground as its own user.
set -eu
case "${1:-}" in
  postgres)
    PGDATA="${PGDATA:-/var/lib/postgresql/data}"
    : "${POSTGRES_PASSWORD:?set POSTGRES_PASSWORD}"
    bin=/usr/lib/postgresql/15/bin
    mkdir -p "$PGDATA" /run/postgresql
    chown postgres:postgres "$PGDATA" /run/postgresql
    chmod 700 "$PGDATA"
    if [ ! -s "$PGDATA/PG_VERSION" ]; then
      printf '%s\n' "$POSTGRES_PASSWORD" >/tmp/pwfile
      chown postgres /tmp/pwfile
      runuser -u postgres -- "$bin/initdb" -D "$PGDATA" -U postgres --pwfile=/tmp/pwfile \
        --auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null
      rm -f /tmp/pwfile
      echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
      echo "host all all ::/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
      # The database and role Blockyard connects as (DATABASE_URL in compose.yaml).
      runuser -u postgres -- "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null <<SQL
CREATE ROLE blockyard LOGIN PASSWORD '$POSTGRES_PASSWORD';
CREATE DATABASE blockyard OWNER blockyard;
SQL
    fi
    exec runuser -u postgres -- "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' -c max_connections=200
    ;;
  redis)
    exec runuser -u redis -- redis-server --bind 0.0.0.0 --protected-mode no --save '' --appendonly no
    ;;
  haproxy)
    exec haproxy -W -db -f "${HAPROXY_CONFIG:-/etc/blockyard/haproxy.cfg}"
    ;;
  *)
    echo "infra-entry: give postgres, redis or haproxy (got '${1:-}')" >&2
    exit 2
    ;;
esac
