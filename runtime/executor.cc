#include "runtime/executor.h"

#include <atomic>
#include <deque>

#include "absl/strings/str_cat.h"
#include "oneapi/tbb/task_arena.h"
#include "oneapi/tbb/task_group.h"
#include "runtime/dataflow_executor.h"
#include "runtime/status_macros.h"

namespace graphrt {

struct Plan {
  std::vector<int> order;               // nodes to run, topological
  std::vector<int> initial_pending;     // per node id
  std::vector<std::vector<int>> successors;  // per node id, planned only
  std::vector<int> initial_uses;        // per node id: planned consumers
  std::vector<char> fetched;            // per node id
  std::vector<int> ready;               // nodes with no pending inputs
  absl::flat_hash_map<Endpoint, int> feed_index;  // endpoint -> feed #
  std::vector<char> fed;                // per node id
  // Set when the pruned graph has v1 control flow: run frame-aware.
  std::unique_ptr<DataflowPlan> dataflow;
};

namespace {

std::string PlanKey(const Graph& graph, absl::Span<const Feed> feeds,
                    absl::Span<const Endpoint> fetches) {
  std::string key;
  for (const Feed& f : feeds) {
    absl::StrAppend(&key, f.endpoint.node, ":", f.endpoint.index, ",");
  }
  key += "|";
  for (const Endpoint& e : fetches) {
    absl::StrAppend(&key, e.node, ":", e.index, ",");
  }
  return key;
}

struct RunState {
  explicit RunState(const Plan& plan, int n)
      : values(n), pending(new std::atomic<int>[n]), uses(new std::atomic<int>[n]) {
    for (int i = 0; i < n; ++i) {
      pending[i].store(plan.initial_pending[i], std::memory_order_relaxed);
      uses[i].store(plan.initial_uses[i], std::memory_order_relaxed);
    }
  }
  std::vector<std::vector<Tensor>> values;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<int>[]> uses;
  std::atomic<bool> failed{false};
  absl::Mutex mu;
  absl::Status status;

  void Fail(absl::Status s) {
    absl::MutexLock lock(&mu);
    if (status.ok()) status = std::move(s);
    failed.store(true, std::memory_order_release);
  }
};

}  // namespace

Executor::Executor(const Graph* graph, ResourceManager* resources,
                   oneapi::tbb::task_arena* arena)
    : graph_(graph), resources_(resources), arena_(arena) {}

Executor::~Executor() = default;

absl::StatusOr<std::shared_ptr<const Plan>> Executor::GetPlan(
    absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches) const {
  std::string key = PlanKey(*graph_, feeds, fetches);
  {
    absl::MutexLock lock(&mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) return it->second;
  }
  const int n = graph_->num_nodes();
  auto plan = std::make_shared<Plan>();
  plan->fed.assign(n, 0);
  plan->fetched.assign(n, 0);
  for (size_t i = 0; i < feeds.size(); ++i) {
    plan->fed[feeds[i].endpoint.node] = 1;
    plan->feed_index[feeds[i].endpoint] = static_cast<int>(i);
  }
  // Backward closure from the fetches, stopping at fed nodes.
  std::vector<char> needed(n, 0);
  std::vector<int> stack;
  for (const Endpoint& e : fetches) {
    plan->fetched[e.node] = 1;
    if (!needed[e.node]) {
      needed[e.node] = 1;
      stack.push_back(e.node);
    }
  }
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (plan->fed[id]) continue;
    const Node& node = graph_->node(id);
    auto visit = [&](int src) {
      if (!needed[src]) {
        needed[src] = 1;
        stack.push_back(src);
      }
    };
    for (const Endpoint& in : node.inputs) visit(in.node);
    for (int c : node.control_inputs) visit(c);
  }
  bool control_flow = false;
  for (int id = 0; id < n; ++id) {
    if (!needed[id] || plan->fed[id]) continue;
    const Node& node = graph_->node(id);
    if (node.op() == "Placeholder") {
      return absl::InvalidArgumentError(absl::StrCat(
          "missing input '", node.name(),
          "': the requested outputs need it and it was not fed"));
    }
    if (IsControlFlowOp(node.op())) control_flow = true;
  }
  if (control_flow) {
    GRAPHRT_ASSIGN_OR_RETURN(plan->dataflow,
                             DataflowPlan::Build(*graph_, needed, plan->fed));
    absl::MutexLock lock(&mu_);
    auto [it, inserted] = plans_.emplace(key, std::move(plan));
    return it->second;
  }
  plan->initial_pending.assign(n, 0);
  plan->initial_uses.assign(n, 0);
  plan->successors.resize(n);
  for (int id = 0; id < n; ++id) {
    if (!needed[id] || plan->fed[id]) continue;
    const Node& node = graph_->node(id);
    // Unique predecessors.
    std::vector<int> preds;
    for (const Endpoint& in : node.inputs) preds.push_back(in.node);
    for (int c : node.control_inputs) preds.push_back(c);
    std::sort(preds.begin(), preds.end());
    preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
    for (int p : preds) {
      plan->initial_uses[p]++;
      if (!plan->fed[p]) {
        plan->initial_pending[id]++;
        plan->successors[p].push_back(id);
      }
    }
  }
  // Kahn's algorithm: topological order and cycle detection.
  std::vector<int> pending = plan->initial_pending;
  std::deque<int> queue;
  int planned = 0;
  for (int id = 0; id < n; ++id) {
    if (!needed[id] || plan->fed[id]) continue;
    ++planned;
    if (pending[id] == 0) {
      queue.push_back(id);
      plan->ready.push_back(id);
    }
  }
  while (!queue.empty()) {
    int id = queue.front();
    queue.pop_front();
    plan->order.push_back(id);
    for (int s : plan->successors[id]) {
      if (--pending[s] == 0) queue.push_back(s);
    }
  }
  if (static_cast<int>(plan->order.size()) != planned) {
    for (int id = 0; id < n; ++id) {
      if (needed[id] && !plan->fed[id] && pending[id] > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(graph_->what(), " has a cycle through ",
                         NodeContext(graph_->node(id))));
      }
    }
  }
  absl::MutexLock lock(&mu_);
  auto [it, inserted] = plans_.emplace(key, std::move(plan));
  return it->second;
}

absl::StatusOr<int> Executor::CountNodes(
    absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches) const {
  GRAPHRT_ASSIGN_OR_RETURN(auto plan, GetPlan(feeds, fetches));
  return static_cast<int>(plan->order.size());
}

namespace {

// Runs one node; returns false if the Run has failed.
bool RunNode(const Graph& graph, const Plan& plan, RunState& state,
             absl::Span<const Feed> feeds, ResourceManager* resources,
             int id) {
  if (state.failed.load(std::memory_order_acquire)) return false;
  const Node& node = graph.node(id);
  absl::InlinedVector<const Tensor*, 8> inputs;
  inputs.reserve(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Endpoint& in = node.inputs[i];
    const Tensor* t = nullptr;
    if (plan.fed[in.node]) {
      auto it = plan.feed_index.find(in);
      if (it != plan.feed_index.end()) t = &feeds[it->second].value;
    } else {
      const auto& outs = state.values[in.node];
      if (in.index < static_cast<int>(outs.size()) && outs[in.index].valid()) {
        t = &outs[in.index];
      }
    }
    if (t == nullptr) {
      state.Fail(absl::InvalidArgumentError(absl::StrCat(
          NodeContext(node), ": input ", i, " ('",
          graph.node(in.node).name(), ":", in.index,
          "') has no value")));
      return false;
    }
    inputs.push_back(t);
  }
  std::vector<Tensor> outputs;
  KernelContext ctx(inputs, &outputs, resources);
  absl::Status s = node.kernel->Run(ctx);
  if (!s.ok()) {
    state.Fail(WithContext(s, NodeContext(node)));
    return false;
  }
  state.values[id] = std::move(outputs);
  // Release inputs whose last planned consumer this was.
  absl::InlinedVector<int, 8> preds;
  for (const Endpoint& in : node.inputs) preds.push_back(in.node);
  for (int c : node.control_inputs) preds.push_back(c);
  std::sort(preds.begin(), preds.end());
  preds.erase(std::unique(preds.begin(), preds.end()), preds.end());
  for (int p : preds) {
    if (state.uses[p].fetch_sub(1, std::memory_order_acq_rel) == 1 &&
        !plan.fetched[p] && !plan.fed[p]) {
      state.values[p].clear();
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> Executor::Run(
    absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches,
    ResourceManager* resources_override) const {
  ResourceManager* resources =
      resources_override != nullptr ? resources_override : resources_;
  GRAPHRT_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                           GetPlan(feeds, fetches));
  if (plan->dataflow != nullptr) {
    absl::StatusOr<std::vector<Tensor>> result;
    auto run = [&] {
      result = RunDataflow(*graph_, *plan->dataflow, feeds, fetches,
                           resources);
    };
    if (arena_ != nullptr) {
      arena_->execute(run);
    } else {
      run();
    }
    return result;
  }
  const int n = graph_->num_nodes();
  RunState state(*plan, n);
  if (arena_ == nullptr || plan->order.size() <= 1) {
    for (int id : plan->order) {
      if (!RunNode(*graph_, *plan, state, feeds, resources, id)) break;
    }
  } else {
    arena_->execute([&] {
      oneapi::tbb::task_group group;
      // Runs `id`, then keeps going with one ready successor on this thread
      // and spawns the others.
      std::function<void(int)> process = [&](int id) {
        while (id >= 0) {
          if (!RunNode(*graph_, *plan, state, feeds, resources, id)) return;
          int next = -1;
          for (int s : plan->successors[id]) {
            if (state.pending[s].fetch_sub(1, std::memory_order_acq_rel) == 1) {
              if (next < 0) {
                next = s;
              } else {
                group.run([&process, s] { process(s); });
              }
            }
          }
          id = next;
        }
      };
      for (size_t i = 1; i < plan->ready.size(); ++i) {
        int id = plan->ready[i];
        group.run([&process, id] { process(id); });
      }
      if (!plan->ready.empty()) process(plan->ready[0]);
      group.wait();
    });
  }
  if (state.failed.load(std::memory_order_acquire)) {
    absl::MutexLock lock(&state.mu);
    return state.status;
  }
  std::vector<Tensor> results;
  results.reserve(fetches.size());
  for (const Endpoint& e : fetches) {
    const Node& node = graph_->node(e.node);
    if (plan->fed[e.node]) {
      auto it = plan->feed_index.find(e);
      if (it == plan->feed_index.end()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output '", node.name(), ":", e.index,
            "' belongs to a fed node but was not fed itself"));
      }
      results.push_back(feeds[it->second].value);
      continue;
    }
    const auto& outs = state.values[e.node];
    if (e.index >= static_cast<int>(outs.size()) || !outs[e.index].valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodeContext(node), " has no output ", e.index,
                       " (it produced ", outs.size(), ")"));
    }
    results.push_back(outs[e.index]);
  }
  return results;
}

}  // namespace graphrt
