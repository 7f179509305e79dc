#!/usr/bin/env bash
# Starts a throwaway PostgreSQL (Debian's postgresql-15 programs, not on PATH)
# on a free loopback port and prints its URL on stdout. PostgreSQL refuses to
# run as root, so the cluster belongs to the postgres user when we are root.
# Usage: url=$(bash .ci/postgres.sh DIR); stop with: pg_ctl -D DIR/data stop
set -euo pipefail
dir=${1:?usage: postgres.sh DIR}
bindir=$(dirname "$(dpkg -L postgresql-15 2>/dev/null | grep 'bin/initdb$' | head -1)")
[ -x "$bindir/initdb" ] || { echo "postgres.sh: postgresql-15 is not installed" >&2; exit 1; }
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$dir"
as=()
if [ "$(id -u)" = 0 ]; then
	chown postgres "$dir"
	as=(runuser -u postgres --)
fi
"${as[@]}" "$bindir/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 ||
	{ cat "$dir/initdb.log" >&2; exit 1; }
"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" \
	-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" -w start >&2
echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
