#!/usr/bin/env bash
# postgres.sh starts a throwaway PostgreSQL server for the store tests and prints its DSN on
# stdout, the only thing it prints there:
#
#	export STOPGATE_TEST_POSTGRES="$(scripts/postgres.sh)"
#
# It installs Debian's postgresql package when no server binaries are found (apt-get, as
# root), makes a cluster with initdb under .cache/postgres in the repository root (gitignored),
# and starts it listening on loopback only, with trust authentication for the stopgate role.
# PostgreSQL refuses to run as root, so as root the cluster belongs to, and runs as, the
# postgres system user the package creates; as anyone else it runs as that user.
#
# It is idempotent: a cluster already made is reused, a server already running is left
# running, and a second run takes well under a second. Nothing in the cluster is worth
# keeping: `scripts/postgres.sh stop` stops the server, and removing the directory removes it.
#
# `scripts/postgres.sh status` exits 0 when the server is running, non-zero when it is not.
#
# Usage: scripts/postgres.sh [start|stop|status]
# Env:   STOPGATE_PG_DIR   the cluster's directory (default: <repo>/.cache/postgres)
#        STOPGATE_PG_PORT  the TCP port on 127.0.0.1 (default: the cluster's own port; for a new
#                          cluster the first free port from 54329 up, so a server another
#                          checkout left running does not get in the way)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${STOPGATE_PG_DIR:-$root/.cache/postgres}"
port="${STOPGATE_PG_PORT:-}"
action="${1:-start}"
data="$dir/data"
sock="$dir/run"
log="$dir/server.log"
role=stopgate
db=stopgate

say() { echo "postgres.sh: $*" >&2; }
die() { say "$*"; exit 1; }

# bindir prints the newest installed server's bin directory, or nothing.
bindir() {
	local d
	d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	if [[ -n "$d" && -x "$d/initdb" && -x "$d/pg_ctl" ]]; then
		echo "$d"
	fi
}

bin="$(bindir)"
if [[ -z "$bin" ]]; then
	[[ "$action" == stop ]] && exit 0
	[[ "$action" == status ]] && exit 1
	[[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null || die "PostgreSQL is not installed; as root: apt-get update && apt-get install -y postgresql"
	say "installing Debian's postgresql package"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq >&2
	apt-get install -y -qq --no-install-recommends postgresql >&2
	bin="$(bindir)"
	[[ -n "$bin" ]] || die "apt-get installed postgresql but no /usr/lib/postgresql/*/bin/initdb was found"
fi

# as runs a command as the cluster's owner: the postgres system user when we are root, else us.
as() {
	if [[ "$(id -u)" -eq 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

running() { as "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; }

if [[ "$action" == stop ]]; then
	if [[ -d "$data" ]] && running; then
		as "$bin/pg_ctl" -D "$data" -m fast -w stop >&2
	fi
	exit 0
fi
if [[ "$action" == status ]]; then
	[[ -d "$data" ]] && running
	exit
fi
[[ "$action" == start ]] || die "usage: scripts/postgres.sh [start|stop|status]"

mkdir -p "$dir"
if [[ "$(id -u)" -eq 0 ]]; then
	id postgres >/dev/null 2>&1 || die "no postgres system user: reinstall Debian's postgresql package"
	chown postgres: "$dir"
	as test -w "$dir" || die "the postgres user cannot write $dir (a parent directory is not searchable by it?); set STOPGATE_PG_DIR"
fi

major="$(basename "$(dirname "$bin")")"
if [[ -f "$data/PG_VERSION" && "$(cat "$data/PG_VERSION")" != "$major" ]]; then
	# Made by another major version: nothing in it is worth an upgrade.
	say "the cluster in $data is PostgreSQL $(cat "$data/PG_VERSION"), the server is $major: remaking it"
	as "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$data"
fi
# free reports whether nothing listens on 127.0.0.1:$1.
free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

if [[ -z "$port" && -f "$data/postgresql.conf" ]]; then
	port="$(sed -n 's/^port = \([0-9][0-9]*\)$/\1/p' "$data/postgresql.conf" | tail -n 1)"
fi
if [[ -z "$port" ]]; then
	for p in $(seq 54329 54399); do
		if free "$p"; then port="$p"; break; fi
	done
	[[ -n "$port" ]] || die "no free port between 54329 and 54399; set STOPGATE_PG_PORT"
fi

if [[ ! -f "$data/PG_VERSION" ]]; then
	say "making a cluster in $data"
	rm -rf "$data"
	as "$bin/initdb" -D "$data" -U "$role" --auth=trust --encoding=UTF8 --no-locale >/dev/null
	as mkdir -p "$sock"
	# Loopback only; the Unix socket lives beside the cluster, not in /var/run/postgresql.
	as tee -a "$data/postgresql.conf" >/dev/null <<-EOF
		listen_addresses = '127.0.0.1'
		port = $port
		unix_socket_directories = '$sock'
		max_connections = 200
	EOF
fi

if ! running; then
	say "starting the server on 127.0.0.1:$port (log: $log)"
	as touch "$log"
	if ! as "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null; then
		tail -n 20 "$log" >&2 || true
		die "the server did not start"
	fi
fi

psql() { as "$bin/psql" -X -q -h 127.0.0.1 -p "$port" -U "$role" "$@"; }
if [[ "$(psql -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = '$db'")" != 1 ]]; then
	psql -d postgres -c "CREATE DATABASE $db" >&2
fi
psql -d "$db" -tAc 'SELECT 1' >/dev/null || die "the server does not answer"

echo "postgres://$role@127.0.0.1:$port/$db?sslmode=disable"
