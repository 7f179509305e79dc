#!/usr/bin/env bash
# Builds Jaeger v2 from tools/jaeger (its own module: the main go.mod never
# sees Jaeger's dependencies) and starts it with its all-in-one defaults:
# memory storage, OTLP/HTTP on 4318, the query API on 16686. Prints the
# process id; the caller stops it. The build is cached by the go command
# (27 min 41 s cold here: 2 cores shared with 3 other builds; seconds warm).
# Usage: bash .ci/jaeger.sh build BINDIR (the build alone, so that .ci/run
# can overlap it with the tests), then pid=$(bash .ci/jaeger.sh start BINDIR)
# (builds first if BINDIR holds no jaeger yet).
set -euo pipefail
mode=$1 bindir=$2
mkdir -p "$bindir"
if [ ! -x "$bindir/jaeger" ]; then
	(cd "$(dirname "$0")/../tools/jaeger" && go build -o "$bindir/jaeger.tmp" github.com/jaegertracing/jaeger/cmd/jaeger) >&2
	mv "$bindir/jaeger.tmp" "$bindir/jaeger"
fi
[ "$mode" = build ] && exit 0
"$bindir/jaeger" >"$bindir/jaeger.log" 2>&1 &
pid=$!
for _ in $(seq 120); do
	if curl -fsS -o /dev/null http://127.0.0.1:16686/api/services 2>/dev/null &&
		curl -sS -o /dev/null -X POST -H 'Content-Type: application/json' -d '{}' http://127.0.0.1:4318/v1/traces 2>/dev/null; then
		echo "$pid"
		exit 0
	fi
	if ! kill -0 "$pid" 2>/dev/null; then
		cat "$bindir/jaeger.log" >&2
		exit 1
	fi
	sleep 0.5
done
echo "Jaeger did not open 16686 and 4318 within 60 s" >&2
kill "$pid"
exit 1
