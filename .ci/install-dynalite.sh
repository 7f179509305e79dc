#!/usr/bin/env bash
# Installs dynalite@4 (a DynamoDB-compatible server on Node) for the export
# tests of pkg/dynamo. Idempotent: does nothing when it is already there.
# The tests look in $DYNALITE_DIR, or in the same default as here.
set -euo pipefail

dir="${DYNALITE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/convo/dynalite}"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	echo "install-dynalite: node or npm missing; the DynamoDB tests will be skipped" >&2
	exit 0
fi
if [ -f "$dir/node_modules/dynalite/package.json" ]; then
	exit 0
fi
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"name":"convo-dynalite","private":true}' >package.json
npm install --no-audit --no-fund --loglevel=error dynalite@4 >&2
echo "install-dynalite: installed in $dir" >&2
