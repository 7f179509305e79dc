#!/usr/bin/env bash
# summarize --all -j 16 over 1,000 conversations against a fake
# OpenAI-compatible provider answering in 50 ms; prints wall / ideal
# (ideal = 1000 / 16 x 50 ms). Called by bench/run.sh with CONVO and OUT set.
set -euo pipefail
convo=${CONVO:?} out=${OUT:?}
go build -o "$out/fakellm" ./bench/fakellm
go build -o "$out/seed" ./bench/seed
rm -f "$out/many.db"*
"$out/seed" -db "$out/many.db" -n 1000 -turns 20
"$out/fakellm" -delay 50ms -lifetime 5m >"$out/fakellm.url" &
fake=$!
trap 'kill $fake 2>/dev/null || true' EXIT
for _ in $(seq 50); do [ -s "$out/fakellm.url" ] && break; sleep 0.1; done
url=$(head -1 "$out/fakellm.url")
t0=$(date +%s%N)
CONVO_DB="$out/many.db" OPENAI_BASE_URL="$url" "$convo" summarize --all -j 16 --keep-last 2 \
	--summarizer openai --model fake -q
t1=$(date +%s%N)
awk -v t="$(( (t1 - t0) / 1000000 ))" 'BEGIN {ideal = 1000 / 16 * 50; printf "summarize --all -j 16, 1000 conversations, provider at 50 ms: %.2f s, ideal %.2f s, ratio %.2f (goal <= 1.1)\n", t/1000, ideal/1000, t/ideal}'
