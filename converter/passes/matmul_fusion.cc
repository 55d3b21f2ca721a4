// FuseMatMulBiasActivation (passes.h): MatMul + bias (+ activation) chains
// of TensorFlow-written dense layers become one _FusedMatMul.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

int FuseMatMulBiasActivation(GraphDef* graph, const WeightMap& weights,
                             const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  const auto index = IndexByName(*graph);
  auto node_of = [&](const std::string& input) -> const NodeDef* {
    auto it = index.find(NameView(input));
    return IsControl(input) || OutputIndexOf(input) != 0 || it == index.end()
               ? nullptr
               : &graph->node(it->second);
  };
  auto only_consumer = [&](const std::string& name) {
    return OnlyReader(uses, name, keep);
  };
  auto is_float = [](const NodeDef& n) {
    return TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT);
  };
  std::vector<bool> dead(graph->node_size(), false);
  int fused = 0;
  for (int mi = 0; mi < graph->node_size(); ++mi) {
    const NodeDef& mm = graph->node(mi);
    if (mm.op() != "MatMul" || dead[mi] || NumDataInputs(mm) != 2 ||
        IsControl(mm.input(1)) || !is_float(mm)) {
      continue;
    }
    const int ai = only_consumer(mm.name());
    if (ai < 0 || dead[ai]) continue;
    const NodeDef& add = graph->node(ai);
    const bool bias_add = add.op() == "BiasAdd";
    if ((!bias_add && add.op() != "Add" && add.op() != "AddV2") ||
        NumDataInputs(add) != 2 || IsControl(add.input(1)) || !is_float(add) ||
        (bias_add && !IsNhwc(add))) {
      continue;
    }
    const int mm_pos = NameView(add.input(0)) == mm.name() ? 0 : 1;
    if (OutputIndexOf(add.input(mm_pos)) != 0 || (bias_add && mm_pos != 0)) {
      continue;
    }
    // The bias: BiasAdd's any tensor (a dense layer's variable read; the
    // fused kernel checks it is [n] as BiasAdd does). An Add would
    // broadcast a [1] (or a mismatched) operand, so there it must be a
    // float32 [n] constant with n the product's columns, known from a
    // constant B.
    const std::string& bias_input = add.input(1 - mm_pos);
    if (!bias_add) {
      const NodeDef* bias = node_of(bias_input);
      const NodeDef* b = node_of(mm.input(1));
      std::optional<std::vector<int64_t>> bias_dims =
          bias == nullptr ? std::nullopt : FloatConstDims(*bias, weights);
      std::optional<std::vector<int64_t>> b_dims =
          b == nullptr ? std::nullopt : FloatConstDims(*b, weights);
      auto tb = mm.attr().find("transpose_b");
      const bool transpose_b = tb != mm.attr().end() && tb->second.b();
      if (!bias_dims.has_value() || bias_dims->size() != 1 ||
          !b_dims.has_value() || b_dims->size() != 2 ||
          (*b_dims)[transpose_b ? 0 : 1] != (*bias_dims)[0]) {
        continue;
      }
    }
    // Piecewise-linear activations only: the fused kernel evaluates them
    // with the same operations as their own kernels (Elu / Sigmoid / Tanh
    // could differ in the last bit).
    int last = ai;
    const NodeDef* act = nullptr;
    const int ri = only_consumer(add.name());
    if (ri >= 0 && !dead[ri]) {
      const NodeDef& r = graph->node(ri);
      if ((r.op() == "Relu" || r.op() == "Relu6" || r.op() == "LeakyRelu") &&
          NumDataInputs(r) == 1 && OutputIndexOf(r.input(0)) == 0 &&
          is_float(r)) {
        act = &r;
        last = ri;
      }
    }
    NodeDef node = FusedChainNode(
        *graph, graph->node(last).name(), "_FusedMatMul", mm.device(),
        {mm.input(0), mm.input(1), bias_input}, {mi, ai, last});
    auto& attrs = *node.mutable_attr();
    for (const char* a : {"transpose_a", "transpose_b"}) {
      if (auto it = mm.attr().find(a); it != mm.attr().end()) {
        attrs[a] = it->second;
      }
    }
    attrs["T"].set_type(tensorflow::DT_FLOAT);
    auto* ops = attrs["fused_ops"].mutable_list();
    ops->add_s("BiasAdd");
    if (act != nullptr) {
      ops->add_s(act->op());
      if (act->op() == "LeakyRelu") {
        auto alpha = act->attr().find("alpha");  // TF's default: 0.2
        attrs["leakyrelu_alpha"].set_f(
            alpha == act->attr().end() ? 0.2f : alpha->second.f());
      }
    }
    attrs["num_args"].set_i(1);
    dead[mi] = true;
    if (last != ai) dead[ai] = true;
    *graph->mutable_node(last) = std::move(node);
    ++fused;
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

}  // namespace passes
}  // namespace graphrt
