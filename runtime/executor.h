// Runs a Graph: given fed endpoints and fetched endpoints, executes the
// nodes the fetches need, in dependency order.
//
// Plans. The first Run with a given set of feed and fetch names computes a
// Plan (pruned node set, dependency counts, successor lists, last-use
// counts, cycle and missing-input checks) and caches it; later Runs with the
// same names reuse it. Plans are immutable and shared by concurrent Runs.
//
// Scheduling. With a task arena (threads > 1) ready nodes run as oneTBB
// tasks: when a node finishes, each successor whose inputs are now all
// available becomes ready; the first ready successor continues on the same
// thread, the others are spawned. Without an arena (threads == 1) nodes run
// one after another in the plan's topological order on the caller's thread,
// and so do the kernels' parallel loops (ScopedSequential in
// runtime/parallel.h): such a Run uses exactly one thread. With a host's
// job system instead of an arena (ExecutorOptions::job_system) nodes run in
// that order on the caller's thread and the kernels' loops are handed to the
// job system.
// Either way every kernel computes the same values, so results do not depend
// on the thread count.
//
// Memory. A node's outputs are released as soon as its last consumer in the
// plan has run (unless fetched). Tensors that kernels allocate come from the
// executor's BufferPool (installed around every kernel call with
// ScopedBufferPool) and return to it when released, and each Plan keeps the
// per-Run bookkeeping (value slots, counters) of finished Runs for reuse. So
// once a Plan has run with given input shapes, further Runs through RunInto
// make no heap allocation of their own (kernels that need scratch memory may
// still allocate; the text-classifier and dense models' kernels do not).
// Concurrent Runs each take their own bookkeeping and buffers.
//
// In-place reuse. A kernel may take an input's storage as its output
// (KernelContext::forward_input_to_output) when the executor marks that
// input forwardable: every other consumer of the value has finished (its
// use count is down to this node), it is neither fed nor fetched, this node
// receives it once, and no other tensor (view, slice) shares its buffer.
// The residual convolution ([BiasAdd, Add] epilogue) uses it to add in
// place. A value the node receives through several inputs is forwardable
// only through forward_shared_input_to_output (the kernel reads all of
// them before writing): _FusedDepthwiseBlock's f(x) + x in one band.
//
// Memory limit. With ExecutorOptions::max_live_bytes > 0, a Run tracks the
// bytes of the tensors its kernels allocated that are still held (fed
// tensors and constants excluded, a buffer shared by several outputs counted
// once per producing node); when a node's outputs push the total over the
// limit the Run fails with ResourceExhausted naming that node. (v1 control
// flow graphs run on the dataflow executor, which the limit does not cover.)
//
// Errors. The first failing node stops the Run; its error is returned with
// the node name and op prefixed. Nothing is left half-written: outputs are
// returned only on success.
#ifndef GRAPHRT_RUNTIME_EXECUTOR_H_
#define GRAPHRT_RUNTIME_EXECUTOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "converter/graph.h"
#include "oneapi/tbb/task_arena.h"
#include "runtime/job_system.h"
#include "runtime/mutex.h"
#include "runtime/profiler.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {

struct Feed {
  Endpoint endpoint;
  Tensor value;
};

struct Plan;

// kFlushToZero (default, as TensorFlow's executor): kernels compute with
// FTZ + DAZ on x86. kIeee: IEEE denormals (ONNX Runtime's default; slower
// when activations decay towards zero). kAsCaller: whatever the calling
// Run uses (function bodies called from a kernel).
enum class Denormals { kFlushToZero, kIeee, kAsCaller };

struct ExecutorOptions {
  // Fail a Run whose live intermediate tensors exceed this many bytes;
  // 0 = unlimited.
  int64_t max_live_bytes = 0;
  // Per-node timing (runtime/profiler.h); null (default) = none, at the
  // cost of one pointer test per node. Not owned; must outlive the
  // Executor.
  Profiler* profiler = nullptr;
  // How kernels treat denormal floats (runtime/thread_context.h says why
  // and what it costs).
  Denormals denormals = Denormals::kFlushToZero;
  // A host's job system (runtime/job_system.h) for an Executor without an
  // arena: nodes then run in order on the caller's thread and the kernels'
  // loops go to the job system. Null (default): without an arena
  // everything runs on the caller's thread. Not owned; must outlive the
  // Executor. Ignored when an arena is given.
  JobSystem* job_system = nullptr;
};

class Executor {
 public:
  // `graph` and `resources` must outlive the Executor. `arena` may be null
  // (run sequentially on the caller's thread).
  Executor(const Graph* graph, ResourceManager* resources,
           oneapi::tbb::task_arena* arena, ExecutorOptions options = {});
  ~Executor();

  // Thread-safe. Returns the fetched tensors in `fetches` order.
  // `resources` overrides the executor's own (function bodies run with
  // their caller's).
  absl::StatusOr<std::vector<Tensor>> Run(
      absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches,
      ResourceManager* resources = nullptr) const;

  // Like Run, but stores the fetched tensors in `results` (one slot per
  // fetch, overwritten only on success). Allocation-free in steady state.
  absl::Status RunInto(absl::Span<const Feed> feeds,
                       absl::Span<const Endpoint> fetches,
                       absl::Span<Tensor> results,
                       ResourceManager* resources = nullptr) const;

  // The pool intermediate tensors come from (for tests and statistics).
  const BufferPool& buffer_pool() const { return *pool_; }

  // Number of nodes a Run with these feeds and fetches executes.
  absl::StatusOr<int> CountNodes(absl::Span<const Feed> feeds,
                                 absl::Span<const Endpoint> fetches) const;

 private:
  absl::StatusOr<std::shared_ptr<const Plan>> GetPlan(
      absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches) const;
  // Whether this Run's kernels flush denormals (options_.denormals resolved
  // on the calling thread).
  bool FlushDenormals() const;

  const Graph* graph_;
  ResourceManager* resources_;
  oneapi::tbb::task_arena* arena_;
  ExecutorOptions options_;
  std::shared_ptr<BufferPool> pool_;
  mutable Mutex mu_;
  // Plans by a hash of their feed and fetch endpoints (collisions resolved
  // by comparing the endpoints, so a lookup allocates nothing).
  mutable absl::flat_hash_map<uint64_t, std::vector<std::shared_ptr<Plan>>>
      plans_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_EXECUTOR_H_
