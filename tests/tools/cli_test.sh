#!/usr/bin/env bash
# End-to-end checks of the `graphrt` CLI: the commands work on the bundled
# default model, and bad models / bad inputs give exit status 1 with one
# clear line on stderr (never a signal).
set -uo pipefail

GRAPHRT="$1"
MODEL="$2"          # models/text_classifier/model.json
SAMPLE="$3"         # its sample_input.json
TMP="${TEST_TMPDIR:-$(mktemp -d)}"
failures=0
passed=0

pass() { passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect_error NAME PATTERN CMD...: exit 1, stderr one line matching PATTERN.
expect_error() {
  local name="$1" pattern="$2"
  shift 2
  "$@" >"$TMP/out" 2>"$TMP/err"
  local rc=$?
  if [ "$rc" -ne 1 ]; then
    fail "$name: exit $rc (want 1); stderr: $(cat "$TMP/err")"
  elif ! grep -q "$pattern" "$TMP/err"; then
    fail "$name: stderr lacks '$pattern': $(cat "$TMP/err")"
  elif [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
    fail "$name: stderr is not one line: $(cat "$TMP/err")"
  else
    pass
  fi
}

expect_ok() {
  local name="$1"
  shift
  if "$@" >"$TMP/out" 2>"$TMP/err"; then pass; else
    fail "$name: exit $?; stderr: $(cat "$TMP/err")"
  fi
}

# --- the default model -------------------------------------------------------
expect_ok "run" "$GRAPHRT" run "$MODEL" --inputs "$SAMPLE"
expect_ok "run --output" "$GRAPHRT" run "$MODEL" --inputs "$SAMPLE" --output "$TMP/o.json"
grep -q '"outputs"' "$TMP/o.json" && pass || fail "run --output wrote no outputs"
expect_ok "run --expect self" "$GRAPHRT" run "$MODEL" --inputs "$SAMPLE" --expect "$TMP/o.json" --threads 1
expect_ok "run default inputs" "$GRAPHRT" run "$MODEL"
expect_ok "run --ieee-denormals" "$GRAPHRT" run "$MODEL" --inputs "$SAMPLE" \
  --expect "$TMP/o.json" --ieee-denormals
expect_ok "info" "$GRAPHRT" info "$MODEL"
grep -q '^graph passes at load:' "$TMP/out" && pass || fail "info lacks the graph passes"
expect_ok "info --json" "$GRAPHRT" info "$MODEL" --json
grep -q '"resources"' "$TMP/out" && pass || fail "info --json lacks resources"
grep -q '"graph_passes"' "$TMP/out" && pass || fail "info --json lacks graph_passes"
expect_ok "bench" "$GRAPHRT" bench "$MODEL" --inputs "$SAMPLE" --iters 3 --warmup 1
last="$(tail -n 1 "$TMP/out")"
for key in init_ms load_ms first_ms median_ms p10_ms p90_ms peak_rss_mb base_rss_mb \
    run_peak_rss_mb rss_anon_mb base_rss_anon_mb model_files_rss_mb code_pages_mb; do
  echo "$last" | grep -q "\"$key\"" && pass || fail "bench JSON lacks $key: $last"
done
# The Runs' own peak is at most the process's (VmHWM and getrusage's
# ru_maxrss are sampled apart: within 1 MB).
run_peak="$(echo "$last" | sed -n 's/.*"run_peak_rss_mb":\([0-9.]*\).*/\1/p')"
peak="$(echo "$last" | sed -n 's/.*"peak_rss_mb":\([0-9.]*\).*/\1/p')"
awk -v r="$run_peak" -v p="$peak" 'BEGIN { exit !(r > 0 && r <= p + 1) }' \
  && pass || fail "run_peak_rss_mb not in (0, peak_rss_mb + 1]: $last"
expect_ok "bench --loads" "$GRAPHRT" bench "$MODEL" --inputs "$SAMPLE" --iters 1 --loads 3
grep -q '"loads":3' "$TMP/out" && pass || fail "bench --loads 3: $(cat "$TMP/out")"
expect_error "bench --loads 0" "loads" "$GRAPHRT" bench "$MODEL" --loads 0
expect_ok "bench --profile" "$GRAPHRT" bench "$MODEL" --inputs "$SAMPLE" --iters 2 \
  --profile --profile-nodes 3 --peak-gflops 100
grep -q '^profile: 2 Runs' "$TMP/err" && pass || fail "bench --profile: no table: $(cat "$TMP/err")"
grep -q 'LookupTableFindV2' "$TMP/err" && pass || fail "bench --profile lacks the lookup op"
[ "$(wc -l <"$TMP/out")" -eq 1 ] && grep -q '"median_ms"' "$TMP/out" && pass ||
  fail "bench --profile: stdout is not the one JSON line: $(cat "$TMP/out")"

# --- bad models ---------------------------------------------------------------
mk() {  # mk DIR JSON: a model folder with model.json
  mkdir -p "$1"
  printf '%s' "$2" >"$1/model.json"
}

# --profile's node table keeps the tail of a long node name (converted
# graphs share long scope prefixes).
mk "$TMP/longname" '{"modelTopology":{"node":[{"name":"x","op":"Placeholder","attr":{"dtype":{"type":"DT_FLOAT"},"shape":{"shape":{"dim":[{"size":"2"}]}}}},{"name":"w","op":"Const","attr":{"dtype":{"type":"DT_FLOAT"}}},{"name":"StatefulPartitionedCall/functional_1/block_one/the_add_at_the_end","op":"AddV2","input":["x","w"],"attr":{"T":{"type":"DT_FLOAT"}}}]},"weightsManifest":[{"paths":["w.bin"],"weights":[{"name":"w","shape":[2],"dtype":"float32"}]}]}'
head -c 8 /dev/zero >"$TMP/longname/w.bin"
expect_ok "bench --profile long names" "$GRAPHRT" bench "$TMP/longname" --iters 1 \
  --profile --profile-nodes 1
grep -q '^\.\.ctional_1/block_one/the_add_at_the_end AddV2' "$TMP/err" && pass ||
  fail "bench --profile: long node name not shown by its tail: $(cat "$TMP/err")"
TOPO='"modelTopology":{"node":[{"name":"x","op":"Placeholder","attr":{"dtype":{"type":"DT_FLOAT"}}},{"name":"w","op":"Const","attr":{"dtype":{"type":"DT_FLOAT"}}},{"name":"y","op":"AddV2","input":["x","w"],"attr":{"T":{"type":"DT_FLOAT"}}}]}'
W='"weights":[{"name":"w","shape":[2],"dtype":"float32"}]'

mk "$TMP/traversal" "{$TOPO,\"weightsManifest\":[{\"paths\":[\"../secret.bin\"],$W}]}"
head -c 8 /dev/zero >"$TMP/secret.bin"
expect_error "path traversal" "secret.bin" "$GRAPHRT" run "$TMP/traversal"

mk "$TMP/absolute" "{$TOPO,\"weightsManifest\":[{\"paths\":[\"$TMP/secret.bin\"],$W}]}"
expect_error "absolute path" "secret.bin" "$GRAPHRT" run "$TMP/absolute"

mk "$TMP/truncated" "{$TOPO,\"weightsManifest\":[{\"paths\":[\"w.bin\"],$W}]}"
head -c 5 /dev/zero >"$TMP/truncated/w.bin"
expect_error "truncated shard" "'w'" "$GRAPHRT" run "$TMP/truncated"

mk "$TMP/oversized" "{$TOPO,\"weightsManifest\":[{\"paths\":[\"w.bin\"],$W}]}"
head -c 12 /dev/zero >"$TMP/oversized/w.bin"
expect_error "oversized shard" "w.bin\|extra\|4 " "$GRAPHRT" run "$TMP/oversized"

mk "$TMP/malformed" '{"modelTopology": {"node": [ '
expect_error "malformed JSON" "model.json" "$GRAPHRT" run "$TMP/malformed"

expect_error "missing model" "nope" "$GRAPHRT" run "$TMP/nope"

mk "$TMP/unknown_op" '{"modelTopology":{"node":[{"name":"x","op":"Placeholder","attr":{"dtype":{"type":"DT_FLOAT"}}},{"name":"y","op":"TotallyUnknownOp","input":["x"]}]},"weightsManifest":[]}'
expect_error "unknown op" "TotallyUnknownOp" "$GRAPHRT" run "$TMP/unknown_op"

# --- bad inputs ---------------------------------------------------------------
printf '%s' '{"inputs":[{"name":"tokens","dtype":"float32","shape":[1,8],"data_b64":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}]}' >"$TMP/wrong_dtype.json"
expect_error "wrong input dtype" "tokens" "$GRAPHRT" run "$MODEL" --inputs "$TMP/wrong_dtype.json"

printf '%s' '{"inputs":[]}' >"$TMP/no_inputs.json"
expect_error "missing input" "missing input" "$GRAPHRT" run "$MODEL" --inputs "$TMP/no_inputs.json"

printf '%s' '{"inputs":[{"name":"nope","dtype":"string","shape":[1],"strings":["a"]}]}' >"$TMP/unknown_input.json"
expect_error "unknown input" "nope" "$GRAPHRT" run "$MODEL" --inputs "$TMP/unknown_input.json"

printf '%s' '{"inputs":[{"name":"tokens","dtype":"string","shape":[3],"strings":["a","b","c"]}]}' >"$TMP/bad_shape.json"
expect_error "wrong input shape" "shape" "$GRAPHRT" run "$MODEL" --inputs "$TMP/bad_shape.json"

printf '%s' '{"inputs": [' >"$TMP/malformed_inputs.json"
expect_error "malformed inputs" "malformed" "$GRAPHRT" run "$MODEL" --inputs "$TMP/malformed_inputs.json"

expect_error "bad flag" "unknown flag" "$GRAPHRT" run "$MODEL" --bogus
expect_error "bad threads" "threads" "$GRAPHRT" run "$MODEL" --threads -3

echo "$passed passed, $failures failed"
[ "$failures" -eq 0 ]
