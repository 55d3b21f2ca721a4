#!/usr/bin/env bash
# graphrt vs TF.js-wasm, one core, on the real-model corpus
# (tools/corpus/README.md): for each model, in the same run and on the same
# inputs (the model's corpus golden, seed 1), `graphrt bench --threads 1`
# and tools/golden/bench_tfjs.js (TF.js 4.22 wasm backend, 1 thread), then a
# table of median latencies and their ratio, written between the
# compare_tfjs markers of bench/RESULTS.md (and printed).
#
#   bazel build --config=opt //tools:graphrt
#   bash bench/compare_tfjs.sh [MODEL...]          # default: models.txt
#
# Environment:
#   GRAPHRT   the CLI (default: bazel-bin/tools/graphrt)
#   MODELS    models folder (default: what fetch_human_models.sh prints)
#   GOLDENS   goldens folder (default: $GRAPHRT_CACHE/corpus-goldens;
#             bash tools/corpus/make_corpus_goldens.sh makes them)
#   ITERS     timed iterations per model and runtime (default 10)
#   ROUNDS    latency measurements per model and runtime, alternating
#             graphrt / TF.js; each runtime's latency is the smallest of
#             its per-round medians (default 3). The VMs this runs on change
#             speed by 10-40% from one minute to the next (other tenants);
#             one measurement each made the ratio swing with whichever
#             runtime drew the slow minute. Both runtimes get the same rule.
#   LOAD_RUNS processes per model and runtime whose first load is timed;
#             the load column is their median (default 3)
# Load time is a process's first load of the model, as an app sees it, with
# the model's files already in the page cache (read once before timing:
# otherwise whichever runtime goes first pays for the disk). Not the
# median of repeated loads in one process (bench --loads): TF.js reuses its
# wasm heap and V8's warmed-up code there, graphrt maps fresh memory.
#   RESULTS   the markdown file to update (default bench/RESULTS.md;
#             RESULTS= prints only)
# A model whose golden is missing or whose run fails gets a row saying so.
set -uo pipefail
cd "$(dirname "$0")/.."
cache="${GRAPHRT_CACHE:-$HOME/.cache/graphrt}"
graphrt="${GRAPHRT:-bazel-bin/tools/graphrt}"
models="${MODELS:-}"
[[ -z "$models" ]] && { models="$(bash tools/corpus/fetch_human_models.sh)" || exit 1; }
goldens="${GOLDENS:-$cache/corpus-goldens}"
iters="${ITERS:-10}"
rounds="${ROUNDS:-3}"
load_runs="${LOAD_RUNS:-3}"
results="${RESULTS-bench/RESULTS.md}"
[[ -x "$graphrt" ]] || { echo "compare_tfjs.sh: no graphrt CLI at $graphrt" >&2; exit 1; }
bash tools/golden/setup.sh >/dev/null || exit 1

names=("$@")
if [[ ${#names[@]} -eq 0 ]]; then
  while read -r name _; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    names+=("$name")
  done < tools/corpus/models.txt
fi

# The value of "key": number in a one-line JSON object.
field() { sed -n "s/.*\"$2\":\([0-9.eE+-]*\).*/\1/p" <<<"$1"; }

# smaller A B: the smaller number; an empty one is ignored.
smaller() {
  if [[ -z "$1" ]]; then echo "$2"; elif [[ -z "$2" ]]; then echo "$1"
  else awk -v a="$1" -v b="$2" 'BEGIN { print (b < a ? b : a) }'; fi
}

# median VALUES...: "n/a" when empty.
median() {
  printf '%s\n' "$@" | sort -g | awk 'NF { v[++n] = $1 } END {
    if (n == 0) print "n/a"; else if (n % 2) print v[(n + 1) / 2];
    else printf "%.3f", (v[n / 2] + v[n / 2 + 1]) / 2 }'
}
table="$(mktemp)"
trap 'rm -f "$table"' EXIT
{
  echo "| model | graphrt ms | tfjs-wasm ms | ratio | graphrt load ms | tfjs load ms | load ratio |"
  echo "|---|---|---|---|---|---|---|"
} >"$table"
ratios=()
load_ratios=()
for name in "${names[@]}"; do
  golden="$goldens/$name.json"
  if [[ ! -f "$golden" ]]; then
    echo "| $name | no golden | | | | | |" >>"$table"; continue
  fi
  # The model's files into the page cache (model.json names its shards).
  cat "$models/$name.json" >/dev/null
  python3 -c 'import json, os, sys
m = json.load(open(sys.argv[1]))
for g in m.get("weightsManifest", []):
    for p in g["paths"]:
        open(os.path.join(os.path.dirname(sys.argv[1]), p), "rb").read()' \
    "$models/$name.json" 2>/dev/null
  g_ms="" t_ms=""
  for ((round = 1; round <= rounds; ++round)); do
    g_line="$("$graphrt" bench "$models/$name.json" --inputs "$golden" --threads 1 \
                --iters "$iters" --warmup 2 2>/dev/null | tail -1)"
    t_line="$(node tools/golden/bench_tfjs.js "$models/$name.json" --inputs "$golden" \
                --backend wasm --threads 1 --iters "$iters" --warmup 2 2>/dev/null | tail -1)"
    g_ms="$(smaller "$g_ms" "$(field "$g_line" median_ms)")"
    t_ms="$(smaller "$t_ms" "$(field "$t_line" median_ms)")"
  done
  g_loads=("$(field "$g_line" load_ms)")
  t_loads=("$(field "$t_line" load_ms)")
  for ((run = 1; run < load_runs; ++run)); do
    g_loads+=("$(field "$("$graphrt" bench "$models/$name.json" --inputs "$golden" \
                 --threads 1 --iters 1 --warmup 0 2>/dev/null | tail -1)" load_ms)")
    t_loads+=("$(field "$(node tools/golden/bench_tfjs.js "$models/$name.json" \
                 --inputs "$golden" --backend wasm --threads 1 --iters 1 --warmup 0 \
                 2>/dev/null | tail -1)" load_ms)")
  done
  g_load="$(median "${g_loads[@]}")"
  t_load="$(median "${t_loads[@]}")"
  if [[ -z "$g_ms" || -z "$t_ms" ]]; then
    echo "| $name | ${g_ms:-failed} | ${t_ms:-failed} | | | | |" >>"$table"; continue
  fi
  ratio="$(awk -v g="$g_ms" -v t="$t_ms" 'BEGIN { printf "%.3f", (t > 0 ? g / t : 0) }')"
  load_ratio="$(awk -v g="$g_load" -v t="$t_load" 'BEGIN { printf "%.3f", (t > 0 ? g / t : 0) }')"
  ratios+=("$ratio")
  load_ratios+=("$load_ratio")
  printf '| %s | %.2f | %.2f | %s | %.1f | %.1f | %s |\n' "$name" "$g_ms" "$t_ms" "$ratio" \
    "$g_load" "$t_load" "$load_ratio" >>"$table"
  echo "$name: graphrt $g_ms ms, tfjs-wasm $t_ms ms, ratio $ratio; load $g_load vs $t_load ms" >&2
done
max_ratio="$(printf '%s\n' "${ratios[@]}" | sort -g | tail -1)"
{
  echo
  echo "Median latency ratio (graphrt / tfjs-wasm; each runtime's best of" \
    "$rounds alternating medians of $iters Runs) over ${#ratios[@]} models:" \
    "**$(median "${ratios[@]}")** (largest ${max_ratio:-n/a}); median load-time" \
    "ratio (graphrt load_ms: parse + weights + passes + kernels + initializer," \
    "after Model::InitRuntime; TF.js: loadGraphModel, after tf.ready();" \
    "first load of a process, files in the page cache, median of $load_runs" \
    "processes each):" \
    "**$(median "${load_ratios[@]}")**."
} >>"$table"
cat "$table"

if [[ -n "$results" ]]; then
  python3 - "$results" "$table" <<'PY'
import sys
path, table = sys.argv[1], open(sys.argv[2]).read().rstrip("\n")
begin, end = "<!-- compare_tfjs:begin -->", "<!-- compare_tfjs:end -->"
text = open(path).read()
if begin in text and end in text:
    head, rest = text.split(begin, 1)
    tail = rest.split(end, 1)[1]
    text = head + begin + "\n" + table + "\n" + end + tail
else:
    text = text.rstrip("\n") + "\n\n" + begin + "\n" + table + "\n" + end + "\n"
open(path, "w").write(text)
PY
fi
