#!/usr/bin/env bash
# render -c over a 100,000-message stored conversation, against get | jq doing
# the same reshaping to OpenAI messages (goal >= 5x faster) and against get
# alone (goal <= 1.3x its time); peak RSS goal <= 64 MB. Called by run.sh
# with CONVO, OUT (where gen lives) and RUNS; prints one line per goal.
set -euo pipefail
db="$OUT/render.db"
rm -f "$db" "$db"-wal "$db"-shm
"$OUT/gen" -n 100000 | CONVO_DB="$db" "$CONVO" append -q -c R
export CONVO_DB="$db"
jqprog='select(.message.role != "system" and .message.role != "summary") | .message
  | if .role == "tool" then {role, content: (.contents | join("\n\n")), tool_call_id}
    elif .role == "assistant" then {role, content: (if (.contents | length) > 0 then .contents | join("\n\n") else null end)}
      + (if .tool_calls then {tool_calls: [.tool_calls[] | {id, type: "function", function: {name, arguments}}]} else {} end)
    else {role, content: (.contents | join("\n\n"))} end'
# best of RUNS, in ms: the least disturbed run on a shared machine
best() {
	local b=999999999 t0 t1
	for _ in $(seq "${RUNS:-5}"); do
		t0=$(date +%s%N); bash -c "$1" >/dev/null; t1=$(date +%s%N)
		b=$(( (t1 - t0) / 1000000 < b ? (t1 - t0) / 1000000 : b ))
	done
	echo "$b"
}
r=$(best "'$CONVO' render -c R --provider openai")
g=$(best "'$CONVO' get -c R")
j=$(best "'$CONVO' get -c R | jq -c '$jqprog'")
rss=$(/usr/bin/time -f %M "$CONVO" render -c R --provider openai 2>&1 >/dev/null | tail -1)
awk -v r="$r" -v g="$g" -v j="$j" -v m="$rss" 'BEGIN {
	printf "render 100000 messages: %d ms; get | jq %d ms, ratio %.1f (goal >= 5); get %d ms, ratio %.2f (goal <= 1.3); peak RSS %.1f MB (goal <= 64)\n", r, j, j/r, g, r/g, m/1024 }'
