#!/usr/bin/env bash
# Issue 31's goal, end to end: convo search WORD --limit 20 (newest first)
# over the N-record conversation X of bench/run.sh, a word every record
# holds and one only one holds, the process's start-up included (goal:
# <= 50 ms at N = 1,000,000) once the first search brought the index up
# to date; then --sort rank, which reads the newest 10,000 matches. Called
# by bench/run.sh with CONVO, OUT, N, RUNS.
set -euo pipefail
db="$OUT/bulk.db"
ms() { date +%s%N; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# The store of bench/run.sh predates nothing: an older one is migrated once.
CONVO_DB="$db" "$CONVO" migrate -q 2>/dev/null || true
# Issue 40: the bulk append wrote no index; the first search brings it up
# to date (goal: at >= 0.8 the rate the append wrote it at before, i.e.
# in no more time than the index added to the append).
t0=$(ms); CONVO_DB="$db" "$CONVO" search fox --limit 20 >/dev/null 2>&1 || true; t1=$(ms)
awk -v t="$(( (t1 - t0) / 1000000 ))" -v n="$N" 'BEGIN {printf "first search over %d records (the index catching up): %.2f s, %.0f records/s\n", n, t/1000, n/(t/1000)}'
for q in fox "$((N / 2))" "\"lazy dog\""; do
	for _ in $(seq "$RUNS"); do
		t0=$(ms); CONVO_DB="$db" "$CONVO" search "$q" --limit 20 >/dev/null || true; t1=$(ms)
		echo $(( (t1 - t0) / 1000000 ))
	done | median | awk -v q="$q" -v n="$N" '{printf "search %s --limit 20 over %d records: %d ms (goal <= 50)\n", q, n, $1}'
done
for _ in $(seq 3); do
	t0=$(ms); CONVO_DB="$db" "$CONVO" search fox --sort rank --limit 20 >/dev/null 2>&1 || true; t1=$(ms)
	echo $(( (t1 - t0) / 1000000 ))
done | median | awk -v n="$N" '{printf "search fox --sort rank over %d records (the newest 10,000 ranked): %d ms\n", n, $1}'
