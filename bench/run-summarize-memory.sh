#!/usr/bin/env bash
# summarize (the default extractive summarizer) of one conversation of
# 250,000 and of 1,450,000 records: wall and CPU time and peak RSS (goal
# <= 256 MB each). Usage: bash bench/run-summarize-memory.sh bin/convo
# (bench/run.sh calls it with CONVO and OUT set). BENCH_SUMMARIZE_SIZES
# overrides the sizes, e.g. "250000".
set -euo pipefail
convo=${CONVO:-$(realpath "${1:?usage: run-summarize-memory.sh CONVO}")}
out=${OUT:-$(dirname "$0")/out}
mkdir -p "$out"
out=$(realpath "$out")
go build -o "$out/gen" ./bench/gen
for n in ${BENCH_SUMMARIZE_SIZES:-250000 1450000}; do
	db="$out/summarize-$n.db"
	if [ ! -s "$db.orig" ]; then
		rm -f "$db.orig"*
		"$out/gen" -n "$n" | "$convo" --db "$db.orig" append -q -c B
	fi
	rm -f "$db" "$db-wal" "$db-shm"
	cp "$db.orig" "$db" # summarize writes: each run starts from the same store
	/usr/bin/time -f '%e %U %S %M' "$convo" --db "$db" summarize -q -c B 2>"$out/summarize-$n.time" >/dev/null
	tail -1 "$out/summarize-$n.time" | awk -v n="$n" '{
		printf "summarize %d records: %.2f s (CPU %.2f s), peak RSS %.0f MB (goal <= 256)\n", n, $1, $2+$3, $4/1024 }'
done
