#!/usr/bin/env bash
# End-to-end performance comparisons; prints one line per goal. Usage:
#   bash bench/run.sh bin/convo
# Inputs are generated into bench/out (git-ignored).
set -euo pipefail
convo=$(realpath "$1")
out=$(dirname "$0")/out
mkdir -p "$out"
out=$(realpath "$out")
N=${BENCH_LINES:-1000000}
RUNS=${BENCH_RUNS:-21}
go build -o "$out/gen" ./bench/gen
go build -o "$out/baseline" ./bench/baseline

ms() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
peak_rss_mb() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1 | awk '{printf "%.1f", $1/1024}'; }

# 1. One append into a 10,000-record conversation vs bench/minimal and the
# sqlite3 CLI (run-startup.sh).
CONVO="$convo" OUT="$out" RUNS="$RUNS" bash "$(dirname "$0")/run-startup.sh"

# 2. Bulk append of N lines vs a plain Go loop with a prepared statement.
"$out/gen" -n "$N" >"$out/lines.jsonl"
"$out/gen" -n "$N" | "$convo" append --role user x 2>/dev/null | head -n "$N" >"$out/canonical.jsonl" || true
rm -f "$out/bulk.db"*
t0=$(ms); CONVO_DB="$out/bulk.db" "$convo" append -q -c X <"$out/lines.jsonl"; t1=$(ms)
cb=$(( (t1 - t0) / 1000000 ))
rm -f "$out/base.db"*
"$out/baseline" -db "$out/base.db" </dev/null 2>/dev/null
t0=$(ms); "$out/baseline" -db "$out/base.db" <"$out/canonical.jsonl" 2>/dev/null; t1=$(ms)
bb=$(( (t1 - t0) / 1000000 ))
awk -v c="$cb" -v b="$bb" -v n="$N" 'BEGIN {printf "bulk append %d lines: convo %.0f rows/s, Go loop %.0f rows/s, ratio %.2f (goal >= 1.2)\n", n, n/(c/1000), n/(b/1000), b/c}'

# 3. get of the N-record conversation: time and peak RSS.
t0=$(ms); CONVO_DB="$out/bulk.db" "$convo" get -c X >/dev/null; t1=$(ms)
rss=$(CONVO_DB="$out/bulk.db" peak_rss_mb "$convo" get -c X)
awk -v t="$(( (t1 - t0) / 1000000 ))" -v r="$rss" -v n="$N" 'BEGIN {printf "get %d records: %.2f s, peak RSS %s MB (goal <= 64)\n", n, t/1000, r}'

# Later issues add their comparisons here when their commands exist.
for extra in "$(dirname "$0")"/run-*.sh; do
	[ "$(basename "$extra")" = run-startup.sh ] && continue # section 1
	[ -f "$extra" ] && CONVO="$convo" OUT="$out" N="$N" RUNS="$RUNS" bash "$extra"
done
exit 0
