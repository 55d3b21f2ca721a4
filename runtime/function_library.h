// The model's function library (GraphDef.library): FunctionDefs compiled
// into Graphs on demand, for If/While/PartitionedCall kernels.
//
// A FunctionDef becomes a GraphDef: each input arg a Placeholder named after
// the arg, node inputs "node:out_arg:i" rewritten to "node:k" using the
// op's output-arg layout, and the `ret` map giving the output endpoints in
// signature order. Function bodies run on the calling thread (their kernels
// may still use the pool); v1 control flow inside a function works too.
//
// Instantiate is called at load time, from the thread loading the model;
// compiled functions are cached and shared; calling a function from itself
// (directly or not) is a load-time error.
#ifndef GRAPHRT_RUNTIME_FUNCTION_LIBRARY_H_
#define GRAPHRT_RUNTIME_FUNCTION_LIBRARY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "converter/graph.h"
#include "ops/kernel.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"

namespace graphrt {

// FunctionDef -> GraphDef, with the arg Placeholders' names and the return
// tensor names ("node:k") in signature order.
absl::StatusOr<tensorflow::GraphDef> FunctionToGraphDef(
    const tensorflow::FunctionDef& fn, std::vector<std::string>* args,
    std::vector<std::string>* rets);

class ModelFunctionLibrary : public FunctionLibrary {
 public:
  // `weights` and `registry` must outlive every Instantiate call (load time).
  ModelFunctionLibrary(const tensorflow::FunctionDefLibrary& library,
                       const WeightMap* weights, const OpRegistry* registry);
  ~ModelFunctionLibrary() override;

  absl::StatusOr<std::shared_ptr<const Function>> Instantiate(
      const std::string& name) const override;

  bool empty() const { return defs_.empty(); }

 private:
  absl::flat_hash_map<std::string, const tensorflow::FunctionDef*> defs_;
  tensorflow::FunctionDefLibrary library_;
  const WeightMap* weights_;
  const OpRegistry* registry_;
  mutable absl::flat_hash_map<std::string, std::shared_ptr<const Function>>
      compiled_;
  mutable absl::flat_hash_set<std::string> in_progress_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_FUNCTION_LIBRARY_H_
