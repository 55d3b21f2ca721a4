// FuseDepthwiseBlocks (passes.h): [1x1 conv ->] depthwise -> 1x1 conv
// chains into one _FusedDepthwiseBlock (ops/nn/depthwise_block.h).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// The direct kernel's bound on a regular filter (DirectConv::
// kMaxFilterFloats): larger 1x1 layers stay on oneDNN.
constexpr int64_t kMaxPointwiseFilterFloats = 48 * 1024;

std::vector<std::string> FusedOpsOf(const NodeDef& n) {
  std::vector<std::string> ops;
  auto it = n.attr().find("fused_ops");
  if (it == n.attr().end()) return ops;
  for (const std::string& s : it->second.list().s()) ops.push_back(s);
  return ops;
}

int64_t IntAttr(const NodeDef& n, const char* name, int64_t def) {
  auto it = n.attr().find(name);
  return it == n.attr().end() ? def : it->second.i();
}

// attr `name` is a list of four values, each 1 (absent counts as 1s).
bool AllOnes(const NodeDef& n, const char* name) {
  auto it = n.attr().find(name);
  if (it == n.attr().end()) return true;
  const auto& l = it->second.list().i();
  if (l.size() != 4) return false;
  for (int64_t v : l) {
    if (v != 1) return false;
  }
  return true;
}

// Padding adds nothing: SAME / VALID (a 1x1 stride-1 window), or EXPLICIT
// zeros.
bool NoPadding(const NodeDef& n) {
  auto it = n.attr().find("padding");
  if (it == n.attr().end()) return false;
  if (it->second.s() != "EXPLICIT") return true;
  auto ex = n.attr().find("explicit_paddings");
  if (ex == n.attr().end()) return true;
  for (int64_t v : ex->second.list().i()) {
    if (v != 0) return false;
  }
  return true;
}

bool IsFloatNhwc(const NodeDef& n) {
  return TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT) && IsNhwc(n);
}

// "" / Relu / Relu6 / Prelu as the activation after [BiasAdd(, Add)];
// nullopt for any other fused_ops. A Prelu's slopes are the node's last
// data input.
struct Epilogue {
  bool bias = false;
  bool residual = false;
  std::string act;
  bool prelu() const { return act == "Prelu"; }
  // Fused arguments after the filter (bias, addend, slopes).
  int num_args() const { return 1 + (residual ? 1 : 0) + (prelu() ? 1 : 0); }
};
std::optional<Epilogue> ReadEpilogue(const NodeDef& n, bool allow_residual) {
  const std::vector<std::string> ops = FusedOpsOf(n);
  Epilogue e;
  size_t i = 0;
  if (i < ops.size() && ops[i] == "BiasAdd") {
    e.bias = true;
    ++i;
  } else {
    return std::nullopt;
  }
  if (allow_residual && i < ops.size() && ops[i] == "Add") {
    e.residual = true;
    ++i;
  }
  if (i < ops.size() &&
      (ops[i] == "Relu" || ops[i] == "Relu6" || ops[i] == "Prelu")) {
    e.act = ops[i++];
  }
  if (i != ops.size()) return std::nullopt;
  if (IntAttr(n, "num_args", 0) != e.num_args()) return std::nullopt;
  return e;
}

// A 1x1 stride-1 undilated float32 NHWC convolution with a Const filter
// [1, 1, in, out] of at most kMaxPointwiseFilterFloats values. Conv2D
// (no epilogue) when `allow_plain`. Fills `e` and the filter dims, only
// when it returns true (a caller keeps `e` of a producer it then drops).
bool IsPointwise(const NodeDef& n, const WeightMap& weights,
                 const absl::flat_hash_map<std::string, int>& index,
                 const GraphDef& g, bool allow_plain, bool allow_residual,
                 Epilogue* e, std::vector<int64_t>* dims) {
  Epilogue found;
  if (n.op() == "Conv2D" && allow_plain) {
    if (NumDataInputs(n) != 2) return false;
  } else if (n.op() == "_FusedConv2D") {
    auto ep = ReadEpilogue(n, allow_residual);
    if (!ep.has_value() || NumDataInputs(n) != 2 + ep->num_args()) {
      return false;
    }
    found = *ep;
  } else {
    return false;
  }
  if (!IsFloatNhwc(n) || !AllOnes(n, "strides") || !AllOnes(n, "dilations") ||
      !NoPadding(n) || IsControl(n.input(1)) ||
      OutputIndexOf(n.input(1)) != 0) {
    return false;
  }
  auto f = index.find(NameView(n.input(1)));
  if (f == index.end()) return false;
  auto d = FloatConstDims(g.node(f->second), weights);
  if (!d.has_value() || d->size() != 4 || (*d)[0] != 1 || (*d)[1] != 1 ||
      (*d)[2] * (*d)[3] > kMaxPointwiseFilterFloats) {
    return false;
  }
  *e = found;
  *dims = *d;
  return true;
}

}  // namespace

int FuseDepthwiseBlocks(GraphDef* graph, const WeightMap& weights,
                        const KeepSet& keep, bool expand_only) {
  const auto uses = CountUses(*graph);
  const auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  // A node that only this chain reads (one data use, no control use) and
  // that may disappear.
  auto private_node = [&](int i) {
    const NodeDef& n = graph->node(i);
    auto u = uses.find(n.name());
    return !dead[i] && u != uses.end() && u->second.data == 1 &&
           u->second.control == 0 && !keep.contains(n.name());
  };
  // The node that input 0 of `n` reads (its output 0), or -1.
  auto producer = [&](const NodeDef& n) {
    if (n.input_size() < 1 || IsControl(n.input(0)) ||
        OutputIndexOf(n.input(0)) != 0) {
      return -1;
    }
    auto it = index.find(NameView(n.input(0)));
    return it == index.end() ? -1 : it->second;
  };
  int fused = 0;
  // Blocks with an expand stage first: a sweep that also took blocks
  // without would fuse MobileNetV1's dw1 -> pw1 before seeing that pw1 ->
  // dw2 -> pw2 is a block with one.
  for (const bool no_expand : {false, true}) {
    if (no_expand && expand_only) break;
    for (int pi = 0; pi < graph->node_size(); ++pi) {
      const NodeDef& p = graph->node(pi);
      Epilogue pe;
      std::vector<int64_t> pdims;
      if (dead[pi] ||
          !IsPointwise(p, weights, index, *graph, /*allow_plain=*/true,
                       /*allow_residual=*/true, &pe, &pdims)) {
        continue;
      }
      const int di = producer(p);
      if (di < 0 || !private_node(di)) continue;
      const NodeDef& d = graph->node(di);
      const bool plain_dw = d.op() == "DepthwiseConv2dNative";
      if ((!plain_dw && d.op() != "FusedDepthwiseConv2dNative") ||
          !IsFloatNhwc(d) || !AllOnes(d, "dilations") ||
          IsControl(d.input(1)) || OutputIndexOf(d.input(1)) != 0) {
        continue;
      }
      auto de = plain_dw ? std::optional<Epilogue>(Epilogue{})
                         : ReadEpilogue(d, /*allow_residual=*/false);
      if (!de.has_value() ||
          NumDataInputs(d) != (plain_dw ? 2 : 2 + de->num_args())) {
        continue;
      }
      const auto& strides = d.attr().find("strides");
      if (strides == d.attr().end() || strides->second.list().i_size() != 4) {
        continue;
      }
      const auto& sv = strides->second.list().i();
      if (sv[0] != 1 || sv[3] != 1 || sv[1] != sv[2] ||
          (sv[1] != 1 && sv[1] != 2)) {
        continue;
      }
      auto dfi = index.find(NameView(d.input(1)));
      if (dfi == index.end()) continue;
      auto ddims = FloatConstDims(graph->node(dfi->second), weights);
      if (!ddims.has_value() || ddims->size() != 4 || (*ddims)[3] != 1 ||
          (*ddims)[0] != (*ddims)[1] ||
          ((*ddims)[0] != 3 && (*ddims)[0] != 5) || (*ddims)[2] != pdims[2]) {
        continue;
      }
      // The expand stage, when the depthwise layer reads a pointwise one.
      int ei = producer(d);
      Epilogue ee;
      std::vector<int64_t> edims;
      if (ei >= 0 && (!private_node(ei) ||
                      !IsPointwise(graph->node(ei), weights, index, *graph,
                                   /*allow_plain=*/false,
                                   /*allow_residual=*/false, &ee, &edims) ||
                      edims[3] != pdims[2])) {
        ei = -1;
      }
      if ((ei < 0) != no_expand) continue;
      NodeDef node;
      node.set_name(p.name());
      node.set_op("_FusedDepthwiseBlock");
      node.set_device(p.device());
      if (ei >= 0) {
        const NodeDef& ex = graph->node(ei);
        for (int i = 0; i < 3; ++i) node.add_input(ex.input(i));
      } else {
        node.add_input(d.input(0));
      }
      node.add_input(d.input(1));
      if (!plain_dw) node.add_input(d.input(2));
      node.add_input(p.input(1));
      if (pe.bias) node.add_input(p.input(2));
      if (pe.residual) node.add_input(p.input(3));
      // Prelu slopes last, in stage order (each node's last data input).
      if (ei >= 0 && ee.prelu()) {
        node.add_input(
            graph->node(ei).input(NumDataInputs(graph->node(ei)) - 1));
      }
      if (de->prelu()) node.add_input(d.input(NumDataInputs(d) - 1));
      if (pe.prelu()) node.add_input(p.input(NumDataInputs(p) - 1));
      KeepSet controls;
      if (ei >= 0) CopyControlInputs(graph->node(ei), &node, &controls);
      CopyControlInputs(d, &node, &controls);
      CopyControlInputs(p, &node, &controls);
      auto& a = *node.mutable_attr();
      a["T"].set_type(tensorflow::DT_FLOAT);
      for (const char* name :
           {"strides", "padding", "explicit_paddings", "dilations"}) {
        auto it = d.attr().find(name);
        if (it != d.attr().end()) a[name] = it->second;
      }
      a["data_format"].set_s("NHWC");
      a["expand"].set_b(ei >= 0);
      a["expand_activation"].set_s(ee.act);
      a["depthwise_bias"].set_b(!plain_dw);
      a["depthwise_activation"].set_s(de->act);
      a["project_bias"].set_b(pe.bias);
      a["project_residual"].set_b(pe.residual);
      a["project_activation"].set_s(pe.act);
      dead[di] = true;
      if (ei >= 0) dead[ei] = true;
      *graph->mutable_node(pi) = std::move(node);
      ++fused;
    }
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

}  // namespace passes
}  // namespace graphrt
