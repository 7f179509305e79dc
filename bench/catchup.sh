#!/usr/bin/env bash
# Issue 40's goals on SQLite, one pass: bulk append of N lines vs the plain
# prepared-insert loop (bench/baseline), one append into a 10,000-record
# conversation vs bench/minimal, fork and copy of the N records within one
# store vs the sqlite3 CLI's INSERT ... SELECT of the same rows, the first
# search after the bulk append (the index catching up) and later searches,
# and summarize of 250,000 records (time, peak RSS). Not called by run.sh
# (its parts are there; named so that run.sh does not run it): run it
# before and after a change, back to back:
#   BENCH_LINES=1000000 bash bench/catchup.sh bin/convo
set -euo pipefail
convo=$(realpath "$1")
out=$(dirname "$0")/out
mkdir -p "$out"
out=$(realpath "$out")
N=${BENCH_LINES:-1000000}
RUNS=${BENCH_RUNS:-7}
go build -o "$out/gen" ./bench/gen
go build -o "$out/baseline" ./bench/baseline
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# cpu CMD...: runs CMD (stdin kept, stdout discarded) and prints "wall_ms
# cpu_ms": on a shared machine the CPU time is the steadier figure. The
# dirty pages the run before left are written out first (sync), not
# during CMD.
cpu() {
	sync
	/usr/bin/time -f '%e %U %S' -o "$out/idx.time" "$@" >/dev/null
	awk '{printf "%d %d\n", $1*1000, ($2+$3)*1000}' "$out/idx.time"
}

CONVO="$convo" OUT="$out" RUNS="${BENCH_STARTUP_RUNS:-21}" bash "$(dirname "$0")/run-startup.sh"

[ -s "$out/lines-$N.jsonl" ] || "$out/gen" -n "$N" >"$out/lines-$N.jsonl"
[ -s "$out/canonical-$N.jsonl" ] || "$out/gen" -n "$N" | "$convo" append --role user x 2>/dev/null | head -n "$N" >"$out/canonical-$N.jsonl" || true
db="$out/idx.db"
rm -f "$db"* "$out/idxbase.db"*
read -r cb cbc < <(CONVO_DB="$db" cpu "$convo" append -q -c X <"$out/lines-$N.jsonl")
"$out/baseline" -db "$out/idxbase.db" </dev/null 2>/dev/null
read -r bb bbc < <(cpu "$out/baseline" -db "$out/idxbase.db" <"$out/canonical-$N.jsonl")
awk -v c="$cb" -v b="$bb" -v cc="$cbc" -v bc="$bbc" -v n="$N" 'BEGIN {printf "bulk append %d lines: convo %.2f s (CPU %.2f s), Go loop %.2f s (CPU %.2f s), rate ratio %.2f, CPU ratio %.2f (goal >= 1.2)\n", n, c/1000, cc/1000, b/1000, bc/1000, b/c, bc/cc}'

read -r t tc < <(CONVO_DB="$db" cpu "$convo" search fox --limit 20)
awk -v t="$t" -v tc="$tc" -v n="$N" 'BEGIN {printf "first search after the bulk append of %d: %.2f s (CPU %.2f s; %.0f records/s indexed)\n", n, t/1000, tc/1000, n/(t/1000)}'
# Timed from bash without a fork ($EPOCHREALTIME, microseconds): the
# $(date +%s%N) this took before added an exec of date, about 8 ms, to each.
later() {
	for q in fox "$((N / 2))" "\"lazy dog\""; do
		for _ in $(seq "$RUNS"); do
			t0=${EPOCHREALTIME/./}; CONVO_DB="$db" "$convo" search "$q" --limit 20 >/dev/null || true; t1=${EPOCHREALTIME/./}
			echo $((t1 - t0))
		done | median | awk -v q="$q" -v n="$N" -v w="$1" '{printf "later search %s --limit 20 over %d%s: %.1f ms (goal <= 50)\n", q, n, w, $1/1000}'
	done
}
later ""
# convo index (a cron job's) merges the segments the catch-up left.
if "$convo" index --help 2>/dev/null | grep -q 'merges'; then
	read -r t tc < <(CONVO_DB="$db" cpu "$convo" index -q)
	awk -v t="$t" -v tc="$tc" 'BEGIN {printf "convo index after it (the merge): %.2f s (CPU %.2f s)\n", t/1000, tc/1000}'
	later ", after convo index"
fi

# fork and copy within one store, vs sqlite3's INSERT ... SELECT of the rows.
read -r sq sqc < <(cpu sqlite3 "$out/idxbase.db" "INSERT INTO records (conversation, id, pos, sub, role, created, seq, body) SELECT 'base2', id, pos, sub, role, created, seq, body FROM records WHERE conversation = 'base'")
read -r fk fkc < <(CONVO_DB="$db" cpu "$convo" fork -q -c X --to Y)
read -r cp cpc < <(CONVO_DB="$db" cpu "$convo" copy -q -c X --to "$out/idxcopy.db")
rm -f "$out/idxcopy.db"*
awk -v s="$sq" -v f="$fk" -v c="$cp" -v sc="$sqc" -v fc="$fkc" -v cc="$cpc" -v n="$N" 'BEGIN {printf "fork of %d: %.2f s (CPU %.2f s; %.2fx sqlite3 INSERT...SELECT %.2f s, CPU %.2f s; goal <= 1.5); copy to a new store %.2f s (CPU %.2f s; %.2fx)\n", n, f/1000, fc/1000, f/s, s/1000, sc/1000, c/1000, cc/1000, c/s}'
read -r t tc < <(CONVO_DB="$db" cpu "$convo" search fox --limit 20)
awk -v t="$t" -v tc="$tc" -v n="$N" 'BEGIN {printf "search after the fork (%d records to index): %.2f s (CPU %.2f s)\n", n, t/1000, tc/1000}'
read -r t tc < <(CONVO_DB="$db" cpu "$convo" clear -q -c Y --yes)
awk -v t="$t" -v tc="$tc" -v n="$N" 'BEGIN {printf "clear of the %d-record fork: %.2f s (CPU %.2f s)\n", n, t/1000, tc/1000}'
rm -f "$db"* "$out/idxbase.db"*

BENCH_SUMMARIZE_SIZES=250000 CONVO="$convo" OUT="$out" bash "$(dirname "$0")/run-summarize-memory.sh"
