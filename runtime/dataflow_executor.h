// Frame-aware dataflow execution for graphs with TensorFlow v1 control flow
// (Switch, Merge, Enter, Exit, NextIteration, LoopCond), following TF's
// executor semantics:
//
// * Every value carries a tag: a frame instance and an iteration. Enter
//   moves a value into iteration 0 of a child frame (with is_constant, into
//   every iteration of it), NextIteration into the next iteration, Exit back
//   to the parent frame.
// * Dead tensors: Switch emits its input on one output and a dead tensor on
//   the other. A node with a dead input does not run and emits dead outputs;
//   Merge forwards the first live input (output 1 = its index) and is dead
//   only when all its data inputs are dead. A dead NextIteration ends the
//   loop; a dead Exit is dropped unless the frame finishes without a live
//   value for it, then the parent sees it dead.
// * Memory: values live only in the input slots of nodes that have not run
//   yet; an iteration's state is freed once it has no pending node and all
//   earlier iterations are gone, so a loop of any trip count holds only the
//   live tensors of its active iterations. No recursion: one work queue.
//
// Nodes run one at a time on the calling thread (kernels may still use the
// thread pool internally). Graphs without control flow use the static
// parallel executor instead (runtime/executor.h).
#ifndef GRAPHRT_RUNTIME_DATAFLOW_EXECUTOR_H_
#define GRAPHRT_RUNTIME_DATAFLOW_EXECUTOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "converter/graph.h"
#include "runtime/profiler.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt {

struct Feed;

// True for the v1 control-flow ops this executor handles.
bool IsControlFlowOp(absl::string_view op);

class DataflowPlan {
 public:
  // `needed[i]`: node i is needed by the fetches; `fed[i]`: its outputs are
  // fed. Validates frames (every Exit/NextIteration inside a frame) and that
  // the graph is acyclic apart from NextIteration back edges.
  static absl::StatusOr<std::unique_ptr<DataflowPlan>> Build(
      const Graph& graph, const std::vector<char>& needed,
      const std::vector<char>& fed);

  enum class Kind : char { kNormal, kMerge, kEnter, kExit, kNextIteration };
  struct OutEdge {
    int dst;
    int slot;        // data input index of dst, or -1 for a control edge
    int src_output;  // output index of the producer (data edges)
  };
  struct NodeInfo {
    Kind kind = Kind::kNormal;
    bool needed = false;
    bool fed = false;
    int num_data = 0;      // data in-edges
    int num_control = 0;   // control in-edges
    int frame = 0;         // static frame id (0 = root)
    int child_frame = -1;  // Enter: the frame it enters
    bool is_constant = false;
    std::vector<OutEdge> out;
  };
  struct FrameInfo {
    std::string name;
    int parent = -1;
    int num_enters = 0;      // needed Enter nodes entering this frame
    std::vector<int> exits;  // needed Exit nodes leaving this frame
  };

  std::vector<NodeInfo> nodes;
  std::vector<FrameInfo> frames;
  std::vector<int> sources;  // needed, unfed nodes without in-edges
};

// Loop limit (ModelOptions::max_loop_iterations). The Model stores it in its
// ResourceManager as an int64 scalar Variable under this name, so that both
// this executor and the v2 While kernel (ops/control/function_ops.cc, which
// repeats the name) see it without a new executor/kernel-context field. A
// loop whose body would run more than the limit fails with
// ResourceExhausted naming the loop node. Absent or <= 0: no limit.
inline constexpr char kMaxLoopIterationsResource[] =
    "graphrt/limits/max_loop_iterations";
absl::Status SetMaxLoopIterations(ResourceManager& resources, int64_t limit);
// The limit stored in `resources` (may be null); 0 when there is none.
int64_t MaxLoopIterations(const ResourceManager* resources);

// Runs one inference. `feed_of(endpoint)` locates feeds; returns the fetched
// tensors (root frame) in order. Feeds of output indices no edge reads and
// no fetch asks for are ignored. `profiler` (may be null) times every
// kernel call, as the static executor does (`graphrt bench --profile`).
absl::StatusOr<std::vector<Tensor>> RunDataflow(
    const Graph& graph, const DataflowPlan& plan, absl::Span<const Feed> feeds,
    absl::Span<const Endpoint> fetches, ResourceManager* resources,
    Profiler* profiler = nullptr);

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_DATAFLOW_EXECUTOR_H_
