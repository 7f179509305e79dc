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
  '{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\",\"month\":\"May\"}"}}]}' \
  '{"role":"tool","tool_call_id":"call_1","name":"get_weather","content":"{\"avg_c\":17,\"rain_days\":9}"}' \
  '{"role":"assistant","content":"May in Paris: about 17°C, some rain. Pack a jacket."}' \
  '{"role":"user","content":"Thanks! Any museum tips?"}' >"$CONVO_DB.in"
printf '\n$ convo append -c demo -q < tool-turn.jsonl\n'
"$convo" append -c demo -q <"$CONVO_DB.in"
run show -c demo
run list
if has summarize; then run summarize -c demo --keep-last 1; run show -c demo; fi
if has render; then run render -c demo --provider anthropic; fi
if has export; then run export -c demo --incremental --exclude-last --format dynamodb; fi
rm -f "$CONVO_DB.in"
