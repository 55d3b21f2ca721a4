// FuseHardSwish, FuseConvActivation and SwapMaxPoolActivation (passes.h).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"
#include "ops/math/activation_fns.h"

namespace graphrt {
namespace passes {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

namespace {

bool SameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

}  // namespace

int FuseHardSwish(GraphDef* graph, const WeightMap& weights,
                  const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  const auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  // Node index of a data input, or -1.
  auto producer = [&](const std::string& input) {
    if (IsControl(input)) return -1;
    auto it = index.find(NameView(input));
    return it == index.end() ? -1 : it->second;
  };
  // Node `i` feeds only `consumer` (one data edge from output 0, no control
  // edges) and may be removed.
  auto only_feeds = [&](int i, int consumer) {
    if (i < 0 || dead[i]) return false;
    const std::string& name = graph->node(i).name();
    auto u = uses.find(name);
    return u != uses.end() && u->second.data == 1 && u->second.control == 0 &&
           u->second.consumers[0] == consumer && !keep.contains(name);
  };
  auto is_float_op = [&](const NodeDef& n,
                         std::initializer_list<const char*> ops, int inputs) {
    bool op_ok = false;
    for (const char* op : ops) op_ok = op_ok || n.op() == op;
    return op_ok && NumDataInputs(n) == inputs &&
           TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT);
  };
  // Of the two data inputs of `n`, the first that is a float32 scalar
  // Const (and, if `want` is given, has exactly that value): its position
  // and value, or position -1.
  auto scalar_operand = [&](const NodeDef& n, std::optional<float> want) {
    for (int pos = 0; pos < 2; ++pos) {
      const int c = producer(n.input(pos));
      if (c < 0 || OutputIndexOf(n.input(pos)) != 0) continue;
      std::optional<float> v = FloatScalarConstValue(graph->node(c), weights);
      if (v.has_value() && std::isfinite(*v) &&
          (!want.has_value() || SameBits(*v, *want))) {
        return std::pair<int, float>(pos, *v);
      }
    }
    return std::pair<int, float>(-1, 0.0f);
  };
  auto same_tensor = [](const std::string& a, const std::string& b) {
    return NameView(a) == NameView(b) && OutputIndexOf(a) == OutputIndexOf(b) &&
           OutputIndexOf(a) >= 0;
  };
  int fused = 0;
  for (int oi = 0; oi < graph->node_size(); ++oi) {
    const NodeDef& out = graph->node(oi);
    if (dead[oi] || !is_float_op(out, {"Mul"}, 2)) continue;
    for (int pos = 0; pos < 2; ++pos) {
      const int ri = producer(out.input(pos));
      const int mi = producer(out.input(1 - pos));
      if (ri < 0 || mi < 0 || ri == mi || !only_feeds(ri, oi) ||
          !only_feeds(mi, oi) || OutputIndexOf(out.input(pos)) != 0 ||
          OutputIndexOf(out.input(1 - pos)) != 0) {
        continue;
      }
      const NodeDef& relu6 = graph->node(ri);
      const NodeDef& mul = graph->node(mi);
      if (!is_float_op(relu6, {"Relu6"}, 1) || !is_float_op(mul, {"Mul"}, 2)) {
        continue;
      }
      const int ai = producer(relu6.input(0));
      if (ai < 0 || ai == mi || !only_feeds(ai, ri) ||
          OutputIndexOf(relu6.input(0)) != 0) {
        continue;
      }
      const NodeDef& add = graph->node(ai);
      if (!is_float_op(add, {"Add", "AddV2"}, 2)) continue;
      const int offset_pos = scalar_operand(add, ops::kHardSwishOffset).first;
      const auto [scale_pos, scale] = scalar_operand(mul, std::nullopt);
      if (offset_pos < 0 || scale_pos < 0) continue;
      const std::string& x = add.input(1 - offset_pos);
      if (!same_tensor(x, mul.input(1 - scale_pos))) continue;
      NodeDef node;
      node.set_name(out.name());
      node.set_op("_HardSwish");
      node.set_device(out.device());
      node.add_input(x);
      KeepSet controls;
      for (int i : {oi, ri, mi, ai}) {
        CopyControlInputs(graph->node(i), &node, &controls);
      }
      (*node.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
      (*node.mutable_attr())["scale"].set_f(scale);
      dead[ri] = dead[mi] = dead[ai] = true;
      *graph->mutable_node(oi) = std::move(node);
      ++fused;
      break;
    }
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

int FuseConvActivation(GraphDef* graph, const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  const auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  int fused = 0;
  for (int ai = 0; ai < graph->node_size(); ++ai) {
    const NodeDef& act = graph->node(ai);
    // Piecewise-linear activations only: they compute the same bits per
    // element whatever the row length. Eigen's exp / logistic / tanh do not
    // (vectorised and scalar tails differ by an ulp), and the kernel applies
    // the activation per output row.
    const std::optional<ops::Activation> kind =
        ops::ActivationFromName(act.op());
    if (!kind.has_value() ||
        (*kind != ops::Activation::kRelu && *kind != ops::Activation::kRelu6 &&
         *kind != ops::Activation::kLeakyRelu &&
         *kind != ops::Activation::kHardSwish) ||
        NumDataInputs(act) != 1 || act.input_size() < 1 ||
        IsControl(act.input(0)) || OutputIndexOf(act.input(0)) != 0 ||
        !TypeIsOrAbsent(act, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    auto ci_it = index.find(NameView(act.input(0)));
    if (ci_it == index.end()) continue;
    const int ci = ci_it->second;
    const NodeDef& conv = graph->node(ci);
    auto u = uses.find(conv.name());
    if (dead[ci] || !IsBiasedConv(conv, /*depthwise_too=*/true) ||
        u == uses.end() || u->second.data != 1 || u->second.control != 0 ||
        keep.contains(conv.name())) {
      continue;
    }
    NodeDef node;
    node.set_name(act.name());
    node.set_op(conv.op());
    node.set_device(conv.device());
    for (const std::string& in : conv.input()) node.add_input(in);
    KeepSet controls = ControlInputsOf(conv);
    CopyControlInputs(act, &node, &controls);
    *node.mutable_attr() = conv.attr();
    auto& attrs = *node.mutable_attr();
    attrs["fused_ops"].mutable_list()->add_s(act.op());
    if (act.op() == "LeakyRelu") {
      auto alpha = act.attr().find("alpha");
      attrs["leakyrelu_alpha"].set_f(
          alpha == act.attr().end() ? 0.2f : alpha->second.f());
    } else if (act.op() == "_HardSwish") {
      auto scale = act.attr().find("scale");
      attrs["hardswish_scale"].set_f(
          scale == act.attr().end() ? ops::kHardSwishScale : scale->second.f());
    }
    dead[ci] = true;
    *graph->mutable_node(ai) = std::move(node);
    ++fused;
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

int SwapMaxPoolActivation(GraphDef* graph, const KeepSet& keep) {
  // Most graphs with both ops have no such pair: look for one before
  // indexing the whole graph.
  if (!HasEdge(*graph, {"MaxPool"}, {"Relu", "Relu6"},
               /*first_input_only=*/true)) {
    return 0;
  }
  const auto uses = CountUses(*graph);
  // Names are not changed below, so the index's views stay valid.
  const auto index = IndexByName(*graph);
  int swapped = 0;
  for (int ai = 0; ai < graph->node_size(); ++ai) {
    const NodeDef& act = graph->node(ai);
    if ((act.op() != "Relu" && act.op() != "Relu6") ||
        NumDataInputs(act) != 1 || act.input_size() < 1 ||
        IsControl(act.input(0)) || OutputIndexOf(act.input(0)) != 0 ||
        !TypeIsOrAbsent(act, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    auto pi = index.find(NameView(act.input(0)));
    if (pi == index.end() || pi->second == ai) continue;
    const NodeDef& pool = graph->node(pi->second);
    auto u = uses.find(pool.name());
    if (pool.op() != "MaxPool" || NumDataInputs(pool) != 1 ||
        IsControl(pool.input(0)) ||
        !TypeIsOrAbsent(pool, "T", tensorflow::DT_FLOAT) || u == uses.end() ||
        u->second.data != 1 || u->second.control != 0 ||
        keep.contains(pool.name())) {
      continue;
    }
    // The pool's node becomes the activation of the pool's input, the
    // activation's node the pool of that: each keeps its name, inputs and
    // control inputs; only ops and attrs change places.
    NodeDef* new_act = graph->mutable_node(pi->second);
    NodeDef* new_pool = graph->mutable_node(ai);
    std::string act_op = new_pool->op();
    new_pool->set_op(new_act->op());
    new_act->set_op(std::move(act_op));
    new_pool->mutable_attr()->swap(*new_act->mutable_attr());
    ++swapped;
  }
  return swapped;
}

}  // namespace passes
}  // namespace graphrt
