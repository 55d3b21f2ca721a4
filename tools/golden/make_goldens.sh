#!/usr/bin/env bash
# Makes (or reuses) the TF.js goldens of every bundled model: for each
# models/<name>/ with a model.json and a sample_input.json, runs golden.js
# (TF.js 4.22, cpu backend) on the sample input and writes
# $GRAPHRT_CACHE/goldens/<name>.json. A golden is remade only when the model,
# its input, the generator or the pinned packages change (content hash).
set -euo pipefail
cd "$(dirname "$0")/../.."
cache="${GRAPHRT_CACHE:-$HOME/.cache/graphrt}"
out_dir="$cache/goldens"
mkdir -p "$out_dir"

bash tools/golden/setup.sh >/dev/null

for dir in models/*/; do
  name="$(basename "$dir")"
  [ -f "$dir/model.json" ] && [ -f "$dir/sample_input.json" ] || continue
  key="$(cat "$dir"/model.json "$dir"/*.bin "$dir"/sample_input.json \
             tools/golden/golden.js tools/golden/package-lock.json | sha256sum | cut -c1-32)"
  out="$out_dir/$name.json"
  if [ -f "$out" ] && [ "$(cat "$out.key" 2>/dev/null)" = "$key" ]; then
    echo "goldens: $name up to date" >&2
    continue
  fi
  echo "goldens: making $out" >&2
  rm -f "$out" "$out.key"
  node tools/golden/golden.js "$dir/model.json" "$out.tmp" \
    --inputs "$dir/sample_input.json" >&2
  mv "$out.tmp" "$out"
  echo "$key" >"$out.key"
done
