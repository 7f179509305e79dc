#!/usr/bin/env bash
# The demo behind `make demo`: a short conversation through convo's main
# commands, on the embedded defaults (no API key, no network).
set -euo pipefail
convo=$1
export CONVO_DB=$2
run() { printf '\n$ convo %s\n' "$*"; "$convo" "$@"; }
has() { "$convo" "$1" --help >/dev/null 2>&1; }

run append -c demo --role system "You are a terse travel assistant."
run append -c demo --role assistant "Hello! Where to?"
run append -c demo "Hi, there"
run append -c demo "I want to go to Paris in May."
printf '%s\n' \
  '{"role":"assistant","content":"Paris in May is lovely. What is your budget, and any preferences?"}' \
  '{"role":"user","content":"About 900 EUR. Please always book window seats; my loyalty number is AF-20418."}' \
  '{"role":"assistant","content":"Noted: 900 EUR, window seats, loyalty number AF-20418. Flights from Berlin start at 120 EUR."}' \
  '{"role":"user","content":"Book the 9 May 2026 flight, the one at 08:40."}' \
  '{"role":"assistant","content":"Booked: Berlin to Paris on 9 May 2026 at 08:40, seat 14A, booking ref QX7P2L."}' >"$CONVO_DB.plan"
printf '\n$ convo append -c demo -q < planning.jsonl\n'
"$convo" append -c demo -q <"$CONVO_DB.plan"
run append -c demo "What will the weather be?"
printf '%s\n' \
  '{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\",\"month\":\"May\"}"}}]}' \
  '{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"{\"avg_c\":17,\"rain_days\":9}"}' \
  '{"role":"assistant","content":"May in Paris: about 17°C, some rain. Pack a jacket."}' \
  '{"role":"user","content":"Thanks! Any museum tips?"}' >"$CONVO_DB.in"
printf '\n$ convo append -c demo -q < tool-turn.jsonl\n'
"$convo" append -c demo -q <"$CONVO_DB.in"
run show -c demo
run list
if has summarize; then run summarize -c demo --keep-last 1 -q; run show -c demo; fi
if has render; then run render -c demo --provider anthropic; fi
if has export; then run export -c demo --incremental --exclude-last --format dynamodb; fi
rm -f "$CONVO_DB.in" "$CONVO_DB.plan"
