#!/usr/bin/env bash
# convo import against the bulk append of the same records, and a nightly
# re-import of 1,000 unchanged session files with and without remembered
# deletions (issue 38's goals: import >= 0.7 x append; the deletions keep
# the re-import under 50 ms). Not a test: it prints figures.
#
#   bench/run-import.sh CONVO [OUT]
#
# CONVO is the binary (go build -o /tmp/convo .); OUT a scratch directory
# (default: a temporary one, removed afterwards). Runs alternate between
# the commands compared, so that load from other processes falls on both;
# the figures are medians of BENCH_IMPORT_RUNS runs (default 5; three times
# as many of the re-imports, which take milliseconds).
set -euo pipefail
convo=$(realpath "${1:?usage: bench/run-import.sh CONVO [OUT]}")
if [ -n "${2:-}" ]; then
	OUT=$2
	mkdir -p "$OUT"
else
	OUT=$(mktemp -d)
	trap 'rm -rf "$OUT"' EXIT
fi
RUNS=${BENCH_IMPORT_RUNS:-5}
SIZE=${BENCH_IMPORT_BYTES:-16777216}
cd "$(dirname "$0")/.."
go build -o "$OUT/gen" ./bench/gen

# run prints "wall_ms cpu_ms" of one run of its arguments, output discarded.
run() {
	/usr/bin/time -f '%e %U %S' "$@" 2>&1 >/dev/null | tail -1 |
		awk '{printf "%d %d\n", $1*1000, ($2+$3)*1000}'
}
# wall prints the wall ms of one run of its arguments, output discarded.
wall() {
	local t0 t1
	t0=$(date +%s%N)
	"$@" >/dev/null 2>&1
	t1=$(date +%s%N)
	echo $(((t1 - t0) / 1000000))
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { cut -d' ' -f"$1" "$2" | median; }

# 1. One Claude Code session of SIZE bytes: import into an empty store,
# against the bulk append of the records that import stored (get's
# output, ids and metadata as stored) into another.
mkdir -p "$OUT/p"
"$OUT/gen" -claude-code "$SIZE" -session bench >"$OUT/p/bench.jsonl"
"$convo" --db "$OUT/ref.db" import -q --from claude-code "$OUT/p/bench.jsonl"
"$convo" --db "$OUT/ref.db" get -c bench >"$OUT/records.jsonl"
n=$(wc -l <"$OUT/records.jsonl")
: >"$OUT/import.runs"
: >"$OUT/append.runs"
for _ in $(seq "$RUNS"); do
	rm -f "$OUT"/imp.db* "$OUT"/app.db*
	run "$convo" --db "$OUT/imp.db" import -q --from claude-code "$OUT/p/bench.jsonl" >>"$OUT/import.runs"
	run sh -c "exec '$convo' --db '$OUT/app.db' append -q -c bench <'$OUT/records.jsonl'" >>"$OUT/append.runs"
done
iw=$(col 1 "$OUT/import.runs"); ic=$(col 2 "$OUT/import.runs")
aw=$(col 1 "$OUT/append.runs"); ac=$(col 2 "$OUT/append.runs")
awk -v s="$SIZE" -v n="$n" -v iw="$iw" -v ic="$ic" -v aw="$aw" -v ac="$ac" 'BEGIN {
	printf "import of a %.0f MiB Claude Code session (%d records stored): %.2f s (CPU %.2f s), %.1f MB/s; bulk append of the same records %.2f s (CPU %.2f s); import/append rate %.2f wall, %.2f CPU (goal >= 0.7)\n",
		s/1048576, n, iw/1000, ic/1000, s/1e6/(iw/1000), aw/1000, ac/1000, aw/iw, ac/ic }'

# 2. 1,000 unchanged session files imported again, against an import of
# an empty directory (the process, the store's opening): in a store
# without deletions, and in one where convo deleted parts of 200 sessions
# (rewind) and 100 whole (prune --older-than), each remembered.
"$OUT/gen" -claude-code 2000 -sessions 1000 -out "$OUT/many"
mkdir -p "$OUT/empty"
rm -f "$OUT"/plain.db* "$OUT"/del.db*
"$convo" --db "$OUT/plain.db" import -q --from claude-code "$OUT/many"
cp "$OUT/plain.db" "$OUT/del.db"
for i in $(seq 100 299); do
	"$convo" --db "$OUT/del.db" rewind -q -c "s0$i" --to last-user --yes >/dev/null
done
"$convo" --db "$OUT/del.db" prune -q --older-than 2026-03-02 --conversation-glob 's00[0-9][0-9]' >/dev/null
remembered=$(sqlite3 "$OUT/del.db" 'select count(*) from import_deleted' 2>/dev/null || echo '?')
# the pruned sessions' files are read once more (nothing stored: their
# ids are remembered) and get cursors; from then on every file is unchanged
"$convo" --db "$OUT/del.db" import -q --from claude-code "$OUT/many"
: >"$OUT/empty.runs"
: >"$OUT/plain.runs"
: >"$OUT/del.runs"
for _ in $(seq $((RUNS * 3))); do
	wall "$convo" --db "$OUT/plain.db" import -q --from claude-code "$OUT/empty" >>"$OUT/empty.runs"
	wall "$convo" --db "$OUT/plain.db" import -q --from claude-code "$OUT/many" >>"$OUT/plain.runs"
	wall "$convo" --db "$OUT/del.db" import -q --from claude-code "$OUT/many" >>"$OUT/del.runs"
done
"$convo" --db "$OUT/del.db" import --from claude-code "$OUT/many" 2>&1 | grep -o '1000 files (1000 unchanged' >/dev/null ||
	echo "warning: not every file was unchanged in the store with deletions" >&2
ew=$(col 1 "$OUT/empty.runs"); pw=$(col 1 "$OUT/plain.runs"); dw=$(col 1 "$OUT/del.runs")
awk -v ew="$ew" -v pw="$pw" -v dw="$dw" -v r="$remembered" 'BEGIN {
	printf "re-import of 1,000 unchanged files: %d ms without deletions, %d ms with %s remembered deleted records (200 sessions rewound, 100 pruned), over an empty directory'"'"'s %d ms: %d ms and %d ms for the files (goal <= 50 ms with the deletions)\n",
		pw, dw, r, ew, pw-ew, dw-ew }'
rm -f "$OUT"/*.runs
