#!/usr/bin/env bash
# One `convo append` of a message into a 10,000-record conversation, against
# bench/minimal (a Go program linking modernc.org/sqlite that does the same
# insert) and the sqlite3 CLI. Goal: convo <= 1.3x minimal's median. The
# programs run alternately, so a burst of load on this shared machine hits
# both; each run is one process, timed from bash without a fork
# ($EPOCHREALTIME). convo appends user messages and minimal assistant ones,
# so that every convo append is an insert (not a merge into the last record).
# Usage (run.sh calls it): CONVO=bin/convo OUT=bench/out RUNS=21 bash bench/run-startup.sh
set -euo pipefail
convo=$(realpath "${CONVO:?}")
out=${OUT:-$(dirname "$0")/out}
mkdir -p "$out"
out=$(realpath "$out")
runs=${RUNS:-21}
go build -o "$out/gen" ./bench/gen
go build -o "$out/minimal" ./bench/minimal
db="$out/one.db"
rm -f "$db" "$db"-wal "$db"-shm
"$out/gen" -n 10000 | CONVO_DB="$db" "$convo" append -q -c X

us() { local t=${EPOCHREALTIME/./}; echo "${t#0}"; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
: >"$out/convo.times"; : >"$out/minimal.times"; : >"$out/sqlite.times"
for i in $(seq "$runs"); do
	t0=$(us); CONVO_DB="$db" "$convo" append -q -c X --role user "hi $i"; t1=$(us)
	echo $((t1 - t0)) >>"$out/convo.times"
	t0=$(us); "$out/minimal" -db "$db" -c X -role assistant "hi $i"; t1=$(us)
	echo $((t1 - t0)) >>"$out/minimal.times"
	t0=$(us); sqlite3 "$db" "INSERT INTO records (conversation, id, pos, sub, role, created, seq, body) VALUES ('Y', 'id$i', $i, 0, 'user', 0, $i, '{}')"; t1=$(us)
	echo $((t1 - t0)) >>"$out/sqlite.times"
done
c=$(median <"$out/convo.times"); m=$(median <"$out/minimal.times"); s=$(median <"$out/sqlite.times")
rm -f "$out/convo.times" "$out/minimal.times" "$out/sqlite.times"
awk -v c="$c" -v m="$m" -v s="$s" 'BEGIN {
	printf "single append: convo %.2f ms, minimal modernc %.2f ms, ratio %.2f (goal <= 1.3); sqlite3 CLI %.2f ms\n", c/1000, m/1000, c/m, s/1000 }'
