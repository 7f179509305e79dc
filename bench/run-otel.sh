#!/usr/bin/env bash
# export --all --format otel (OTLP/JSON spans) of N records to a file,
# against export --all --format jsonl of the same records to a file: speed
# ratio (goal >= 0.7) and peak RSS (goal <= 64 MB). The store holds N/20
# conversations of 20 records, every other one an answer with the provider,
# model, response id, finish reason and usage ask stores. Runs alternate, so
# load from other processes falls on both; figures are medians.
# Usage: CONVO=bin/convo OUT=bench/out N=1000000 RUNS=3 bash bench/run-otel.sh
set -euo pipefail
convo=$(realpath "${CONVO:?}")
out=${OUT:-$(dirname "$0")/out}
mkdir -p "$out"
out=$(realpath "$out")
n=${N:-1000000}
runs=${RUNS:-3}
db="$out/otel-$n.db"
if [ ! -f "$db" ]; then
	go build -o "$out/seed" ./bench/seed
	"$out/seed" -db "$db" -n $((n / 20)) -turns 20 -answers
fi

# run prints "wall_ms cpu_ms peak_kb" of one export to $out/otel.out.
run() {
	CONVO_DB="$db" /usr/bin/time -f '%e %U %S %M' "$convo" export --all --format "$1" 2>&1 >"$out/otel.out" | tail -1 |
		awk '{printf "%d %d %d\n", $1*1000, ($2+$3)*1000, $4}'
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$out/jsonl.runs"; : >"$out/otel.runs"
for _ in $(seq "$runs"); do
	run jsonl >>"$out/jsonl.runs"
	run otel >>"$out/otel.runs"
done
spans=$(grep -o '"spanId"' "$out/otel.out" | wc -l)
jw=$(cut -d' ' -f1 "$out/jsonl.runs" | median); jc=$(cut -d' ' -f2 "$out/jsonl.runs" | median)
ow=$(cut -d' ' -f1 "$out/otel.runs" | median); oc=$(cut -d' ' -f2 "$out/otel.runs" | median)
rss=$(cut -d' ' -f3 "$out/otel.runs" | sort -n | tail -1)
jrss=$(cut -d' ' -f3 "$out/jsonl.runs" | sort -n | tail -1)
awk -v n="$n" -v s="$spans" -v jw="$jw" -v jc="$jc" -v ow="$ow" -v oc="$oc" -v r="$rss" -v jr="$jrss" 'BEGIN {
	printf "export --format otel of %d records (%d spans) to a file: %.2f s (CPU %.2f s), jsonl %.2f s (CPU %.2f s), speed ratio %.2f wall, %.2f CPU (goal >= 0.7), peak RSS %.1f MB (goal <= 64; jsonl %.1f MB)\n",
		n, s, ow/1000, oc/1000, jw/1000, jc/1000, jw/ow, jc/oc, r/1024, jr/1024 }'
rm -f "$out/jsonl.runs" "$out/otel.runs" "$out/otel.out"
