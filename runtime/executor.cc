#include "runtime/executor.h"

#include <atomic>
#include <chrono>
#include <deque>

#include "absl/strings/str_cat.h"
#include "oneapi/tbb/task_arena.h"
#include "runtime/dataflow_executor.h"
#include "runtime/parallel.h"
#include "runtime/scratch_outputs.h"
#include "runtime/status_macros.h"

namespace graphrt {

struct RunState;

struct Plan {
  std::vector<Endpoint> feed_endpoints;      // the cache key: feeds in order
  std::vector<Endpoint> fetch_endpoints;     // and fetches in order
  std::vector<int> order;                    // nodes to run, topological
  std::vector<int> initial_pending;          // per node id
  std::vector<std::vector<int>> successors;  // per node id, planned only
  std::vector<std::vector<int>> preds;       // per node id: unique predecessors
  std::vector<int> initial_uses;             // per node id: planned consumers
  std::vector<char> fetched;                 // per node id
  std::vector<int> ready;                    // nodes with no pending inputs
  absl::flat_hash_map<Endpoint, int> feed_index;  // endpoint -> feed #
  std::vector<char> fed;                          // per node id
  // Per node id: the value of a planned Const node that is neither fed nor
  // fetched (its Node::constant), else null. Such a node's kernel is not
  // called: consumers read the value in place, so a Run neither copies nor
  // reference-counts it (two concurrent Runs would both write the count's
  // cache line, once per Const per Run).
  std::vector<const Tensor*> static_values;
  // Set when the pruned graph has v1 control flow: run frame-aware.
  std::unique_ptr<DataflowPlan> dataflow;

  // Bookkeeping of finished Runs, reused by later ones.
  mutable Mutex states_mu;
  mutable std::vector<std::unique_ptr<RunState>> free_states
      ABSL_GUARDED_BY(states_mu);
};

namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

uint64_t PlanHash(absl::Span<const Feed> feeds,
                  absl::Span<const Endpoint> fetches) {
  uint64_t h = Mix(feeds.size(), fetches.size());
  for (const Feed& f : feeds) {
    h = Mix(Mix(h, f.endpoint.node), f.endpoint.index);
  }
  for (const Endpoint& e : fetches) h = Mix(Mix(h, e.node), e.index);
  return h;
}

bool PlanMatches(const Plan& plan, absl::Span<const Feed> feeds,
                 absl::Span<const Endpoint> fetches) {
  if (plan.feed_endpoints.size() != feeds.size() ||
      plan.fetch_endpoints.size() != fetches.size()) {
    return false;
  }
  for (size_t i = 0; i < feeds.size(); ++i) {
    if (!(plan.feed_endpoints[i] == feeds[i].endpoint)) return false;
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    if (!(plan.fetch_endpoints[i] == fetches[i])) return false;
  }
  return true;
}

// Tags the buffers each Run allocates (live-byte accounting).
std::atomic<uint64_t> next_run_tag{1};

}  // namespace

// Per-Run mutable state; owned by a Plan's free list between Runs.
struct RunState {
  // `threads`: the arena's concurrency (1 without an arena).
  RunState(int n, int threads)
      : values(n),
        pending(new std::atomic<int>[n]),
        uses(new std::atomic<int>[n]),
        counted_bytes(n, 0),
        scratch(threads) {
    for (ScratchSlot& slot : scratch) {
      slot.Fill(KernelContext::kReservedOutputs);
    }
  }

  void Reset(const Plan& plan, int n, uint64_t tag) {
    for (int i = 0; i < n; ++i) {
      pending[i].store(plan.initial_pending[i], std::memory_order_relaxed);
      uses[i].store(plan.initial_uses[i], std::memory_order_relaxed);
    }
    failed.store(false, std::memory_order_relaxed);
    live_bytes.store(0, std::memory_order_relaxed);
    status = absl::OkStatus();
    run_tag = tag;
  }
  // Drops every value (the slots keep their capacity).
  void Clear() {
    for (auto& v : values) v.clear();
  }

  std::vector<std::vector<Tensor>> values;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::unique_ptr<std::atomic<int>[]> uses;
  std::vector<int64_t> counted_bytes;  // per node: bytes added to live_bytes
  // Per arena thread index: the vector its kernels write outputs into
  // (runtime/scratch_outputs.h).
  std::vector<ScratchSlot> scratch;  // never resized
  std::atomic<int64_t> live_bytes{0};
  uint64_t run_tag = 0;
  std::atomic<bool> failed{false};
  Mutex mu;
  absl::Status status;

  void Fail(absl::Status s) {
    MutexLock lock(&mu);
    if (status.ok()) status = std::move(s);
    failed.store(true, std::memory_order_release);
  }
};

namespace {

// Takes a RunState from the plan's free list (or makes one) and gives it
// back, cleared, when destroyed.
class RunStateLease {
 public:
  RunStateLease(const Plan& plan, int n, int threads) : plan_(plan) {
    {
      MutexLock lock(&plan.states_mu);
      if (!plan.free_states.empty()) {
        state_ = std::move(plan.free_states.back());
        plan.free_states.pop_back();
      } else {
        // Capacity grows by one per state ever made, so giving states back
        // never allocates.
        plan.free_states.reserve(plan.free_states.capacity() + 1);
      }
    }
    if (state_ == nullptr) state_ = std::make_unique<RunState>(n, threads);
    state_->Reset(plan, n,
                  next_run_tag.fetch_add(1, std::memory_order_relaxed));
  }
  ~RunStateLease() {
    state_->Clear();
    MutexLock lock(&plan_.states_mu);
    plan_.free_states.push_back(std::move(state_));
  }
  RunState& operator*() const { return *state_; }
  RunState* operator->() const { return state_.get(); }

 private:
  const Plan& plan_;
  std::unique_ptr<RunState> state_;
};

}  // namespace

Executor::Executor(const Graph* graph, ResourceManager* resources,
                   oneapi::tbb::task_arena* arena, ExecutorOptions options)
    : graph_(graph),
      resources_(resources),
      arena_(arena),
      options_(options),
      pool_(BufferPool::Create()) {}

Executor::~Executor() = default;

bool Executor::FlushDenormals() const {
  switch (options_.denormals) {
    case Denormals::kFlushToZero:
      return true;
    case Denormals::kIeee:
      return false;
    case Denormals::kAsCaller:
      break;
  }
  return CurrentThreadContext().flush_denormals;
}

absl::StatusOr<std::shared_ptr<const Plan>> Executor::GetPlan(
    absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches) const {
  const uint64_t key = PlanHash(feeds, fetches);
  {
    MutexLock lock(&mu_);
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      for (const auto& plan : it->second) {
        if (PlanMatches(*plan, feeds, fetches)) return plan;
      }
    }
  }
  const int n = graph_->num_nodes();
  auto plan = std::make_shared<Plan>();
  for (const Feed& f : feeds) plan->feed_endpoints.push_back(f.endpoint);
  plan->fetch_endpoints.assign(fetches.begin(), fetches.end());
  plan->fed.assign(n, 0);
  plan->fetched.assign(n, 0);
  for (size_t i = 0; i < feeds.size(); ++i) {
    plan->fed[feeds[i].endpoint.node] = 1;
    plan->feed_index[feeds[i].endpoint] = static_cast<int>(i);
  }
  for (const Endpoint& e : fetches) {
    const Node& node = graph_->node(e.node);
    if (!plan->fed[e.node] && IsReleasedConst(node.constant)) {
      return absl::FailedPreconditionError(absl::StrCat(
          graph_->what(), ": cannot fetch ", NodeContext(node), " ",
          node.constant.DebugString(),
          ": its consumers adopted the value at load (packed weights) and "
          "its own copy was released"));
    }
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
      return absl::InvalidArgumentError(
          absl::StrCat("missing input '", node.name(),
                       "': the requested outputs need it and it was not fed"));
    }
    if (IsControlFlowOp(node.op())) control_flow = true;
  }
  if (control_flow) {
    GRAPHRT_ASSIGN_OR_RETURN(plan->dataflow,
                             DataflowPlan::Build(*graph_, needed, plan->fed));
    MutexLock lock(&mu_);
    plans_[key].push_back(plan);
    return plan;
  }
  plan->initial_pending.assign(n, 0);
  plan->initial_uses.assign(n, 0);
  plan->static_values.assign(n, nullptr);
  for (int id = 0; id < n; ++id) {
    const Node& node = graph_->node(id);
    if (needed[id] && !plan->fed[id] && !plan->fetched[id] &&
        node.op() == "Const" && node.constant.valid()) {
      plan->static_values[id] = &node.constant;
    }
  }
  plan->successors.resize(n);
  plan->preds.resize(n);
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
    plan->preds[id] = std::move(preds);
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
  MutexLock lock(&mu_);
  // Two threads may have planned the same key at once; keep the first.
  std::vector<std::shared_ptr<Plan>>& bucket = plans_[key];
  for (const auto& existing : bucket) {
    if (PlanMatches(*existing, feeds, fetches)) return existing;
  }
  bucket.push_back(plan);
  return plan;
}

absl::StatusOr<int> Executor::CountNodes(
    absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches) const {
  GRAPHRT_ASSIGN_OR_RETURN(auto plan, GetPlan(feeds, fetches));
  return static_cast<int>(plan->order.size());
}

namespace {

// What every node of one Run shares.
struct RunContext {
  const Graph& graph;
  const Plan& plan;
  RunState& state;
  absl::Span<const Feed> feeds;
  ResourceManager* resources;
  BufferPool* pool;
  int64_t max_live_bytes;
  Profiler* profiler;
  bool flush_denormals;
  JobSystem* job_system;  // the host's, for the kernels' loops; or null
};

// Adds the bytes of the buffers this Run allocated for `id`'s outputs
// (buffers shared with an input or an earlier output counted once) and
// checks the limit.
bool AccountOutputs(const RunContext& run, const Node& node, int id,
                    absl::Span<const Tensor* const> inputs) {
  RunState& state = run.state;
  const std::vector<Tensor>& outputs = state.values[id];
  int64_t added = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Buffer* b = outputs[i].buffer();
    if (b == nullptr || b->run_tag() != state.run_tag) continue;
    bool seen = false;
    for (const Tensor* in : inputs) seen = seen || in->buffer() == b;
    for (size_t j = 0; j < i; ++j) seen = seen || outputs[j].buffer() == b;
    if (!seen) added += static_cast<int64_t>(b->size());
  }
  state.counted_bytes[id] = added;
  int64_t live =
      state.live_bytes.fetch_add(added, std::memory_order_relaxed) + added;
  if (live > run.max_live_bytes) {
    state.Fail(absl::ResourceExhaustedError(absl::StrCat(
        NodeContext(node), ": live tensors reach ", live,
        " bytes, over the memory limit of ", run.max_live_bytes, " bytes")));
    return false;
  }
  return true;
}

// Releases the values of `id`'s predecessors whose last planned consumer
// `id` was.
void ReleaseInputs(const RunContext& run, int id) {
  RunState& state = run.state;
  const Plan& plan = run.plan;
  for (int p : plan.preds[id]) {
    if (state.uses[p].fetch_sub(1, std::memory_order_acq_rel) == 1 &&
        !plan.fetched[p] && !plan.fed[p]) {
      state.values[p].clear();
      if (run.max_live_bytes > 0) {
        state.live_bytes.fetch_sub(state.counted_bytes[p],
                                   std::memory_order_relaxed);
      }
    }
  }
}

// The scratch vector of the calling thread in `state`: without an arena
// nodes run one at a time; in one, each thread has its own index.
ScratchSlot& ScratchHome(RunState& state) {
  if (state.scratch.size() == 1) return state.scratch[0];
  const int i = oneapi::tbb::this_task_arena::current_thread_index();
  if (i >= 0 && i < static_cast<int>(state.scratch.size())) {
    return state.scratch[i];
  }
  return ScratchOutputs::ThreadSlot();
}

// Runs one node; returns false if the Run has failed.
bool RunNode(const RunContext& run, int id) {
  const Graph& graph = run.graph;
  const Plan& plan = run.plan;
  RunState& state = run.state;
  if (state.failed.load(std::memory_order_acquire)) return false;
  if (plan.static_values[id] != nullptr) {  // consumers read it in place
    ReleaseInputs(run, id);
    return true;
  }
  const Node& node = graph.node(id);
  // Inline up to 32 inputs (Concat nodes of up to 17 in the corpus): no
  // heap call per node.
  absl::InlinedVector<const Tensor*, 32> inputs;
  inputs.reserve(node.inputs.size());
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const Endpoint& in = node.inputs[i];
    const Tensor* t = nullptr;
    if (plan.static_values[in.node] != nullptr) {
      if (in.index == 0) t = plan.static_values[in.node];
    } else if (plan.fed[in.node]) {
      auto it = plan.feed_index.find(in);
      if (it != plan.feed_index.end()) t = &run.feeds[it->second].value;
    } else {
      const auto& outs = state.values[in.node];
      if (in.index < static_cast<int>(outs.size()) && outs[in.index].valid()) {
        t = &outs[in.index];
      }
    }
    if (t == nullptr) {
      state.Fail(absl::InvalidArgumentError(absl::StrCat(
          NodeContext(node), ": input ", i, " ('", graph.node(in.node).name(),
          ":", in.index, "') has no value")));
      return false;
    }
    inputs.push_back(t);
  }
  // Inputs this node may overwrite (KernelContext::forward_input_to_output):
  // values whose every other consumer has finished (uses == 1 counts this
  // node alone), neither fed nor fetched, passed to this node once; or
  // (`shared`, forward_shared_input_to_output) passed several times, every
  // time the same output of the producer.
  uint64_t forwardable = 0, shared = 0;
  for (size_t i = 0; i < node.inputs.size() && i < 64; ++i) {
    const Endpoint& in = node.inputs[i];
    const int p = in.node;
    if (plan.fed[p] || plan.fetched[p] || plan.static_values[p] != nullptr ||
        state.uses[p].load(std::memory_order_acquire) != 1) {
      continue;
    }
    bool once = true, same_value = true;
    for (size_t j = 0; j < node.inputs.size(); ++j) {
      if (j == i || node.inputs[j].node != p) continue;
      once = false;
      same_value = same_value && node.inputs[j].index == in.index;
    }
    if (once) {
      forwardable |= uint64_t{1} << i;
    } else if (same_value) {
      shared |= uint64_t{1} << i;
    }
  }
  {
    // The node's value slot keeps its capacity across Runs of the plan
    // (runtime/scratch_outputs.h).
    ScratchOutputs scratch(ScratchHome(state));
    KernelContext ctx(inputs, &scratch.outputs(), run.resources);
    ctx.set_forwardable_inputs(forwardable, shared);
    ScopedThreadContext scope(ThreadContext{
        run.pool, state.run_tag, run.flush_denormals, run.job_system});
    const bool profile = run.profiler != nullptr && run.profiler->enabled();
    const auto start = profile ? std::chrono::steady_clock::now()
                               : std::chrono::steady_clock::time_point();
    absl::Status s = node.kernel->Run(ctx);
    scratch.MoveTo(state.values[id]);
    if (profile && s.ok()) {
      const std::chrono::duration<double> took =
          std::chrono::steady_clock::now() - start;
      run.profiler->Record(
          &node, node.name(), node.op(), took.count(),
          Profiler::EstimateFlops(node.op(), inputs, state.values[id]));
    }
    if (!s.ok()) {
      state.Fail(WithContext(s, NodeContext(node)));
      return false;
    }
  }
  if (run.max_live_bytes > 0 && !AccountOutputs(run, node, id, inputs)) {
    return false;
  }
  ReleaseInputs(run, id);
  return true;
}

// Runs `id` on this thread, then keeps going with one ready successor and
// spawns the others into `group`.
struct ParallelRunner {
  const RunContext& run;
  TaskGroup& group;

  void Process(int id) const {
    while (id >= 0) {
      if (!RunNode(run, id)) return;
      int next = -1;
      for (int s : run.plan.successors[id]) {
        if (run.state.pending[s].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          if (next < 0) {
            next = s;
          } else {
            group.Run([this, s] { Process(s); });
          }
        }
      }
      id = next;
    }
  }
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> Executor::Run(
    absl::Span<const Feed> feeds, absl::Span<const Endpoint> fetches,
    ResourceManager* resources_override) const {
  std::vector<Tensor> results(fetches.size());
  GRAPHRT_RETURN_IF_ERROR(
      RunInto(feeds, fetches, absl::MakeSpan(results), resources_override));
  return results;
}

absl::Status Executor::RunInto(absl::Span<const Feed> feeds,
                               absl::Span<const Endpoint> fetches,
                               absl::Span<Tensor> results,
                               ResourceManager* resources_override) const {
  if (results.size() != fetches.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("RunInto got ", results.size(), " result slots for ",
                     fetches.size(), " fetches"));
  }
  ResourceManager* resources =
      resources_override != nullptr ? resources_override : resources_;
  GRAPHRT_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan,
                           GetPlan(feeds, fetches));
  if (plan->dataflow != nullptr) {
    absl::StatusOr<std::vector<Tensor>> result;
    const uint64_t tag = next_run_tag.fetch_add(1, std::memory_order_relaxed);
    auto run = [&] {
      ScopedThreadContext scope(ThreadContext{
          pool_.get(), tag, FlushDenormals(), options_.job_system});
      result = RunDataflow(*graph_, *plan->dataflow, feeds, fetches, resources,
                           options_.profiler);
    };
    if (arena_ != nullptr) {
      ExecuteInArena(*arena_, run);
    } else if (options_.job_system != nullptr) {
      run();
    } else {
      ScopedSequential sequential;
      run();
    }
    if (!result.ok()) return result.status();
    if (result->size() != results.size()) {
      return absl::InternalError(absl::StrCat("dataflow run returned ",
                                              result->size(), " tensors for ",
                                              results.size(), " fetches"));
    }
    for (size_t i = 0; i < results.size(); ++i) {
      results[i] = std::move((*result)[i]);
    }
    return absl::OkStatus();
  }
  const int n = graph_->num_nodes();
  RunStateLease state(*plan, n,
                      arena_ != nullptr ? arena_->max_concurrency() : 1);
  const RunContext run{*graph_,
                       *plan,
                       *state,
                       feeds,
                       resources,
                       pool_.get(),
                       options_.max_live_bytes,
                       options_.profiler,
                       FlushDenormals(),
                       options_.job_system};
  if (arena_ == nullptr && options_.job_system != nullptr) {
    for (int id : plan->order) {
      if (!RunNode(run, id)) break;
    }
  } else if (arena_ == nullptr) {
    ScopedSequential sequential;
    for (int id : plan->order) {
      if (!RunNode(run, id)) break;
    }
  } else if (plan->order.size() <= 1) {
    for (int id : plan->order) {
      if (!RunNode(run, id)) break;
    }
  } else {
    ExecuteInArena(*arena_, [&] {
      TaskGroup group;
      const ParallelRunner runner{run, group};
      for (size_t i = 1; i < plan->ready.size(); ++i) {
        int id = plan->ready[i];
        group.Run([&runner, id] { runner.Process(id); });
      }
      if (!plan->ready.empty()) runner.Process(plan->ready[0]);
      group.Wait();
    });
  }
  if (state->failed.load(std::memory_order_acquire)) {
    MutexLock lock(&state->mu);
    return state->status;
  }
  // Check every fetch before writing any result.
  for (const Endpoint& e : fetches) {
    const Node& node = graph_->node(e.node);
    if (plan->fed[e.node]) {
      if (!plan->feed_index.contains(e)) {
        return absl::InvalidArgumentError(
            absl::StrCat("output '", node.name(), ":", e.index,
                         "' belongs to a fed node but was not fed itself"));
      }
      continue;
    }
    const auto& outs = state->values[e.node];
    if (e.index >= static_cast<int>(outs.size()) || !outs[e.index].valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat(NodeContext(node), " has no output ", e.index,
                       " (it produced ", outs.size(), ")"));
    }
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    const Endpoint& e = fetches[i];
    if (plan->fed[e.node]) {
      results[i] = feeds[plan->feed_index.find(e)->second].value;
    } else {
      results[i] = state->values[e.node][e.index];
    }
  }
  return absl::OkStatus();
}

}  // namespace graphrt
