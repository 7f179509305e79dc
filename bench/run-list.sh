#!/usr/bin/env bash
# Issue 39's list goal: the first and every later `convo list` over
# LIST_CONVS conversations of LIST_RECORDS records each (default 10,000 x
# 100, as a nightly import of ~/.claude/projects leaves them) <= 0.3 s:
# every write keeps the figures list shows in its own transaction, so no
# list reads a record. Usage: bash bench/run-list.sh bin/convo [STORE]
# (STORE: a postgres:// URL; default a SQLite file in bench/out).
set -euo pipefail
convo=$(realpath "$1")
out=$(dirname "$0")/out
mkdir -p "$out"
out=$(realpath "$out")
CONVS=${LIST_CONVS:-10000}
RECORDS=${LIST_RECORDS:-100}
RUNS=${LIST_RUNS:-5}
db=${2:-$out/list10k.db}
# LIST_SEED=0 times the lists of a store seeded before.
if [ "${LIST_SEED:-1}" != 0 ]; then
	go build -o "$out/listseed" ./bench/listseed
	if [[ "$db" != postgres* ]]; then rm -f "$db"*; fi
	t0=$(date +%s%N)
	"$out/listseed" -db "$db" -n "$CONVS" -records "$RECORDS"
	t1=$(date +%s%N)
	awk -v t="$(( (t1 - t0) / 1000000 ))" -v c="$CONVS" -v r="$RECORDS" 'BEGIN {printf "seed %d conversations x %d records (figures kept by each write): %.1f s\n", c, r, t/1000}'
fi
# run prints "wall_ms cpu_ms" of one list, its line count checked.
run() {
	local lines
	lines=$( { /usr/bin/time -f '%e %U %S' -o "$out/list.time" "$convo" --db "$db" list "$@"; } | wc -l)
	if [ "$lines" -ne $((CONVS + 1)) ] && [ "$lines" -ne "$CONVS" ]; then
		echo "list printed $lines lines, want $CONVS conversations" >&2
		exit 1
	fi
	awk '{printf "%d %d\n", $1*1000, ($2+$3)*1000}' "$out/list.time"
}
first=$(run)
later=$(for _ in $(seq "$RUNS"); do run; done)
json=$(run --json)
lw=$(echo "$later" | cut -d' ' -f1 | sort -n | tr '\n' ' ')
lc=$(echo "$later" | cut -d' ' -f2 | sort -n | tr '\n' ' ')
awk -v f="$first" -v lw="$lw" -v lc="$lc" -v j="$json" -v c="$CONVS" -v r="$RECORDS" 'BEGIN {
	split(f, fa, " "); split(j, ja, " ")
	n = split(lw, w, " "); split(lc, u, " ")
	printf "list over %d conversations x %d records: first %.2f s (CPU %.2f s), later %.2f-%.2f s (median %.2f, CPU median %.2f; goal <= 0.3); --json %.2f s (CPU %.2f s)\n",
		c, r, fa[1]/1000, fa[2]/1000, w[1]/1000, w[n]/1000, w[int((n+1)/2)]/1000, u[int((n+1)/2)]/1000, ja[1]/1000, ja[2]/1000 }'
rm -f "$out/list.time"
