#include "runtime/function_library.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/executor.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Output args of ops with more than one, in order. An arg counts one
// tensor unless it is a list; list args come last except for the ragged
// ops (whose leading list length is an attr).
const absl::flat_hash_map<std::string, std::vector<std::string>>& OutputArgs() {
  static const auto* table =
      new absl::flat_hash_map<std::string, std::vector<std::string>>{
          {"Switch", {"output_false", "output_true"}},
          {"RefSwitch", {"output_false", "output_true"}},
          {"Merge", {"output", "value_index"}},
          {"RefMerge", {"output", "value_index"}},
          {"TopKV2", {"values", "indices"}},
          {"TopK", {"values", "indices"}},
          {"Unique", {"y", "idx"}},
          {"UniqueV2", {"y", "idx"}},
          {"ListDiff", {"out", "idx"}},
          {"NonMaxSuppressionV4", {"selected_indices", "valid_outputs"}},
          {"NonMaxSuppressionV5",
           {"selected_indices", "selected_scores", "valid_outputs"}},
          {"FusedBatchNorm",
           {"y", "batch_mean", "batch_variance", "reserve_space_1",
            "reserve_space_2"}},
          {"FusedBatchNormV2",
           {"y", "batch_mean", "batch_variance", "reserve_space_1",
            "reserve_space_2"}},
          {"FusedBatchNormV3",
           {"y", "batch_mean", "batch_variance", "reserve_space_1",
            "reserve_space_2", "reserve_space_3"}},
          {"StringSplit", {"indices", "values", "shape"}},
          {"StringSplitV2", {"indices", "values", "shape"}},
          {"TensorArrayV3", {"handle", "flow"}},
          {"TensorArrayConcatV3", {"value", "lengths"}},
          {"MaxPoolWithArgmax", {"output", "argmax"}},
          {"SparseFillEmptyRows",
           {"output_indices", "output_values", "empty_row_indicator",
            "reverse_index_map"}},
          {"SparseReshape", {"output_indices", "output_shape"}},
          {"TensorListPopBack", {"output_handle", "tensor"}},
          {"TensorListConcat", {"tensor", "lengths"}},
          {"TensorListConcatV2", {"tensor", "lengths"}},
          {"StringNGrams", {"ngrams", "ngrams_splits"}},
          {"LookupTableExport", {"keys", "values"}},
          {"LookupTableExportV2", {"keys", "values"}},
          {"RaggedGather", {"output_nested_splits", "output_dense_values"}},
          {"RaggedRange", {"rt_nested_splits", "rt_dense_values"}},
      };
  return *table;
}

absl::StatusOr<int> OutputIndex(const tensorflow::NodeDef& node,
                                absl::string_view arg, int index) {
  auto it = OutputArgs().find(node.op());
  if (it == OutputArgs().end()) return index;
  int offset = 0;
  for (const std::string& name : it->second) {
    if (name == arg) return offset + index;
    int size = 1;
    if (name == "output_nested_splits" || name == "rt_nested_splits") {
      auto a = node.attr().find(
          node.op() == "RaggedGather" ? "OUTPUT_RAGGED_RANK" : "Tsplits");
      size = (a != node.attr().end() && a->second.i() > 0) ? a->second.i() : 1;
    }
    offset += size;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("op ", node.op(), " has no output arg '", arg, "'"));
}

// "node:arg:i" -> "node:k"; "arg" and "^node" unchanged.
absl::StatusOr<std::string> RewriteInput(
    const std::string& input,
    const absl::flat_hash_map<std::string, const tensorflow::NodeDef*>& nodes) {
  if (input.empty() || input[0] == '^') return input;
  std::vector<std::string> parts = absl::StrSplit(input, ':');
  if (parts.size() == 1) return input;
  if (parts.size() == 2) return input;  // "node:k" already
  if (parts.size() != 3) {
    return absl::InvalidArgumentError(absl::StrCat("bad input '", input, "'"));
  }
  int index;
  if (!absl::SimpleAtoi(parts[2], &index) || index < 0) {
    return absl::InvalidArgumentError(absl::StrCat("bad input '", input, "'"));
  }
  auto it = nodes.find(parts[0]);
  if (it == nodes.end()) {
    return absl::InvalidArgumentError(
        absl::StrCat("input '", input, "' names no node of the function"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(int k, OutputIndex(*it->second, parts[1], index));
  return absl::StrCat(parts[0], ":", k);
}

class CompiledFunction : public Function {
 public:
  // `fetches` = the outputs, then (if any) the hidden control-output
  // fetch, which Call runs but does not return.
  CompiledFunction(std::unique_ptr<Graph> graph, std::vector<Endpoint> args,
                   std::vector<Endpoint> fetches, int num_outputs)
      : graph_(std::move(graph)),
        args_(std::move(args)),
        fetches_(std::move(fetches)),
        num_outputs_(num_outputs),
        executor_(graph_.get(), nullptr, nullptr,
                  ExecutorOptions{.denormals = Denormals::kAsCaller}) {}

  int num_inputs() const override { return static_cast<int>(args_.size()); }
  int num_outputs() const override { return num_outputs_; }

  absl::StatusOr<std::vector<Tensor>> Call(
      const KernelContext& caller, std::vector<Tensor> args) const override {
    if (args.size() != args_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat(graph_->what(), " takes ", args_.size(),
                       " arguments, got ", args.size()));
    }
    std::vector<Feed> feeds;
    feeds.reserve(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      feeds.push_back({args_[i], std::move(args[i])});
    }
    auto out = executor_.Run(feeds, fetches_, caller.resources());
    if (!out.ok()) return WithContext(out.status(), graph_->what());
    out->resize(static_cast<size_t>(num_outputs_));
    return out;
  }

 private:
  std::unique_ptr<Graph> graph_;
  std::vector<Endpoint> args_;
  std::vector<Endpoint> fetches_;
  int num_outputs_;
  Executor executor_;
};

// A function with control outputs but no outputs: FunctionToGraphDef has
// no output to hang the control outputs on, so a scalar Const with control
// inputs on all of them is added and fetched by every call (its value is
// dropped). Returns its tensor name, or "" when none is needed.
std::string AddControlOutputFetch(const tensorflow::FunctionDef& fn,
                                  tensorflow::GraphDef* graph) {
  if (fn.control_ret().empty() || fn.signature().output_arg_size() > 0) {
    return "";
  }
  absl::flat_hash_set<std::string> names;
  for (const auto& node : graph->node()) names.insert(node.name());
  std::string name = "_control_outputs";
  while (names.contains(name)) name += "_";
  std::vector<std::string> controls;
  for (const auto& [key, node_name] : fn.control_ret()) {
    controls.push_back(absl::StrCat("^", node_name));
  }
  std::sort(controls.begin(), controls.end());  // map order varies
  tensorflow::NodeDef* c = graph->add_node();
  c->set_name(name);
  c->set_op("Const");
  (*c->mutable_attr())["dtype"].set_type(tensorflow::DT_INT32);
  tensorflow::TensorProto* value =
      (*c->mutable_attr())["value"].mutable_tensor();
  value->set_dtype(tensorflow::DT_INT32);
  value->mutable_tensor_shape();
  value->add_int_val(0);
  for (const std::string& control : controls) c->add_input(control);
  return name + ":0";
}

}  // namespace

absl::StatusOr<tensorflow::GraphDef> FunctionToGraphDef(
    const tensorflow::FunctionDef& fn, std::vector<std::string>* args,
    std::vector<std::string>* rets) {
  tensorflow::GraphDef graph;
  const auto& sig = fn.signature();
  for (const auto& arg : sig.input_arg()) {
    tensorflow::NodeDef* ph = graph.add_node();
    ph->set_name(arg.name());
    ph->set_op("Placeholder");
    if (arg.type() != tensorflow::DT_INVALID) {
      (*ph->mutable_attr())["dtype"].set_type(arg.type());
    }
    args->push_back(arg.name());
  }
  absl::flat_hash_map<std::string, const tensorflow::NodeDef*> nodes;
  for (const auto& node : fn.node_def()) nodes[node.name()] = &node;
  for (const auto& node : fn.node_def()) {
    tensorflow::NodeDef* out = graph.add_node();
    *out = node;
    out->clear_input();
    for (const std::string& in : node.input()) {
      auto rewritten = RewriteInput(in, nodes);
      if (!rewritten.ok()) {
        return WithContext(rewritten.status(),
                           absl::StrCat("node '", node.name(), "'"));
      }
      out->add_input(*rewritten);
    }
  }
  // control_ret: nodes that must run whenever the function runs (TF's
  // automatic control dependencies list stateful ops, e.g. an
  // AssignVariableOp whose result feeds no output, here). The executor runs
  // only what the fetched outputs need, so each output is returned through
  // an Identity with control inputs on all of them: a call, which fetches
  // every output, runs them before it returns (as a TF function call
  // completes only after its control outputs).
  std::vector<std::string> control_rets;
  for (const auto& [name, node_name] : fn.control_ret()) {
    if (!nodes.contains(node_name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("control_ret '", name,
                       "' names no node of the function: '", node_name, "'"));
    }
    control_rets.push_back(absl::StrCat("^", node_name));
  }
  std::sort(control_rets.begin(), control_rets.end());  // map order varies
  // (A function with control outputs and no outputs at all gets a fetch of
  // its own in ModelFunctionLibrary::Instantiate: AddControlOutputFetch.)
  for (const auto& arg : sig.output_arg()) {
    auto it = fn.ret().find(arg.name());
    if (it == fn.ret().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("output '", arg.name(), "' has no ret entry"));
    }
    GRAPHRT_ASSIGN_OR_RETURN(std::string ret, RewriteInput(it->second, nodes));
    if (!control_rets.empty()) {
      std::string name = absl::StrCat("_control_ret_", arg.name());
      while (nodes.contains(name) ||
             std::find(args->begin(), args->end(), name) != args->end()) {
        name += "_";
      }
      tensorflow::NodeDef* id = graph.add_node();
      id->set_name(name);
      id->set_op("Identity");
      id->add_input(ret);
      for (const std::string& c : control_rets) id->add_input(c);
      ret = name + ":0";
    }
    rets->push_back(ret);
  }
  return graph;
}

ModelFunctionLibrary::ModelFunctionLibrary(
    const tensorflow::FunctionDefLibrary& library, const WeightMap* weights,
    const OpRegistry* registry)
    : library_(library), weights_(weights), registry_(registry) {
  for (const auto& fn : library_.function()) {
    defs_[fn.signature().name()] = &fn;
  }
}

ModelFunctionLibrary::~ModelFunctionLibrary() = default;

absl::StatusOr<std::shared_ptr<const Function>>
ModelFunctionLibrary::Instantiate(const std::string& name) const {
  auto cached = compiled_.find(name);
  if (cached != compiled_.end()) return cached->second;
  auto def = defs_.find(name);
  if (def == defs_.end()) {
    return absl::NotFoundError(
        absl::StrCat("function '", name, "' is not in the model's library"));
  }
  if (!in_progress_.insert(name).second) {
    return absl::InvalidArgumentError(
        absl::StrCat("function '", name, "' calls itself"));
  }
  std::string what = absl::StrCat("function '", name, "'");
  std::vector<std::string> arg_names, ret_names;
  auto graph_def = FunctionToGraphDef(*def->second, &arg_names, &ret_names);
  const int num_outputs = static_cast<int>(ret_names.size());
  if (graph_def.ok()) {
    std::string control = AddControlOutputFetch(*def->second, &*graph_def);
    if (!control.empty()) ret_names.push_back(std::move(control));
  }
  absl::StatusOr<std::unique_ptr<Graph>> graph =
      graph_def.ok() ? Graph::Build(std::move(*graph_def), *weights_,
                                    *registry_, what, this)
                     : absl::StatusOr<std::unique_ptr<Graph>>(
                           WithContext(graph_def.status(), what));
  in_progress_.erase(name);
  if (!graph.ok()) return graph.status();
  std::vector<Endpoint> args, rets;
  for (const auto& a : arg_names) {
    GRAPHRT_ASSIGN_OR_RETURN(Endpoint e, (*graph)->ResolveTensor(a));
    args.push_back(e);
  }
  for (const auto& r : ret_names) {
    auto e = (*graph)->ResolveTensor(r);
    if (!e.ok()) return WithContext(e.status(), what);
    rets.push_back(*e);
  }
  auto fn = std::make_shared<CompiledFunction>(
      std::move(*graph), std::move(args), std::move(rets), num_outputs);
  compiled_[name] = fn;
  return fn;
}

}  // namespace graphrt
