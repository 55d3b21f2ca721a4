#!/usr/bin/env bash
# Runs the real-model corpus through the built `graphrt` CLI, outside Bazel,
# and prints one row per model: status (pass/fail), load and run times, and
# the first line of the error. Ends with "N passed, M failed".
#
#   bash tools/corpus/run_corpus.sh [MODEL...]        # default: models.txt
#
# Environment:
#   GRAPHRT      the CLI (default: bazel-bin/tools/graphrt)
#   MODELS       the models folder (default: what fetch_human_models.sh prints)
#   GOLDENS      the goldens folder (default: $GRAPHRT_CACHE/corpus-goldens)
#   THREADS      --threads for graphrt (default: 2)
#   TIMEOUT      seconds per model (default: 600)
#   LOG_DIR      full stdout/stderr of every model (default: a temp dir,
#                printed at the end)
# Each model runs `graphrt info MODEL` (its wall time is load_ms: parse +
# weights + kernels + initializer, plus process start) and then
# `graphrt run MODEL --inputs GOLDEN --expect GOLDEN` (run_ms = its wall time
# minus load_ms, i.e. about one inference plus reading/writing JSON), so
# inference runs once per model. The comparison is rtol 1e-3, atol 1e-4,
# ints exact, strictly in order (no tie exceptions: see README.md). A model
# passes when the comparison does. Exit status: 0 if all passed, else 1.
set -uo pipefail
cd "$(dirname "$0")/../.."
cache="${GRAPHRT_CACHE:-$HOME/.cache/graphrt}"
graphrt="${GRAPHRT:-bazel-bin/tools/graphrt}"
models="${MODELS:-}"
if [[ -z "$models" ]]; then
  models="$(bash tools/corpus/fetch_human_models.sh)" || exit 1
fi
goldens="${GOLDENS:-$cache/corpus-goldens}"
threads="${THREADS:-2}"
limit="${TIMEOUT:-600}"
log_dir="${LOG_DIR:-$(mktemp -d /tmp/graphrt-corpus-XXXXXX)}"
mkdir -p "$log_dir"

if [[ ! -x "$graphrt" ]]; then
  echo "run_corpus.sh: no graphrt CLI at $graphrt (bazel build //tools:graphrt, or set GRAPHRT)" >&2
  exit 1
fi

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  while read -r name _; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    names+=("$name")
  done < tools/corpus/models.txt
fi

# First line of a failure, without the CLI's "graphrt: " prefix, cut short.
first_line() {
  grep -v '^\s*$' "$1" | head -1 | sed -e 's/^graphrt: //' -e 's/^error: //' | cut -c1-160
}

printf '%-26s %-6s %9s %9s  %s\n' model status load_ms run_ms error
passed=0
failed=0
start="$(date +%s)"
for name in "${names[@]}"; do
  json="$models/$name.json"
  golden="$goldens/$name.json"
  load_ms="-"
  run_ms="-"
  status=fail
  err=""
  if [[ ! -f "$json" ]]; then
    err="no model $json"
  elif [[ ! -f "$golden" ]]; then
    err="no golden $golden (tools/corpus/make_corpus_goldens.sh)"
  else
    t0="$(date +%s%N)"
    timeout "$limit" "$graphrt" info "$json" >"$log_dir/$name.info.out" \
      2>"$log_dir/$name.info.err"
    rc=$?
    t1="$(date +%s%N)"
    if [[ $rc -eq 124 ]]; then
      err="load timeout after ${limit}s"
    elif [[ $rc -ne 0 ]]; then
      err="$(first_line "$log_dir/$name.info.err")"
      [[ -n "$err" ]] || err="info: exit status $rc"
    else
      load_ms=$(( (t1 - t0) / 1000000 ))
      timeout "$limit" "$graphrt" run "$json" --inputs "$golden" \
        --expect "$golden" --threads "$threads" --output "$log_dir/$name.out.json" \
        >"$log_dir/$name.run.out" 2>"$log_dir/$name.run.err"
      rc=$?
      t2="$(date +%s%N)"
      run_ms=$(( (t2 - t1) / 1000000 - load_ms ))
      (( run_ms >= 0 )) || run_ms=0
      if [[ $rc -eq 0 ]] && grep -q '^matches ' "$log_dir/$name.run.out"; then
        status=pass
      elif [[ $rc -eq 124 ]]; then
        err="timeout after ${limit}s"
        run_ms="-"
      else
        err="$(first_line "$log_dir/$name.run.err")"
        [[ -n "$err" ]] || err="exit status $rc"
      fi
    fi
  fi
  if [[ $status == pass ]]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  printf '%-26s %-6s %9s %9s  %s\n' "$name" "$status" "$load_ms" "$run_ms" "$err"
done
echo "logs: $log_dir ($(( $(date +%s) - start )) s)"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]
