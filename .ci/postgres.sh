#!/usr/bin/env bash
# Install and start a throwaway PostgreSQL 15 + pgvector on loopback for integration tests.
#   export "$(.ci/postgres.sh)"   -> starts it; stdout is the single line DATABASE_URL=...
#   .ci/postgres.sh stop          -> fast-stops the server
# Idempotent: each step is skipped when its result is already there.
set -euo pipefail

PGBIN=/usr/lib/postgresql/15/bin
PGDATA_DIR=${PGDATA_DIR:-/tmp/svc-ci-pg}
PGPORT=${PGPORT:-55432}
DB=svc_test
export DEBIAN_FRONTEND=noninteractive

log() { echo "[postgres] $*" >&2; }
now_ms() { echo $((${EPOCHREALTIME//[.,]/} / 1000)); }
secs() { printf '%d.%01ds' $(($1 / 1000)) $(($1 % 1000 / 100)); }
START=$(now_ms) LAST=$START
phase_done() { # rough per-phase timing, so slow CI steps are easy to spot
  local now; now=$(now_ms)
  log "$1: $(secs $((now - LAST)))"
  LAST=$now
}
as_pg() { runuser -u postgres -- "$@"; }
running() { [[ -f $PGDATA_DIR/PG_VERSION ]] && as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1; }

if [[ ${1:-} == stop ]]; then
  if running; then as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast stop >&2; else log "not running"; fi
  exit 0
fi

# --- 1. packages ---------------------------------------------------------------
pkgs=(postgresql-15 postgresql-client-15 postgresql-server-dev-15)
command -v make >/dev/null && command -v gcc >/dev/null || pkgs+=(build-essential)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
phase_done packages

# --- 2. pgvector ---------------------------------------------------------------
# Not packaged for bookworm: build trixie's Debian source with a private apt
# config so the system's sources/lists are left exactly as they were.
if [[ ! -f /usr/share/postgresql/15/extension/vector.control ]]; then
  etc_before=$(find /etc/apt -type f -exec sha256sum {} + | sort)
  # Reuse the system's Debian mirror (deb822 "URIs:" or one-line "deb URL"), e.g. a local proxy.
  mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
    grep -oE '^[^#]*(URIs:|deb(-src)?( \[[^]]*\])?) +[a-z+]+://[^ ]+/debian/?( |$)' |
    grep -oE '[a-z+]+://[^ ]+/debian' | head -n1 || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  mkdir -p "$work"/{lists/partial,cache/archives/partial,src}
  # apt downloads as the unprivileged _apt user; without access it warns and falls back to root.
  chmod 755 "$work"
  chown -R _apt "$work"/lists "$work"/cache "$work"/src 2>/dev/null || true
  echo "deb-src $mirror trixie main" >"$work/sources.list"
  apt_priv=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache")
  log "fetching pgvector source from $mirror trixie"
  apt-get "${apt_priv[@]}" update -qq >&2
  (cd "$work/src" && apt-get "${apt_priv[@]}" source --download-only -qq pgvector >&2)
  tar -xf "$work"/src/pgvector_*.orig.tar.* -C "$work/src" --strip-components=1
  # OPTFLAGS="" drops pgvector's default -march=native, so the build is portable.
  make -s -C "$work/src" PG_CONFIG="$PGBIN/pg_config" OPTFLAGS="" -j"$(nproc)" >&2
  make -s -C "$work/src" PG_CONFIG="$PGBIN/pg_config" install >&2
  [[ $etc_before == "$(find /etc/apt -type f -exec sha256sum {} + | sort)" ]] ||
    { log "ERROR: /etc/apt changed during pgvector build"; exit 1; }
fi
phase_done pgvector

# --- 3. cluster ----------------------------------------------------------------
if [[ ! -f $PGDATA_DIR/PG_VERSION ]]; then
  mkdir -p "$PGDATA_DIR"
  chown postgres:postgres "$PGDATA_DIR"
  chmod 700 "$PGDATA_DIR"
  as_pg "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust -E UTF8 >/dev/null
fi
phase_done initdb

if ! running; then
  # Unix socket goes in the data dir: /var/run/postgresql may not exist without the packaged cluster.
  as_pg "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -o "-p $PGPORT -c listen_addresses=127.0.0.1 -k $PGDATA_DIR" \
    -l "$PGDATA_DIR/server.log" -w start >&2
fi
phase_done start

psql_() { PGOPTIONS='-c client_min_messages=warning' "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U postgres -X -q -v ON_ERROR_STOP=1 "$@"; }
if [[ -z $(psql_ -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB'") ]]; then
  psql_ -d postgres -c "CREATE DATABASE $DB" >&2
fi
psql_ -d "$DB" -c "CREATE EXTENSION IF NOT EXISTS vector" >&2
phase_done database

log "total: $(secs $(($(now_ms) - START)))"
echo "DATABASE_URL=postgres://postgres@127.0.0.1:$PGPORT/$DB"
