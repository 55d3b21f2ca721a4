#!/usr/bin/env bash
# Builds the YDF reference models + predictions for
# //tests/ops/tfdf:ydf_golden_test: trains small models with the ydf-training
# npm package (Yggdrasil Decision Forests compiled to WebAssembly; exact
# versions and integrity pinned in tools/tfdf/package-lock.json, installed
# with `npm ci`) and records YDF's own predictions.
#
#   bash tools/tfdf/make_ydf_goldens.sh     # -> $GRAPHRT_CACHE/tfdf-ydf/goldens
#
# Cache: ${GRAPHRT_CACHE:-$HOME/.cache/graphrt}/tfdf-ydf (node_modules under
# node/, goldens under goldens/). The goldens are remade only when the
# generator or the lock file changes (content key in goldens/.key). The test
# skips with a message when the goldens are absent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cache="${GRAPHRT_CACHE:-${HOME}/.cache/graphrt}/tfdf-ydf"
key="$(cat "$here/make_ydf_goldens.js" "$here/package-lock.json" | sha256sum | cut -c1-32)"
if [[ -f "$cache/goldens/.key" && "$(cat "$cache/goldens/.key")" == "$key" ]]; then
  echo "YDF goldens: $cache/goldens up to date" >&2
  exit 0
fi
lock_sha="$(sha256sum "$here/package-lock.json" | cut -d' ' -f1)"
if [[ ! -d "$cache/node/node_modules/ydf-training" ||
      "$(cat "$cache/node/.lock-sha256" 2>/dev/null)" != "$lock_sha" ]]; then
  rm -rf "$cache/node"
  mkdir -p "$cache/node"
  cp "$here/package.json" "$here/package-lock.json" "$cache/node/"
  (cd "$cache/node" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$lock_sha" >"$cache/node/.lock-sha256"
fi
rm -rf "$cache/goldens.tmp"
NODE_PATH="$cache/node/node_modules" \
  node "$here/make_ydf_goldens.js" "$cache/goldens.tmp" > "$cache/train.log" 2>&1 ||
  { tail -20 "$cache/train.log" >&2; exit 1; }
echo "$key" >"$cache/goldens.tmp/.key"
rm -rf "$cache/goldens"
mv "$cache/goldens.tmp" "$cache/goldens"
echo "YDF goldens: $cache/goldens" >&2
