#!/usr/bin/env bash
# Builds graphrt's libFuzzer targets (clang-14, ASan + UBSan, own Bazel
# output base) and runs each for SECONDS, printing executions and findings.
#
#   bash fuzz/run_fuzzers.sh SECONDS [TARGET...]
#
# Each target starts from its seeds (fuzz/corpus/<target>/, read-only) and
# grows a scratch corpus in $FUZZ_OUT/<target>/corpus (default
# /tmp/graphrt-fuzz). Crashes, leaks, timeouts and OOMs are written to
# $FUZZ_OUT/<target>/findings/ (a run first moves earlier ones to
# earlier-findings/, so only its own are counted); once fixed, copy an input to
# fuzz/crashes/<target>/ and the //fuzz:<target>_corpus_test replays it.
# Exit status: 0 when no target found anything, 1 otherwise.
# NICE=19 runs the fuzzers at low priority (default 0).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:?usage: run_fuzzers.sh SECONDS [TARGET...]}"
shift
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
  targets=(tfjs_model_fuzzer weights_decoder_fuzzer graph_def_fuzzer
           tensor_json_fuzzer text_classifier_run_fuzzer
           float_model_run_fuzzer tensor_bundle_fuzzer chunked_proto_fuzzer
           saved_model_fuzzer proto_json_fuzzer)
fi
out="${FUZZ_OUT:-/tmp/graphrt-fuzz}"
ob="${FUZZ_OUTPUT_BASE:-$HOME/.cache/bazel_ob_fuzz}"
labels=()
for t in "${targets[@]}"; do labels+=("//fuzz:$t"); done
bazel --output_base="$ob" build --config=fuzz "${labels[@]}"
bin="$(bazel --output_base="$ob" info --config=fuzz bazel-bin 2>/dev/null)"

status=0
printf '%-28s %12s %10s %8s %s\n' target executions exec/s corpus findings
for t in "${targets[@]}"; do
  work="$out/$t"
  mkdir -p "$work/corpus" "$work/findings" "$work/earlier-findings"
  # Count only this run's findings: earlier ones (fixed or not) move aside.
  find "$work/findings" -type f -exec mv -t "$work/earlier-findings/" {} +
  log="$work/log.txt"
  # -rss_limit_mb: the loaders cap tensors well below this; -timeout: one
  # input taking 10 s is a finding (a hang).
  nice -n "${NICE:-0}" "$bin/fuzz/$t" "$work/corpus" "fuzz/corpus/$t" \
    -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2560 \
    -timeout=10 -max_len=65536 -artifact_prefix="$work/findings/" \
    >"$log" 2>&1 || true
  execs="$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" |
           grep -o '[0-9]*$' || echo 0)"
  rate="$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" |
          grep -o '[0-9]*$' || echo 0)"
  corpus="$(find "$work/corpus" -type f | wc -l)"
  findings="$(find "$work/findings" -type f | wc -l)"
  printf '%-28s %12s %10s %8s %s\n' "$t" "${execs:-0}" "${rate:-0}" \
    "$corpus" "$findings"
  if [ "$findings" -gt 0 ]; then
    status=1
    find "$work/findings" -type f | sed 's/^/    /'
    grep -m1 -E 'ERROR: (AddressSanitizer|libFuzzer|UndefinedBehavior)|runtime error' \
      "$log" | sed 's/^/    /' || true
  fi
  if [ -z "$execs" ] || [ "$execs" = 0 ]; then
    echo "    $t did not run; see $log"
    status=1
  fi
done
exit "$status"
