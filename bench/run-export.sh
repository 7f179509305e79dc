#!/usr/bin/env bash
# export of the N-record conversation X of bench/run.sh against get of the
# same: speed ratios and peak RSS. Called by bench/run.sh with CONVO, OUT, N.
# Runs alternate between the commands so that load from other processes
# falls on both; the ratios use medians of wall time and of CPU time.
set -euo pipefail
db="$OUT/bulk.db"
RUNS=${BENCH_EXPORT_RUNS:-5}

# run prints "wall_ms cpu_ms peak_kb" of one run, stdout discarded.
run() {
	CONVO_DB="$db" /usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -1 |
		awk '{printf "%d %d %d\n", $1*1000, ($2+$3)*1000, $4}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

for goal in "jsonl 0.8" "dynamodb 0.5"; do
	set -- $goal
	: >"$OUT/get.runs"
	: >"$OUT/export.runs"
	for _ in $(seq "$RUNS"); do
		run "$CONVO" get -c X >>"$OUT/get.runs"
		run "$CONVO" export -c X --format "$1" >>"$OUT/export.runs"
	done
	gw=$(cut -d' ' -f1 "$OUT/get.runs" | median); gc=$(cut -d' ' -f2 "$OUT/get.runs" | median)
	ew=$(cut -d' ' -f1 "$OUT/export.runs" | median); ec=$(cut -d' ' -f2 "$OUT/export.runs" | median)
	rss=$(cut -d' ' -f3 "$OUT/export.runs" | sort -n | tail -1)
	awk -v f="$1" -v g="$2" -v gw="$gw" -v gc="$gc" -v ew="$ew" -v ec="$ec" -v r="$rss" -v n="$N" 'BEGIN {
		printf "export --format %s of %d records: %.2f s (CPU %.2f s), get %.2f s (CPU %.2f s), speed ratio %.2f wall, %.2f CPU (goal >= %.1f), peak RSS %.1f MB (goal <= 64)\n",
			f, n, ew/1000, ec/1000, gw/1000, gc/1000, gw/ew, gc/ec, g, r/1024 }'
done
rm -f "$OUT/get.runs" "$OUT/export.runs"
