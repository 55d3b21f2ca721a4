// Fuzzes GraphDef parsing, the load-time graph passes and Graph::Build
// (name resolution, duplicate and dangling inputs, every kernel factory's
// attr checks, function library compilation). The first byte picks the
// encoding: even = binary proto, odd = the protobuf-JSON form model.json
// uses (ParseGraphDefJson). Graphs are built as parsed, then once more
// after OptimizeInferenceGraph (which runs constant nodes' kernels), never
// run (running arbitrary graphs only finds OOMs).
#include <cstddef>
#include <cstdint>
#include <string>

#include "converter/graph.h"
#include "converter/passes/passes.h"
#include "fuzz/graph_filter.h"
#include "loader/tfjs_model.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"
#include "runtime/function_library.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  tensorflow::GraphDef def;
  if (data[0] % 2 == 0) {
    if (!def.ParseFromArray(data + 1, static_cast<int>(size - 1))) return 0;
  } else {
    auto parsed = graphrt::ParseGraphDefJson(
        std::string(reinterpret_cast<const char*>(data) + 1, size - 1));
    if (!parsed.ok()) return 0;
    def = std::move(*parsed);
  }
  if (graphrt::fuzzing::HasHugeConst(def)) return 0;
  const graphrt::WeightMap weights;
  graphrt::ModelFunctionLibrary functions(def.library(), &weights,
                                          &graphrt::BuiltinOps());
  auto graph = graphrt::Graph::Build(def, weights, graphrt::BuiltinOps(),
                                     "fuzzed graph", &functions);
  if (graph.ok()) {
    for (int i = 0; i < (*graph)->num_nodes(); ++i) {
      (void)(*graph)->ResolveTensor((*graph)->node(i).name() + ":1");
    }
    (void)(*graph)->Sinks();
  }
  graphrt::WeightMap optimized_weights;
  graphrt::passes::OptimizeInferenceGraph(&def, &optimized_weights, {},
                                          &graphrt::BuiltinOps());
  (void)graphrt::Graph::Build(def, optimized_weights, graphrt::BuiltinOps(),
                              "fuzzed graph, optimized", &functions);
  return 0;
}
