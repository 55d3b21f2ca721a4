#include "runtime/dataflow_executor.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "ops/attrs.h"
#include "runtime/executor.h"
#include "runtime/scratch_outputs.h"
#include "runtime/status_macros.h"
#include "runtime/variable.h"

namespace graphrt {

absl::Status SetMaxLoopIterations(ResourceManager& resources, int64_t limit) {
  auto created = resources.LookupOrCreate(
      kMaxLoopIterationsResource,
      []() -> absl::StatusOr<std::shared_ptr<Resource>> {
        return std::make_shared<Variable>(DType::kInt64,
                                          PartialShape(std::vector<int64_t>()));
      });
  if (!created.ok()) return created.status();
  auto* variable = dynamic_cast<Variable*>(created->get());
  if (variable == nullptr) {
    return absl::InternalError(absl::StrCat(
        "resource '", kMaxLoopIterationsResource, "' is not a Variable"));
  }
  return variable->Assign(Tensor::Scalar<int64_t>(limit));
}

int64_t MaxLoopIterations(const ResourceManager* resources) {
  if (resources == nullptr) return 0;
  std::shared_ptr<Resource> found =
      resources->Lookup(kMaxLoopIterationsResource);
  auto* variable = dynamic_cast<const Variable*>(found.get());
  if (variable == nullptr) return 0;
  absl::StatusOr<Tensor> value = variable->Read();
  if (!value.ok() || value->dtype() != DType::kInt64 ||
      value->num_elements() != 1) {
    return 0;
  }
  return std::max<int64_t>(0, *value->data<int64_t>());
}

bool IsControlFlowOp(absl::string_view op) {
  return op == "Switch" || op == "RefSwitch" || op == "Merge" ||
         op == "RefMerge" || op == "Enter" || op == "RefEnter" ||
         op == "Exit" || op == "RefExit" || op == "NextIteration" ||
         op == "RefNextIteration" || op == "LoopCond";
}

namespace {

using Kind = DataflowPlan::Kind;

Kind KindOf(absl::string_view op) {
  if (op == "Merge" || op == "RefMerge") return Kind::kMerge;
  if (op == "Enter" || op == "RefEnter") return Kind::kEnter;
  if (op == "Exit" || op == "RefExit") return Kind::kExit;
  if (op == "NextIteration" || op == "RefNextIteration") {
    return Kind::kNextIteration;
  }
  return Kind::kNormal;
}

}  // namespace

absl::StatusOr<std::unique_ptr<DataflowPlan>> DataflowPlan::Build(
    const Graph& graph, const std::vector<char>& needed,
    const std::vector<char>& fed) {
  const int n = graph.num_nodes();
  auto plan = std::make_unique<DataflowPlan>();
  plan->nodes.resize(n);
  for (int id = 0; id < n; ++id) {
    NodeInfo& info = plan->nodes[id];
    info.needed = needed[id];
    info.fed = fed[id];
    info.kind = KindOf(graph.node(id).op());
  }
  for (int id = 0; id < n; ++id) {
    NodeInfo& info = plan->nodes[id];
    if (!info.needed || info.fed) continue;
    const Node& node = graph.node(id);
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const Endpoint& in = node.inputs[k];
      plan->nodes[in.node].out.push_back({id, static_cast<int>(k), in.index});
      ++info.num_data;
    }
    for (int c : node.control_inputs) {
      plan->nodes[c].out.push_back({id, -1, 0});
      ++info.num_control;
    }
    if (info.num_data + info.num_control == 0) plan->sources.push_back(id);
  }
  // Static frames: walk forward from the sources and fed nodes (root).
  plan->frames.push_back({"", -1, 0, {}});
  absl::flat_hash_map<std::pair<int, std::string>, int> frame_ids;
  std::vector<int> frame_of(n, -1);
  std::deque<int> queue;
  for (int id = 0; id < n; ++id) {
    if (plan->nodes[id].needed &&
        (plan->nodes[id].fed ||
         (plan->nodes[id].num_data + plan->nodes[id].num_control == 0))) {
      frame_of[id] = 0;
      queue.push_back(id);
    }
  }
  while (!queue.empty()) {
    int id = queue.front();
    queue.pop_front();
    NodeInfo& info = plan->nodes[id];
    const Node& node = graph.node(id);
    int f = frame_of[id];
    info.frame = f;
    int out_frame = f;
    if (info.kind == Kind::kEnter && !info.fed) {
      AttrReader attrs(*node.def);
      GRAPHRT_ASSIGN_OR_RETURN(std::string name,
                               attrs.GetString("frame_name", ""));
      GRAPHRT_ASSIGN_OR_RETURN(info.is_constant,
                               attrs.GetBool("is_constant", false));
      auto [it, inserted] = frame_ids.try_emplace(
          std::make_pair(f, name), static_cast<int>(plan->frames.size()));
      if (inserted) plan->frames.push_back({name, f, 0, {}});
      info.child_frame = it->second;
      plan->frames[info.child_frame].num_enters++;
      out_frame = info.child_frame;
    } else if (info.kind == Kind::kExit && !info.fed) {
      if (f == 0) {
        return absl::InvalidArgumentError(
            absl::StrCat(NodeContext(node), " is an Exit outside any loop"));
      }
      plan->frames[f].exits.push_back(id);
      out_frame = plan->frames[f].parent;
    } else if (info.kind == Kind::kNextIteration && f == 0 && !info.fed) {
      return absl::InvalidArgumentError(absl::StrCat(
          NodeContext(node), " is a NextIteration outside any loop"));
    }
    for (const OutEdge& e : info.out) {
      if (frame_of[e.dst] < 0) {
        frame_of[e.dst] = out_frame;
        queue.push_back(e.dst);
      } else if (frame_of[e.dst] != out_frame) {
        return absl::InvalidArgumentError(absl::StrCat(
            NodeContext(graph.node(e.dst)), " has inputs from two frames ('",
            plan->frames[frame_of[e.dst]].name, "' and '",
            plan->frames[out_frame].name, "')"));
      }
    }
  }
  // Acyclic apart from NextIteration back edges (Kahn's algorithm).
  std::vector<int> pending(n, 0);
  for (int id = 0; id < n; ++id) {
    if (!needed[id] || fed[id]) continue;
    for (const OutEdge& e : plan->nodes[id].out) {
      if (plan->nodes[id].kind != Kind::kNextIteration) ++pending[e.dst];
    }
  }
  std::vector<int> stack;
  int planned = 0, done = 0;
  for (int id = 0; id < n; ++id) {
    if (!needed[id] || fed[id]) continue;
    ++planned;
    if (pending[id] == 0) stack.push_back(id);
  }
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    ++done;
    if (plan->nodes[id].kind == Kind::kNextIteration) continue;
    for (const OutEdge& e : plan->nodes[id].out) {
      if (--pending[e.dst] == 0) stack.push_back(e.dst);
    }
  }
  if (done != planned) {
    for (int id = 0; id < n; ++id) {
      if (needed[id] && !fed[id] && pending[id] > 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            graph.what(), " has a cycle through ", NodeContext(graph.node(id)),
            " that is not a loop (no NextIteration on it)"));
      }
    }
  }
  return plan;
}

namespace {

struct Entry {
  Tensor value;
  bool dead = false;
};

// A node's outputs, or the inputs gathered for it: inline up to 4 (no heap
// call per node activation for the common ops).
using EntryList = absl::InlinedVector<Entry, 4>;

struct Slots {
  EntryList data;
  absl::InlinedVector<char, 4> arrived;
  int remaining = 0;
  int control_remaining = 0;
  int live = 0;
  int dead_data = 0;
  bool any_dead = false;
  bool fired = false;  // a Merge that fired, kept until all inputs arrive
};

struct Frame;

struct Iteration {
  absl::flat_hash_map<int, Slots> slots;
  int outstanding = 0;  // unfired slots + queued nodes
};

struct Frame {
  int id = 0;
  Frame* parent = nullptr;
  int64_t parent_iter = 0;
  std::map<int64_t, std::unique_ptr<Iteration>> iters;
  int64_t max_iter = -1;
  int pending_enters = 0;
  struct Constant {
    int dst;
    int slot;
    Entry entry;
  };
  std::vector<Constant> constants;
  absl::flat_hash_set<int> exits_live;
  std::map<std::pair<int64_t, int>, std::unique_ptr<Frame>> children;
};

struct Ready {
  int node;
  Frame* frame;
  int64_t iter;
  Slots slots;
};

class DataflowRun {
 public:
  DataflowRun(const Graph& graph, const DataflowPlan& plan,
              ResourceManager* resources, absl::Span<const Endpoint> fetches,
              Profiler* profiler)
      : graph_(graph),
        plan_(plan),
        resources_(resources),
        profiler_(profiler),
        max_loop_iterations_(MaxLoopIterations(resources)) {
    root_.id = 0;
    root_.iters[0] = std::make_unique<Iteration>();
    root_.max_iter = 0;
    for (size_t i = 0; i < fetches.size(); ++i) {
      fetch_slots_[fetches[i].node].push_back(static_cast<int>(i));
    }
    fetched_.resize(fetches.size());
    fetch_done_.assign(fetches.size(), 0);
    fetches_ = fetches;
  }

  absl::Status Start(absl::Span<const Feed> feeds) {
    for (int id = 0; id < graph_.num_nodes(); ++id) {
      const auto& info = plan_.nodes[id];
      if (!info.needed || !info.fed) continue;
      // Only outputs something reads matter; a feed of "x:2000000000" must
      // not size the output vector from a caller-chosen index.
      int64_t used_outputs = 0;
      for (const auto& e : info.out) {
        if (e.slot >= 0) {
          used_outputs = std::max(used_outputs, int64_t{e.src_output} + 1);
        }
      }
      for (const Endpoint& fetch : fetches_) {
        if (fetch.node == id) {
          used_outputs = std::max(used_outputs, int64_t{fetch.index} + 1);
        }
      }
      EntryList outs;
      for (const Feed& f : feeds) {
        if (f.endpoint.node != id || f.endpoint.index >= used_outputs) continue;
        if (static_cast<int>(outs.size()) <= f.endpoint.index) {
          outs.resize(f.endpoint.index + 1, Entry{Tensor(), true});
        }
        outs[f.endpoint.index] = Entry{f.value, false};
      }
      Capture(id, &root_, outs);
      for (const auto& e : info.out) {
        if (e.slot >= 0 && (e.src_output >= static_cast<int>(outs.size()) ||
                            outs[e.src_output].dead)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "output ", e.src_output, " of fed node '", graph_.node(id).name(),
              "' is used but was not fed"));
        }
        GRAPHRT_RETURN_IF_ERROR(
            Deliver(e.dst, e.slot, e.slot >= 0 ? outs[e.src_output] : Entry{},
                    &root_, 0));
      }
    }
    // The sources (every Const among them) are taken one at a time, last
    // first, whenever the queue is down to what the feeds made ready: the
    // order of pushing them all on top of it up front, without a queue of
    // one Ready (~0.5 KB) per source. handtrack has ~700; the queue's
    // growth to 330 KB was a fresh mapping, faulted in and unmapped on
    // every Run (1.4% of its time).
    root_.iters[0]->outstanding += static_cast<int>(plan_.sources.size());
    next_source_ = plan_.sources.size();
    fed_ready_ = ready_.size();
    return absl::OkStatus();
  }

  absl::Status Loop() {
    while (true) {
      if (ready_.size() > fed_ready_ ||
          (next_source_ == 0 && !ready_.empty())) {
        Ready r = std::move(ready_.back());
        ready_.pop_back();
        GRAPHRT_RETURN_IF_ERROR(Process(r));
      } else if (next_source_ > 0) {
        Ready r{plan_.sources[--next_source_], &root_, 0, Slots()};
        GRAPHRT_RETURN_IF_ERROR(Process(r));
      } else {
        return absl::OkStatus();
      }
    }
  }

  absl::StatusOr<std::vector<Tensor>> Results() {
    std::vector<Tensor> out;
    for (size_t i = 0; i < fetches_.size(); ++i) {
      const Node& node = graph_.node(fetches_[i].node);
      if (!fetch_done_[i] || !fetched_[i].valid()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "output '", node.name(), ":", fetches_[i].index,
            "' was not computed: its branch was not taken (dead tensor) or "
            "its inputs never arrived"));
      }
      out.push_back(fetched_[i]);
    }
    return out;
  }

 private:
  Iteration* GetIteration(Frame* frame, int64_t iter) {
    auto it = frame->iters.find(iter);
    if (it != frame->iters.end()) return it->second.get();
    auto& slot = frame->iters[iter];
    slot = std::make_unique<Iteration>();
    Iteration* created = slot.get();
    if (iter > frame->max_iter) frame->max_iter = iter;
    for (const auto& c : frame->constants) {
      pending_constants_.push_back({frame, iter, c.dst, c.slot, c.entry});
    }
    return created;
  }

  absl::Status FlushConstants() {
    if (flushing_) return absl::OkStatus();  // the outer call drains the list
    flushing_ = true;
    absl::Status status;
    while (status.ok() && !pending_constants_.empty()) {
      auto pc = std::move(pending_constants_.back());
      pending_constants_.pop_back();
      status = Deliver(pc.dst, pc.slot, pc.entry, pc.frame, pc.iter);
    }
    flushing_ = false;
    return status;
  }

  absl::Status Deliver(int dst, int slot, const Entry& entry, Frame* frame,
                       int64_t iter) {
    const auto& info = plan_.nodes[dst];
    Iteration* it = GetIteration(frame, iter);
    auto [pos, inserted] = it->slots.try_emplace(dst);
    Slots& s = pos->second;
    if (inserted) {
      s.data.resize(info.num_data);
      s.arrived.assign(info.num_data, 0);
      s.remaining = info.num_data + info.num_control;
      s.control_remaining = info.num_control;
      it->outstanding++;
    }
    if (slot >= 0) {
      if (s.arrived[slot]) {
        return absl::InternalError(
            absl::StrCat(NodeContext(graph_.node(dst)), ": input ", slot,
                         " arrived twice in one iteration"));
      }
      s.arrived[slot] = 1;
      if (!s.fired) s.data[slot] = entry;
      if (entry.dead) {
        s.dead_data++;
        s.any_dead = true;
      } else {
        s.live++;
      }
    } else {
      s.control_remaining--;
      if (entry.dead && info.kind != Kind::kMerge) s.any_dead = true;
    }
    s.remaining--;
    if (info.kind == Kind::kMerge) {
      if (!s.fired && s.control_remaining == 0 &&
          (s.live > 0 || s.dead_data == info.num_data)) {
        s.fired = true;
        ready_.push_back(Ready{dst, frame, iter, s});
      }
      if (s.fired && s.remaining == 0) it->slots.erase(pos);
    } else if (s.remaining == 0) {
      ready_.push_back(Ready{dst, frame, iter, std::move(s)});
      it->slots.erase(pos);
    }
    return FlushConstants();
  }

  void Capture(int id, Frame* frame, absl::Span<const Entry> outs) {
    if (frame != &root_) return;
    auto it = fetch_slots_.find(id);
    if (it == fetch_slots_.end()) return;
    for (int i : it->second) {
      int index = fetches_[i].index;
      fetch_done_[i] = 1;
      if (index < static_cast<int>(outs.size()) && !outs[index].dead) {
        fetched_[i] = outs[index].value;
      }
    }
  }

  absl::Status Process(Ready& r) {
    const auto& info = plan_.nodes[r.node];
    const Node& node = graph_.node(r.node);
    EntryList outs;
    bool dead = false;
    if (info.kind == Kind::kMerge) {
      int chosen = -1;
      for (int k = 0; k < info.num_data; ++k) {
        if (r.slots.arrived[k] && !r.slots.data[k].dead) {
          chosen = k;
          break;
        }
      }
      if (chosen < 0) {
        dead = true;
      } else {
        outs.push_back(r.slots.data[chosen]);
        outs.push_back(Entry{Tensor::Scalar<int32_t>(chosen), false});
      }
    } else if (r.slots.any_dead) {
      dead = true;
    } else {
      absl::InlinedVector<const Tensor*, 32> inputs;
      inputs.reserve(r.slots.data.size());
      for (const Entry& e : r.slots.data) inputs.push_back(&e.value);
      ScratchOutputs scratch;
      KernelContext ctx(inputs, &scratch.outputs(), resources_);
      const bool profile = profiler_ != nullptr && profiler_->enabled();
      const auto start = profile ? std::chrono::steady_clock::now()
                                 : std::chrono::steady_clock::time_point();
      absl::Status s = node.kernel->Run(ctx);
      if (!s.ok()) return WithContext(s, NodeContext(node));
      if (profile) {
        const std::chrono::duration<double> took =
            std::chrono::steady_clock::now() - start;
        profiler_->Record(
            &node, node.name(), node.op(), took.count(),
            Profiler::EstimateFlops(node.op(), inputs, scratch.outputs()));
      }
      r.slots = Slots();  // release inputs before propagating
      std::vector<Tensor>& results = scratch.outputs();
      outs.reserve(results.size());
      for (Tensor& t : results) {
        bool valid = t.valid();
        outs.push_back(Entry{std::move(t), !valid});
      }
    }
    auto out_entry = [&](int index) {
      if (dead || index >= static_cast<int>(outs.size())) {
        return Entry{Tensor(), true};
      }
      return outs[index];
    };
    // An Exit's outputs live in the parent frame (fetchable at the root).
    Frame* out_frame = info.kind == Kind::kExit ? r.frame->parent : r.frame;
    if (info.kind != Kind::kEnter) {
      Capture(r.node, out_frame, dead ? absl::Span<const Entry>() : outs);
    }
    switch (info.kind) {
      case Kind::kEnter: {
        auto key = std::make_pair(r.iter, info.child_frame);
        auto& child = r.frame->children[key];
        if (child == nullptr) {
          child = std::make_unique<Frame>();
          child->id = info.child_frame;
          child->parent = r.frame;
          child->parent_iter = r.iter;
          child->pending_enters = plan_.frames[info.child_frame].num_enters;
        }
        Frame* f = child.get();
        f->pending_enters--;
        GetIteration(f, 0);
        for (const auto& e : info.out) {
          Entry entry =
              e.slot >= 0 ? out_entry(e.src_output) : Entry{Tensor(), dead};
          if (info.is_constant) {
            f->constants.push_back({e.dst, e.slot, entry});
            for (const auto& [iter, state] : f->iters) {
              pending_constants_.push_back({f, iter, e.dst, e.slot, entry});
            }
            GRAPHRT_RETURN_IF_ERROR(FlushConstants());
          } else {
            GRAPHRT_RETURN_IF_ERROR(Deliver(e.dst, e.slot, entry, f, 0));
          }
        }
        GRAPHRT_RETURN_IF_ERROR(FlushConstants());
        GRAPHRT_RETURN_IF_ERROR(Finish(r.frame, r.iter));
        return Cleanup(f);
      }
      case Kind::kExit:
        if (!dead) {
          r.frame->exits_live.insert(r.node);
          for (const auto& e : info.out) {
            GRAPHRT_RETURN_IF_ERROR(Deliver(
                e.dst, e.slot, e.slot >= 0 ? out_entry(e.src_output) : Entry{},
                r.frame->parent, r.frame->parent_iter));
          }
        }
        break;
      case Kind::kNextIteration:
        if (!dead) {
          if (max_loop_iterations_ > 0 && r.iter >= max_loop_iterations_) {
            return absl::ResourceExhaustedError(absl::StrCat(
                NodeContext(node), " in loop '", plan_.frames[info.frame].name,
                "': the loop body ran ", r.iter + 1,
                " times, more than max_loop_iterations = ",
                max_loop_iterations_));
          }
          for (const auto& e : info.out) {
            GRAPHRT_RETURN_IF_ERROR(Deliver(
                e.dst, e.slot, e.slot >= 0 ? out_entry(e.src_output) : Entry{},
                r.frame, r.iter + 1));
          }
        }
        break;
      default:
        for (const auto& e : info.out) {
          Entry entry =
              e.slot >= 0 ? out_entry(e.src_output) : Entry{Tensor(), dead};
          GRAPHRT_RETURN_IF_ERROR(
              Deliver(e.dst, e.slot, entry, r.frame, r.iter));
        }
    }
    return Finish(r.frame, r.iter);
  }

  // A queued node of (frame, iter) has run.
  absl::Status Finish(Frame* frame, int64_t iter) {
    auto it = frame->iters.find(iter);
    if (it != frame->iters.end()) it->second->outstanding--;
    return Cleanup(frame);
  }

  // Frees finished iterations (lowest first); when a loop frame has nothing
  // left, sends dead values through its Exits that never saw a live one and
  // frees it.
  absl::Status Cleanup(Frame* frame) {
    if (frame == &root_) return absl::OkStatus();
    while (!frame->iters.empty()) {
      auto lowest = frame->iters.begin();
      int64_t iter = lowest->first;
      bool has_children = false;
      for (const auto& [key, child] : frame->children) {
        if (key.first == iter) has_children = true;
      }
      if (lowest->second->outstanding > 0 || has_children ||
          (iter == 0 && frame->pending_enters > 0)) {
        return absl::OkStatus();
      }
      frame->iters.erase(lowest);
    }
    if (frame->pending_enters > 0) return absl::OkStatus();
    Frame* parent = frame->parent;
    int64_t parent_iter = frame->parent_iter;
    for (int exit : plan_.frames[frame->id].exits) {
      if (frame->exits_live.contains(exit)) continue;
      for (const auto& e : plan_.nodes[exit].out) {
        GRAPHRT_RETURN_IF_ERROR(
            Deliver(e.dst, e.slot, Entry{Tensor(), true}, parent, parent_iter));
      }
    }
    parent->children.erase(std::make_pair(parent_iter, frame->id));
    return Cleanup(parent);
  }

  struct PendingConstant {
    Frame* frame;
    int64_t iter;
    int dst;
    int slot;
    Entry entry;
  };

  const Graph& graph_;
  const DataflowPlan& plan_;
  ResourceManager* resources_;
  Profiler* profiler_;                 // null: no timing
  const int64_t max_loop_iterations_;  // 0 = no limit
  Frame root_;
  std::vector<Ready> ready_;
  size_t next_source_ = 0;  // plan_.sources[0, next_source_) not yet run
  size_t fed_ready_ = 0;    // queue entries the feeds made ready in Start
  std::vector<PendingConstant> pending_constants_;
  bool flushing_ = false;
  absl::flat_hash_map<int, std::vector<int>> fetch_slots_;
  absl::Span<const Endpoint> fetches_;
  std::vector<Tensor> fetched_;
  std::vector<char> fetch_done_;
};

}  // namespace

absl::StatusOr<std::vector<Tensor>> RunDataflow(
    const Graph& graph, const DataflowPlan& plan, absl::Span<const Feed> feeds,
    absl::Span<const Endpoint> fetches, ResourceManager* resources,
    Profiler* profiler) {
  DataflowRun run(graph, plan, resources, fetches, profiler);
  GRAPHRT_RETURN_IF_ERROR(run.Start(feeds));
  GRAPHRT_RETURN_IF_ERROR(run.Loop());
  return run.Results();
}

}  // namespace graphrt
