// FoldConstants (passes.h): nodes whose inputs are all constants run once at
// load, through their own kernel, and become Consts. PruneConstantBranches:
// an If of a constant condition becomes a call of the branch it takes.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"
#include "ops/kernel.h"
#include "ops/registry.h"
#include "runtime/parallel.h"
#include "runtime/thread_context.h"

namespace graphrt {
namespace passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// Ops never folded: sources, state, resources, randomness, side effects,
// control flow and function calls (their value is not a function of their
// inputs alone, or they must run every time).
bool NeverFolded(const std::string& op) {
  static const auto* const kOps =
      new absl::flat_hash_set<std::string>{"Const",
                                           "Placeholder",
                                           "PlaceholderWithDefault",
                                           "NoOp",
                                           "ControlTrigger",
                                           "Switch",
                                           "RefSwitch",
                                           "Merge",
                                           "RefMerge",
                                           "Enter",
                                           "RefEnter",
                                           "Exit",
                                           "RefExit",
                                           "NextIteration",
                                           "RefNextIteration",
                                           "LoopCond",
                                           "If",
                                           "StatelessIf",
                                           "While",
                                           "StatelessWhile",
                                           "PartitionedCall",
                                           "StatefulPartitionedCall",
                                           "Case",
                                           "StatelessCase",
                                           "Assert",
                                           "Print",
                                           "PrintV2",
                                           "Timestamp",
                                           "Multinomial",
                                           "ParameterizedTruncatedNormal",
                                           "TruncatedNormal",
                                           "VarHandleOp",
                                           "ReadVariableOp",
                                           "VariableV2",
                                           "Variable",
                                           "Assign",
                                           "AssignAdd",
                                           "AssignSub",
                                           "AssignVariableOp",
                                           "AssignAddVariableOp",
                                           "AssignSubVariableOp",
                                           "VarIsInitializedOp",
                                           "DestroyResourceOp",
                                           "RestoreV2",
                                           "SaveV2",
                                           "MergeV2Checkpoints",
                                           "_Arg",
                                           "_Retval"};
  return kOps->contains(op) || absl::StrContains(op, "Random") ||
         absl::StrContains(op, "Table") ||
         absl::StrContains(op, "TensorList") ||
         absl::StrContains(op, "TensorArray") ||
         absl::StrContains(op, "Iterator") || absl::StrContains(op, "Queue") ||
         absl::StrContains(op, "Stack") || absl::StrContains(op, "Reader") ||
         absl::StrContains(op, "Variable") || absl::StrContains(op, "Shuffle");
}

bool FoldableDType(DType d) {
  return d != DType::kResource && d != DType::kVariant && d != DType::kInvalid;
}

// Bytes a value holds (strings: their characters).
int64_t ValueBytes(const Tensor& t) {
  if (t.dtype() != DType::kString) return static_cast<int64_t>(t.byte_size());
  int64_t bytes = 0;
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    bytes += static_cast<int64_t>(t.data<std::string>()[i].size());
  }
  return bytes;
}

// Outputs at most this large always fold; larger ones only when they are no
// larger than the inputs (a Fill or Tile of a scalar to a big shape stays a
// node: folding it would trade a few microseconds per Run for its bytes of
// memory for the model's lifetime).
constexpr int64_t kAlwaysFoldBytes = 64 * 1024;

}  // namespace

int FoldConstants(GraphDef* graph, WeightMap* weights, const KeepSet& keep,
                  const OpRegistry& registry) {
  // Constants: Consts without control inputs (a Const with one may sit in
  // a v1 control-flow frame), and later the folded nodes. Values by
  // "name:index" for index > 0, by name for output 0.
  absl::flat_hash_set<std::string> constant;
  for (const NodeDef& n : graph->node()) {
    if (n.op() == "Const" && !HasControlInputs(n)) constant.insert(n.name());
  }
  if (constant.empty()) return 0;
  // Cheap gate: some node reads only constants.
  auto reads_only_constants = [&](const NodeDef& n) {
    if (n.input_size() == 0) return false;
    for (const std::string& in : n.input()) {
      if (!constant.contains(NameView(in))) return false;
    }
    return true;
  };
  bool any = false;
  for (const NodeDef& n : graph->node()) {
    if (!constant.contains(n.name()) && reads_only_constants(n) &&
        !NeverFolded(n.op())) {
      any = true;
      break;
    }
  }
  if (!any) return 0;

  const auto uses_before = CountUses(*graph);
  absl::flat_hash_map<std::string, Tensor> values;  // "name" / "name:k"
  auto value_of = [&](const std::string& input) -> const Tensor* {
    const int index = OutputIndexOf(input);
    const std::string key = index == 0
                                ? std::string(NameView(input))
                                : absl::StrCat(NameView(input), ":", index);
    auto it = values.find(key);
    return it == values.end() ? nullptr : &it->second;
  };
  auto index = IndexByName(*graph);
  // Folded nodes' outputs above 0 that something reads: new Consts.
  std::vector<NodeDef> added;
  absl::flat_hash_map<std::string, std::string> renamed;  // "x:k" -> Const
  int folded = 0;
  // Load-time values: IEEE denormals (a default context), one thread, the
  // heap (no Run's buffer pool).
  ScopedThreadContext context(ThreadContext{});
  ScopedSequential sequential;
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < graph->node_size(); ++i) {
      NodeDef& n = *graph->mutable_node(i);
      if (constant.contains(n.name()) || NeverFolded(n.op()) ||
          keep.contains(n.name()) || !reads_only_constants(n)) {
        continue;
      }
      KernelFactory factory = registry.Find(n.op());
      if (factory == nullptr) continue;
      // Input values (copies share the buffers; pointers into `values`
      // would dangle when it grows), the Consts' read on first use.
      absl::InlinedVector<Tensor, 4> held;
      bool ok = true;
      int64_t in_bytes = 0;
      for (const std::string& in : n.input()) {
        if (IsControl(in)) continue;
        const Tensor* t = value_of(in);
        if (t == nullptr && OutputIndexOf(in) == 0) {
          auto c = index.find(NameView(in));
          if (c != index.end() && c->second >= 0) {
            auto v = ConstValue(graph->node(c->second), *weights);
            if (v.ok()) {
              t = &values.emplace(std::string(NameView(in)), *std::move(v))
                       .first->second;
            }
          }
        }
        if (t == nullptr || !FoldableDType(t->dtype())) {
          ok = false;
          break;
        }
        in_bytes += ValueBytes(*t);
        held.push_back(*t);
      }
      if (!ok) continue;
      absl::InlinedVector<const Tensor*, 4> inputs;
      for (const Tensor& t : held) inputs.push_back(&t);
      KernelInit init{n, static_cast<int>(inputs.size()), nullptr, nullptr};
      auto kernel = factory(init);
      if (!kernel.ok()) continue;  // Graph::Build reports it
      std::vector<Tensor> outputs;
      KernelContext ctx(inputs, &outputs, /*resources=*/nullptr);
      if (!(*kernel)->Run(ctx).ok()) continue;  // fails at Run as before
      const auto uses = uses_before.find(n.name());
      int64_t out_bytes = 0;
      for (const Tensor& t : outputs) {
        if (!t.valid() || !FoldableDType(t.dtype())) ok = false;
        if (ok) out_bytes += ValueBytes(t);
      }
      if (!ok || outputs.empty() ||
          (out_bytes > kAlwaysFoldBytes && out_bytes > in_bytes)) {
        continue;
      }
      // Outputs above 0 that something reads become Consts of their own.
      for (size_t k = 1; k < outputs.size(); ++k) {
        bool read = false;
        if (uses != uses_before.end()) {
          for (int c : uses->second.consumers) {
            for (const std::string& in : graph->node(c).input()) {
              read |= !IsControl(in) && NameView(in) == n.name() &&
                      OutputIndexOf(in) == static_cast<int>(k);
            }
          }
        }
        if (!read) continue;
        std::string name = absl::StrCat(n.name(), "/_folded_", k);
        while (index.contains(name)) name += "_";
        NodeDef& c = added.emplace_back();
        c.set_name(name);
        c.set_op("Const");
        c.set_device(n.device());
        (*c.mutable_attr())["dtype"].set_type(
            static_cast<tensorflow::DataType>(outputs[k].dtype()));
        index[name] = -1;
        renamed[absl::StrCat(n.name(), ":", k)] = name;
        (*weights)[name] = outputs[k];
        values[absl::StrCat(n.name(), ":", k)] = outputs[k];
        constant.insert(name);
      }
      // The node itself becomes its output 0.
      const std::string name = n.name();
      const std::string device = n.device();
      n.Clear();
      n.set_name(name);
      n.set_op("Const");
      n.set_device(device);
      (*n.mutable_attr())["dtype"].set_type(
          static_cast<tensorflow::DataType>(outputs[0].dtype()));
      (*weights)[name] = outputs[0];
      values[name] = outputs[0];
      constant.insert(name);
      ++folded;
      changed = true;
    }
  }
  if (folded == 0) return 0;
  for (NodeDef& c : added) *graph->add_node() = std::move(c);
  if (!renamed.empty()) {
    for (NodeDef& n : *graph->mutable_node()) {
      for (std::string& in : *n.mutable_input()) {
        if (IsControl(in)) continue;
        auto it = renamed.find(in);
        if (it != renamed.end()) in = it->second;
      }
    }
  }
  // Consts that only folded nodes read go, with their weights.
  DropConstsNoLongerRead(graph, uses_before, keep, weights);
  return folded;
}

namespace {

// TensorFlow's If rule for a condition value: a scalar bool as is, a
// numeric scalar nonzero, a string scalar non-empty, any other shape
// non-empty. nullopt for dtypes it does not read.
std::optional<bool> Truth(const Tensor& t) {
  if (t.rank() != 0) return t.num_elements() > 0;
  switch (t.dtype()) {
    case DType::kBool:
      return t.data<bool>()[0];
    case DType::kInt32:
      return t.data<int32_t>()[0] != 0;
    case DType::kInt64:
      return t.data<int64_t>()[0] != 0;
    case DType::kFloat32:
      return t.data<float>()[0] != 0;
    case DType::kFloat64:
      return t.data<double>()[0] != 0;
    case DType::kString:
      return !t.data<std::string>()[0].empty();
    default:
      return std::nullopt;
  }
}

}  // namespace

int PruneConstantBranches(GraphDef* graph, const WeightMap& weights,
                          const KeepSet& keep) {
  std::optional<absl::flat_hash_map<std::string, int>> index;
  int pruned = 0;
  for (NodeDef& n : *graph->mutable_node()) {
    const bool stateless = n.op() == "StatelessIf";
    if ((!stateless && n.op() != "If") || n.input_size() < 1 ||
        IsControl(n.input(0)) || OutputIndexOf(n.input(0)) != 0 ||
        keep.contains(n.name())) {
      continue;
    }
    if (!index.has_value()) index = IndexByName(*graph);
    auto c = index->find(NameView(n.input(0)));
    if (c == index->end() || c->second < 0) continue;
    const NodeDef& cond = graph->node(c->second);
    if (cond.op() != "Const" || HasControlInputs(cond)) continue;
    auto value = ConstValue(cond, weights);
    if (!value.ok()) continue;
    const std::optional<bool> truth = Truth(*value);
    if (!truth.has_value()) continue;
    auto branch = n.attr().find(*truth ? "then_branch" : "else_branch");
    if (branch == n.attr().end() || !branch->second.has_func()) continue;
    const tensorflow::NameAttrList f = branch->second.func();
    // The condition stays an (ordering-only) control input: dropping the
    // edge could leave its Const without readers, a new sink.
    const std::string cond_input = absl::StrCat("^", cond.name());
    n.mutable_input()->erase(n.mutable_input()->begin());
    n.add_input(cond_input);
    n.set_op(stateless ? "PartitionedCall" : "StatefulPartitionedCall");
    auto& attrs = *n.mutable_attr();
    for (const char* gone :
         {"Tcond", "then_branch", "else_branch", "_lower_using_switch_merge"}) {
      attrs.erase(gone);
    }
    *attrs["f"].mutable_func() = f;
    ++pruned;
  }
  return pruned;
}

}  // namespace passes
}  // namespace graphrt
