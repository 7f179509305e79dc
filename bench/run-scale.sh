#!/usr/bin/env bash
# Issue 15's size goals, against get of the same N-record conversation X of
# bench/run.sh: show, fork, rewind, copy and export of N records (time and
# CPU within 2x get, peak RSS <= 64 MB), then list over two conversations of
# LIST_N records (<= 0.5 s, the first as every later one: each append keeps
# the figures in its transaction; bench/run-list.sh has 10,000 conversations). Called by bench/run.sh with
# CONVO, OUT, N. Runs alternate with get so that load from other processes
# falls on both; ratios use medians of wall and CPU time.
set -euo pipefail
db="$OUT/bulk.db"
RUNS=${BENCH_SCALE_RUNS:-3}
LIST_N=${BENCH_LIST_LINES:-250000}

# run prints "wall_ms cpu_ms peak_kb" of one run, stdout discarded.
run() {
	/usr/bin/time -f '%e %U %S %M' "$@" 2>&1 >/dev/null | tail -1 |
		awk '{printf "%d %d %d\n", $1*1000, ($2+$3)*1000, $4}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
first_id() { sqlite3 "$1" "SELECT id FROM records WHERE conversation = '$2' ORDER BY pos LIMIT 1"; }

# Each command gets a fresh target first (outside the timing), then runs
# beside a get.
prepare() {
	case "$1" in
	fork) "$CONVO" --db "$db" clear -c Y --yes >/dev/null 2>&1 || true ;;
	rewind) "$CONVO" --db "$db" fork -c X --to Y --force >/dev/null 2>&1 ;;
	copy) rm -f "$OUT/copy.db"* ;;
	esac
}
for name in show export fork rewind copy; do
	case "$name" in
	show) cmd=("$CONVO" --db "$db" show -c X) ;;
	export) cmd=("$CONVO" --db "$db" export -c X) ;;
	fork) cmd=("$CONVO" --db "$db" fork -c X --to Y) ;;
	copy) cmd=("$CONVO" --db "$db" copy -c X --to "$OUT/copy.db") ;;
	esac
	: >"$OUT/get.runs"
	: >"$OUT/cmd.runs"
	for _ in $(seq "$RUNS"); do
		prepare "$name"
		[ "$name" = rewind ] && cmd=("$CONVO" --db "$db" rewind -c Y --to "$(first_id "$db" Y)" --yes)
		run "$CONVO" --db "$db" get -c X >>"$OUT/get.runs"
		run "${cmd[@]}" >>"$OUT/cmd.runs"
	done
	gw=$(cut -d' ' -f1 "$OUT/get.runs" | median); gc=$(cut -d' ' -f2 "$OUT/get.runs" | median)
	cw=$(cut -d' ' -f1 "$OUT/cmd.runs" | median); cc=$(cut -d' ' -f2 "$OUT/cmd.runs" | median)
	rss=$(cut -d' ' -f3 "$OUT/cmd.runs" | sort -n | tail -1)
	awk -v f="$name" -v gw="$gw" -v gc="$gc" -v cw="$cw" -v cc="$cc" -v r="$rss" -v n="$N" 'BEGIN {
		printf "%s of %d records: %.2f s (CPU %.2f s), get %.2f s (CPU %.2f s): %.2fx its time, %.2fx its CPU (goal <= 2), peak RSS %.1f MB (goal <= 64)\n",
			f, n, cw/1000, cc/1000, gw/1000, gc/1000, cw/gw, cc/gc, r/1024 }'
done
"$CONVO" --db "$db" clear -c Y --yes >/dev/null 2>&1 || true
rm -f "$OUT/get.runs" "$OUT/cmd.runs" "$OUT/copy.db"*

# list over two conversations of LIST_N records.
ldb="$OUT/list.db"
rm -f "$ldb"*
"$OUT/gen" -n "$LIST_N" >"$OUT/list.jsonl"
for c in A B; do "$CONVO" --db "$ldb" append -q -c "$c" <"$OUT/list.jsonl"; done
rm -f "$OUT/list.jsonl"
first=$(run "$CONVO" --db "$ldb" list | cut -d' ' -f1)
kept=$(for _ in $(seq "$RUNS"); do run "$CONVO" --db "$ldb" list; done | cut -d' ' -f1 | median)
"$CONVO" --db "$ldb" append -q -c A --role user "one more"
"$CONVO" --db "$ldb" append -q -c A --role user "merged into it"
after=$(run "$CONVO" --db "$ldb" list | cut -d' ' -f1)
awk -v f="$first" -v k="$kept" -v a="$after" -v n="$LIST_N" 'BEGIN {
	printf "list of 2 conversations of %d records: %.2f s kept figures, %.2f s after an append and a merge (goal <= 0.5); the first list after the appends %.2f s (goal <= 0.5: the appends kept the figures)\n",
		n, k/1000, a/1000, f/1000 }'
rm -f "$ldb"*
