#!/usr/bin/env bash
# Op coverage of the corpus: builds //tests/corpus:list_ops (prints the
# built-in registry's op names), then tools/corpus/op_coverage.js compares
# them with every op the 41 models use.
#
#   bash tools/corpus/op_coverage.sh            # BAZEL="bazel --output_base=..." to pick a server
set -euo pipefail
cd "$(dirname "$0")/../.."
models="${MODELS:-$(bash tools/corpus/fetch_human_models.sh)}"
bazel_cmd=(${BAZEL:-bazel})
"${bazel_cmd[@]}" build //tests/corpus:list_ops >&2
bin="$("${bazel_cmd[@]}" info bazel-bin 2>/dev/null)/tests/corpus/list_ops"
ops="$(mktemp)"
trap 'rm -f "$ops"' EXIT
"$bin" >"$ops"
node tools/corpus/op_coverage.js "$models" "$ops" tools/corpus/models.txt
