// Profiler: where a model's Run time goes, node by node and op by op.
//
// Attach one to a model (ModelOptions::profiler, or ExecutorOptions::
// profiler for a bare Executor) and every node the executor runs while the
// profiler is enabled records its wall time around Kernel::Run, and for
// the compute-heavy ops (Conv2D, DepthwiseConv2dNative and their fused
// forms, Conv2DBackpropInput, MatMul, BatchMatMul) its multiply-add FLOPs,
// counted from the input and output shapes (2 per multiply-add; fused
// epilogues not counted). `graphrt bench --profile` prints the summary.
// Nodes the executor does not run are not listed: a planned Const that is
// neither fed nor fetched is read in place by its consumers
// (Plan::static_values in runtime/executor.cc).
//
// Cost: with no profiler attached, one pointer test per node; attached and
// enabled, two clock reads and a short locked update per node, which
// inflates runs of many tiny nodes (use it to see shares, and time with
// `graphrt bench` itself). Not covered: nodes inside While/If function
// bodies are timed as their calling node, and graphs with v1 control flow
// (Enter/Exit/NextIteration loops) run on the dataflow executor
// (runtime/dataflow_executor.h), which records nothing at all.
//
// Thread-safety: Record may be called from any number of threads at once
// (concurrent Runs, inter-op parallelism); the summaries take a snapshot.
// The profiler must outlive the model or executor it is attached to.
#ifndef GRAPHRT_RUNTIME_PROFILER_H_
#define GRAPHRT_RUNTIME_PROFILER_H_

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "runtime/mutex.h"
#include "runtime/tensor.h"

namespace graphrt {

class Profiler {
 public:
  // One node's totals.
  struct NodeStats {
    std::string name;
    std::string op;
    int64_t calls = 0;
    double seconds = 0;
    double flops = 0;  // summed over calls
  };
  // One op type's totals over its nodes.
  struct OpStats {
    std::string op;
    int64_t nodes = 0;  // distinct nodes of this op
    int64_t calls = 0;
    double seconds = 0;
    double flops = 0;
  };

  Profiler() = default;
  Profiler(const Profiler&) = delete;
  Profiler& operator=(const Profiler&) = delete;

  // Recording starts enabled; disabled profilers cost a relaxed load.
  void set_enabled(bool enabled) {
    enabled_.store(enabled, std::memory_order_relaxed);
  }
  bool enabled() const { return enabled_.load(std::memory_order_relaxed); }

  // Adds one execution of a node (`key` identifies it across calls, e.g.
  // the graph node's address).
  void Record(const void* key, const std::string& name, const std::string& op,
              double seconds, double flops);

  // Multiply-add FLOPs of one execution of `op` with these inputs and
  // outputs; 0 for ops not counted (see above) or unexpected shapes.
  static double EstimateFlops(const std::string& op,
                              absl::Span<const Tensor* const> inputs,
                              absl::Span<const Tensor> outputs);

  // Totals per op, most time first.
  std::vector<OpStats> ByOp() const;
  // The `n` nodes with the most time, most first.
  std::vector<NodeStats> TopNodes(int n) const;
  // Total recorded time.
  double TotalSeconds() const;
  void Reset();

 private:
  std::atomic<bool> enabled_{true};
  mutable Mutex mu_;
  absl::flat_hash_map<const void*, NodeStats> nodes_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_PROFILER_H_
