#!/usr/bin/env bash
# PostgreSQL comparisons (issue 13), when CONVO_TEST_POSTGRES names a server
# (.ci/postgres.sh starts one); each runs in a schema of its own, dropped
# after. Called by bench/run.sh with CONVO, OUT and N set.
#  1. bulk append of N lines vs plain pgx CopyFrom of the same rows;
#  2. summarize --all over 2,000 conversations, provider at 50 ms, run by
#     1, 2 and 4 processes at once (-j 4 each) sharing the store.
# The writers' curve (records/s of 1-8 concurrent writers, PostgreSQL vs
# SQLite) is BenchmarkConcurrentAppend in pkg/store/sqlite and postgres.
set -euo pipefail
convo=${CONVO:?} out=${OUT:?} N=${N:?}
pg=${CONVO_TEST_POSTGRES:-}
if [ -z "$pg" ]; then
	echo "postgres: skipped (CONVO_TEST_POSTGRES is not set)"
	exit 0
fi
go build -o "$out/pgbaseline" ./bench/pgbaseline
go build -o "$out/seed" ./bench/seed
go build -o "$out/fakellm" ./bench/fakellm
sep='?'; case "$pg" in *\?*) sep='&';; esac
schema() { # schema NAME: a fresh schema, and its URL on stdout
	psql "$pg" -qc "DROP SCHEMA IF EXISTS $1 CASCADE; CREATE SCHEMA $1" >/dev/null 2>&1
	echo "$pg${sep}search_path=$1"
}
ms() { date +%s%N; }

# 1. Bulk append.
[ -s "$out/lines.jsonl" ] || go run ./bench/gen -n "$N" >"$out/lines.jsonl"
[ -s "$out/canonical.jsonl" ] || "$convo" append --role user x <"$out/lines.jsonl" 2>/dev/null | head -n "$N" >"$out/canonical.jsonl" || true
db=$(schema bench_bulk)
t0=$(ms); CONVO_DB="$db" "$convo" append -q -c X <"$out/lines.jsonl"; t1=$(ms)
cb=$(( (t1 - t0) / 1000000 ))
db=$(schema bench_copy)
t0=$(ms); "$out/pgbaseline" -db "$db" <"$out/canonical.jsonl" 2>/dev/null; t1=$(ms)
bb=$(( (t1 - t0) / 1000000 ))
awk -v c="$cb" -v b="$bb" -v n="$N" 'BEGIN {printf "postgres bulk append %d lines: convo %.0f rows/s, pgx CopyFrom %.0f rows/s, ratio %.2f (goal >= 0.7)\n", n, n/(c/1000), n/(b/1000), b/c}'

# 2. summarize --all shared by 1, 2 and 4 processes.
"$out/fakellm" -delay 50ms -lifetime 10m >"$out/fakellm.url" &
fake=$!
trap 'kill $fake 2>/dev/null || true; psql "$pg" -qc "DROP SCHEMA IF EXISTS bench_bulk, bench_copy, bench_sum CASCADE" >/dev/null 2>&1 || true' EXIT
for _ in $(seq 50); do [ -s "$out/fakellm.url" ] && break; sleep 0.1; done
url=$(head -1 "$out/fakellm.url")
declare -A took
for procs in 1 2 4; do
	db=$(schema bench_sum)
	"$out/seed" -db "$db" -n 2000 -turns 12
	t0=$(ms)
	for _ in $(seq "$procs"); do
		CONVO_DB="$db" OPENAI_BASE_URL="$url" "$convo" summarize --all -j 4 --keep-last 2 \
			--summarizer openai --model fake -q &
	done
	wait $(jobs -p | grep -v "^$fake$")
	t1=$(ms)
	took[$procs]=$(( (t1 - t0) / 1000000 ))
	n=$(psql "$pg" -Atc "SELECT count(*) FROM bench_sum.records WHERE role = 'summary'")
	echo "postgres summarize --all, 2000 conversations, $procs process(es) x -j 4: $(awk -v t="${took[$procs]}" 'BEGIN {printf "%.2f s", t/1000}'), $n summaries"
done
awk -v a="${took[1]}" -v d="${took[4]}" 'BEGIN {printf "postgres summarize --all: 4 processes %.2fx one (goal >= 3.5)\n", a/d}'

# 3. list over two conversations of LIST_N records (issue 15): kept figures,
# after an append and a merge, and the first list after the import.
LIST_N=${BENCH_LIST_LINES:-250000}
db=$(schema bench_list)
go run ./bench/gen -n "$LIST_N" >"$out/list.jsonl"
for c in A B; do "$convo" --db "$db" append -q -c "$c" <"$out/list.jsonl"; done
rm -f "$out/list.jsonl"
t0=$(ms); "$convo" --db "$db" list >/dev/null; t1=$(ms); first=$(( (t1 - t0) / 1000000 ))
t0=$(ms); "$convo" --db "$db" list >/dev/null; t1=$(ms); kept=$(( (t1 - t0) / 1000000 ))
"$convo" --db "$db" append -q -c A --role user "one more"
"$convo" --db "$db" append -q -c A --role user "merged into it"
t0=$(ms); "$convo" --db "$db" list >/dev/null; t1=$(ms); after=$(( (t1 - t0) / 1000000 ))
psql "$pg" -qc "DROP SCHEMA IF EXISTS bench_list CASCADE" >/dev/null 2>&1 || true
awk -v f="$first" -v k="$kept" -v a="$after" -v n="$LIST_N" 'BEGIN {
	printf "postgres list of 2 conversations of %d records: %.2f s kept figures, %.2f s after an append and a merge (goal <= 0.5); the first list after the import %.2f s\n",
		n, k/1000, a/1000, f/1000 }'
