// FoldConvScale, FoldBatchNorm, FuseConvPrelu and FuseReluClip (passes.h).
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

namespace {

// A convolution whose last fused op is Relu or Relu6 (its output is >= 0
// or NaN).
bool ClampsAtZero(const NodeDef& conv) {
  if (conv.op() != "_FusedConv2D" &&
      conv.op() != "FusedDepthwiseConv2dNative") {
    return false;
  }
  auto ops = conv.attr().find("fused_ops");
  if (ops == conv.attr().end() || ops->second.list().s_size() < 2) {
    return false;
  }
  const std::string& last =
      ops->second.list().s(ops->second.list().s_size() - 1);
  return last == "Relu" || last == "Relu6";
}

// A _FusedConv2D with fused_ops [BiasAdd, Add] (FuseConvAdd's residual
// join), num_args 2, NHWC, float32.
bool IsResidualConv(const NodeDef& n) {
  if (n.op() != "_FusedConv2D" || !IsNhwc(n) || NumDataInputs(n) != 4 ||
      n.input_size() != 4 || !TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT)) {
    return false;
  }
  auto ops = n.attr().find("fused_ops");
  auto args = n.attr().find("num_args");
  return ops != n.attr().end() && ops->second.list().s_size() == 2 &&
         ops->second.list().s(0) == "BiasAdd" &&
         ops->second.list().s(1) == "Add" && args != n.attr().end() &&
         args->second.i() == 2;
}

bool AllFinite(const Tensor& t) {
  for (int64_t i = 0; i < t.num_elements(); ++i) {
    if (!std::isfinite(t.data<float>()[i])) return false;
  }
  return true;
}

// A Conv2D / DepthwiseConv2dNative (NHWC, float32, not kept) whose filter
// is a rank-4 float32 weight Const and whose output has one data reader and
// no control readers: a convolution a following per-channel op can fold
// into.
struct RawConv {
  int filter_index;  // the filter Const's node
  const Tensor* filter;
  int64_t channels;  // output channels (depthwise: in * multiplier)
  int reader;        // the node reading the output
};

std::optional<RawConv> MatchRawConv(
    const GraphDef& graph, int ci,
    const absl::flat_hash_map<std::string, Uses>& uses,
    const absl::flat_hash_map<std::string, int>& index,
    const WeightMap& weights, const KeepSet& keep) {
  const NodeDef& conv = graph.node(ci);
  const bool depthwise = conv.op() == "DepthwiseConv2dNative";
  if ((conv.op() != "Conv2D" && !depthwise) || NumDataInputs(conv) != 2 ||
      IsControl(conv.input(1)) || OutputIndexOf(conv.input(1)) != 0 ||
      !IsNhwc(conv) || !TypeIsOrAbsent(conv, "T", tensorflow::DT_FLOAT) ||
      keep.contains(conv.name())) {
    return std::nullopt;
  }
  auto u = uses.find(conv.name());
  if (u == uses.end() || u->second.data != 1 || u->second.control != 0) {
    return std::nullopt;
  }
  // -1: a filter a pass added in this scan (appended after it).
  auto fi = index.find(NameView(conv.input(1)));
  if (fi == index.end() || fi->second < 0) return std::nullopt;
  const Tensor* filter = FloatWeight(graph.node(fi->second), weights);
  if (filter == nullptr || filter->rank() != 4) return std::nullopt;
  return RawConv{fi->second, filter, ConvOutputChannels(*filter, depthwise),
                 u->second.consumers[0]};
}

// `filter` with output channel c scaled by s[c]: HWIO and HWCM filters
// both end in the output channel (c * M + m).
absl::StatusOr<Tensor> ScaledFilter(const Tensor& filter,
                                    const std::vector<float>& s) {
  absl::StatusOr<Tensor> scaled =
      Tensor::AllocateUninitialized(DType::kFloat32, filter.shape());
  if (!scaled.ok()) return scaled;
  const float* w = filter.data<float>();
  float* out = scaled->mutable_data<float>();
  const int64_t channels = static_cast<int64_t>(s.size());
  for (int64_t i = 0; i < filter.num_elements(); ++i) {
    out[i] = w[i] * s[i % channels];
  }
  return scaled;
}

}  // namespace

int FoldConvScale(GraphDef* graph, WeightMap* weights, const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  std::vector<NodeDef> added;
  int folded = 0;
  for (int ci = 0; ci < graph->node_size(); ++ci) {
    if (dead[ci]) continue;
    // Indices, not iterators: `index` grows below.
    const std::optional<RawConv> raw =
        MatchRawConv(*graph, ci, uses, index, *weights, keep);
    if (!raw.has_value()) continue;
    const NodeDef& conv = graph->node(ci);
    const int64_t out_channels = raw->channels;
    const int mi = raw->reader;
    const NodeDef& mul = graph->node(mi);
    if (dead[mi] || mul.op() != "Mul" || NumDataInputs(mul) != 2 ||
        IsControl(mul.input(1)) ||
        !TypeIsOrAbsent(mul, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    const int conv_pos = NameView(mul.input(0)) == conv.name() ? 0 : 1;
    if (NameView(mul.input(conv_pos)) != conv.name() ||
        OutputIndexOf(mul.input(conv_pos)) != 0) {
      continue;
    }
    const std::string& scale_input = mul.input(1 - conv_pos);
    auto si = index.find(NameView(scale_input));
    if (si == index.end() || si->second < 0 ||
        OutputIndexOf(scale_input) != 0) {
      continue;
    }
    // One value, or one per output channel along the last axis of a rank
    // <= 4 operand: the product keeps the convolution's shape.
    std::vector<float> scale;
    if (std::optional<float> one =
            OneFloat(graph->node(si->second), *weights)) {
      scale.assign(out_channels, *one);
    } else if (const Tensor* s =
                   FloatWeight(graph->node(si->second), *weights)) {
      bool per_channel = s->rank() >= 1 && s->rank() <= 4 &&
                         s->dim(s->rank() - 1) == out_channels;
      for (int d = 0; per_channel && d + 1 < s->rank(); ++d) {
        per_channel = s->dim(d) == 1;
      }
      if (!per_channel) continue;
      scale.assign(s->data<float>(), s->data<float>() + out_channels);
    } else {
      continue;
    }
    absl::StatusOr<Tensor> scaled = ScaledFilter(*raw->filter, scale);
    if (!scaled.ok()) continue;
    const std::string filter_name =
        AddWeightConst(absl::StrCat(mul.name(), "/_scaled_filter"),
                       graph->node(raw->filter_index).device(),
                       *std::move(scaled), &index, weights, &added);

    NodeDef node = conv;
    node.set_name(mul.name());
    node.set_input(1, filter_name);
    for (const std::string& in : mul.input()) {
      if (IsControl(in)) node.add_input(in);
    }
    dead[ci] = true;
    *graph->mutable_node(mi) = std::move(node);
    ++folded;
  }
  if (folded == 0) return 0;
  // Filters no node reads any more go (their weights stay in the map, which
  // the import frees after building the Graph).
  for (int i = 0; i < graph->node_size(); ++i) {
    const NodeDef& n = graph->node(i);
    if (dead[i] || n.op() != "Const" || keep.contains(n.name())) continue;
    auto u = uses.find(n.name());
    if (u == uses.end() || u->second.control != 0) continue;
    bool all_dead = true;
    for (int consumer : u->second.consumers) {
      if (!dead[consumer]) all_dead = false;
    }
    // The rewritten Mul nodes read the new filter, so a filter read only by
    // folded convolutions has only dead consumers.
    if (all_dead && !u->second.consumers.empty()) dead[i] = true;
  }
  DropDead(graph, dead);
  for (NodeDef& c : added) *graph->add_node() = std::move(c);
  return folded;
}

namespace {

// A float32 Const weight of shape [n].
const Tensor* Vector(const GraphDef& g,
                     const absl::flat_hash_map<std::string, int>& index,
                     const std::string& input, int64_t n,
                     const WeightMap& weights) {
  if (IsControl(input) || OutputIndexOf(input) != 0) return nullptr;
  auto it = index.find(NameView(input));
  if (it == index.end() || it->second < 0) return nullptr;
  const Tensor* t = FloatWeight(g.node(it->second), weights);
  return t != nullptr && t->rank() == 1 && t->dim(0) == n ? t : nullptr;
}

bool IsInferenceBatchNorm(const NodeDef& n) {
  if (n.op() != "FusedBatchNorm" && n.op() != "FusedBatchNormV2" &&
      n.op() != "FusedBatchNormV3") {
    return false;
  }
  auto training = n.attr().find("is_training");  // TF's default: true
  return training != n.attr().end() && !training->second.b() && IsNhwc(n) &&
         TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT) &&
         TypeIsOrAbsent(n, "U", tensorflow::DT_FLOAT) && NumDataInputs(n) == 5;
}

}  // namespace

int FoldBatchNorm(GraphDef* graph, WeightMap* weights, const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  auto index = IndexByName(*graph);
  std::vector<bool> rewritten(graph->node_size(), false);
  std::vector<NodeDef> added;
  int folded = 0;
  for (int ci = 0; ci < graph->node_size(); ++ci) {
    const std::optional<RawConv> raw =
        MatchRawConv(*graph, ci, uses, index, *weights, keep);
    if (!raw.has_value()) continue;
    const int64_t channels = raw->channels;
    const int bi = raw->reader;
    const NodeDef& conv = graph->node(ci);
    const NodeDef& bn = graph->node(bi);
    if (rewritten[bi] || !IsInferenceBatchNorm(bn) ||
        NameView(bn.input(0)) != conv.name() ||
        OutputIndexOf(bn.input(0)) != 0) {
      continue;
    }
    // Only y (output 0) may be read: the batch statistics outputs have no
    // node to come from once the batch norm is a bias.
    bool statistics_read = false;
    if (auto bu = uses.find(bn.name()); bu != uses.end()) {
      for (int c : bu->second.consumers) {
        for (const std::string& in : graph->node(c).input()) {
          statistics_read |= !IsControl(in) && NameView(in) == bn.name() &&
                             OutputIndexOf(in) != 0;
        }
      }
    }
    const Tensor* scale =
        Vector(*graph, index, bn.input(1), channels, *weights);
    const Tensor* offset =
        Vector(*graph, index, bn.input(2), channels, *weights);
    const Tensor* mean = Vector(*graph, index, bn.input(3), channels, *weights);
    const Tensor* var = Vector(*graph, index, bn.input(4), channels, *weights);
    if (statistics_read || scale == nullptr || offset == nullptr ||
        mean == nullptr || var == nullptr) {
      continue;
    }
    auto eps_attr = bn.attr().find("epsilon");
    const float epsilon =
        eps_attr == bn.attr().end() ? 1e-4f : eps_attr->second.f();  // TF's
    // y = (conv - mean) * s + offset with s = scale / sqrt(var + epsilon),
    // TensorFlow's inference form: conv(x, w * s) + (offset - mean * s).
    absl::StatusOr<Tensor> bias =
        Tensor::AllocateUninitialized(DType::kFloat32, Shape({channels}));
    if (!bias.ok()) continue;
    std::vector<float> s(channels);
    for (int64_t c = 0; c < channels; ++c) {
      s[c] =
          scale->data<float>()[c] / std::sqrt(var->data<float>()[c] + epsilon);
      bias->mutable_data<float>()[c] =
          offset->data<float>()[c] - mean->data<float>()[c] * s[c];
    }
    absl::StatusOr<Tensor> scaled = ScaledFilter(*raw->filter, s);
    if (!scaled.ok()) continue;
    const std::string filter_name =
        AddWeightConst(absl::StrCat(bn.name(), "/_bn_filter"),
                       graph->node(raw->filter_index).device(),
                       *std::move(scaled), &index, weights, &added);
    const std::string bias_name =
        AddWeightConst(absl::StrCat(bn.name(), "/_bn_bias"), bn.device(),
                       *std::move(bias), &index, weights, &added);
    graph->mutable_node(ci)->set_input(1, filter_name);
    NodeDef node;
    node.set_name(bn.name());
    node.set_op("BiasAdd");
    node.set_device(bn.device());
    node.add_input(conv.name());
    node.add_input(bias_name);
    for (const std::string& in : bn.input()) {
      if (IsControl(in)) node.add_input(in);
    }
    (*node.mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
    (*node.mutable_attr())["data_format"].set_s("NHWC");
    *graph->mutable_node(bi) = std::move(node);
    rewritten[bi] = true;
    ++folded;
  }
  if (folded == 0) return 0;
  // Consts (old filters, batch-norm parameters) only the rewritten nodes
  // read go (their weights stay in the map, which the import frees after
  // building the Graph).
  DropConstsNoLongerRead(graph, uses, keep, nullptr);
  for (NodeDef& c : added) *graph->add_node() = std::move(c);
  return folded;
}

int FuseReluClip(GraphDef* graph, const WeightMap& weights,
                 const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  const auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  // The single data consumer of node `i` (output 0), or -1.
  auto only_consumer = [&](int i) {
    const std::string& name = graph->node(i).name();
    auto u = uses.find(name);
    if (u == uses.end() || u->second.data != 1 || u->second.control != 0 ||
        keep.contains(name)) {
      return -1;
    }
    return u->second.consumers[0];
  };
  // Node `ci` is a float32 `op` of `producer`'s output 0 and a constant
  // `value`.
  auto clips = [&](int ci, const char* op, int producer, float value) {
    if (ci < 0 || dead[ci]) return false;
    const NodeDef& c = graph->node(ci);
    if (c.op() != op || NumDataInputs(c) != 2 || IsControl(c.input(1)) ||
        !TypeIsOrAbsent(c, "T", tensorflow::DT_FLOAT)) {
      return false;
    }
    const std::string& name = graph->node(producer).name();
    const int pos = NameView(c.input(0)) == name ? 0 : 1;
    if (NameView(c.input(pos)) != name || OutputIndexOf(c.input(pos)) != 0) {
      return false;
    }
    auto k = index.find(NameView(c.input(1 - pos)));
    if (k == index.end() || OutputIndexOf(c.input(1 - pos)) != 0) return false;
    std::optional<float> v = OneFloat(graph->node(k->second), weights);
    // A one-element operand of rank 1 would not change a rank >= 1 output's
    // shape; a scalar output is not an activation's anyway.
    return v.has_value() && *v == value;
  };
  int fused = 0;
  for (int ri = 0; ri < graph->node_size(); ++ri) {
    const NodeDef& r = graph->node(ri);
    if (dead[ri] || !TypeIsOrAbsent(r, "T", tensorflow::DT_FLOAT)) continue;
    // Where the producer records its Relu: its op, the last of its
    // fused_ops, or a fused Add's _fused_activation.
    enum class Where { kNone, kOp, kFusedOps, kAddAttr } where = Where::kNone;
    if (r.op() == "Relu" && NumDataInputs(r) == 1) {
      where = Where::kOp;
    } else if (r.op() == "_FusedConv2D" ||
               r.op() == "FusedDepthwiseConv2dNative") {
      auto ops = r.attr().find("fused_ops");
      const int n = ops == r.attr().end() ? 0 : ops->second.list().s_size();
      if (n >= 2 && ops->second.list().s(n - 1) == "Relu") {
        where = Where::kFusedOps;
      }
    } else if (r.op() == "Add" || r.op() == "AddV2") {
      auto act = r.attr().find("_fused_activation");
      if (act != r.attr().end() && act->second.s() == "Relu") {
        where = Where::kAddAttr;
      }
    }
    if (where == Where::kNone) continue;
    const int mi = only_consumer(ri);
    if (!clips(mi, "Minimum", ri, 6.0f)) continue;
    // min(relu(x), 6) is relu6(x); a max(., 0) after it changes nothing.
    int last = mi;
    const int xi = only_consumer(mi);
    if (clips(xi, "Maximum", mi, 0.0f)) last = xi;
    NodeDef copy = r;
    if (where == Where::kOp) {
      copy.set_op("Relu6");
    } else if (where == Where::kAddAttr) {
      (*copy.mutable_attr())["_fused_activation"].set_s("Relu6");
    } else {
      auto* list = (*copy.mutable_attr())["fused_ops"].mutable_list();
      list->set_s(list->s_size() - 1, "Relu6");
    }
    copy.set_name(graph->node(last).name());
    KeepSet controls = ControlInputsOf(copy);
    for (int i : {mi, last})
      CopyControlInputs(graph->node(i), &copy, &controls);
    dead[ri] = true;
    if (last != mi) dead[mi] = true;
    *graph->mutable_node(last) = std::move(copy);
    ++fused;
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

int FuseConvPrelu(GraphDef* graph, WeightMap* weights, const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  std::vector<NodeDef> added;
  int fused = 0;
  for (int ai = 0; ai < graph->node_size(); ++ai) {
    const NodeDef& act = graph->node(ai);
    const bool abs_form = act.op() == "_AbsPrelu";
    if ((act.op() != "Prelu" && !abs_form) || NumDataInputs(act) != 2 ||
        IsControl(act.input(0)) || IsControl(act.input(1)) ||
        OutputIndexOf(act.input(0)) != 0 || OutputIndexOf(act.input(1)) != 0 ||
        !TypeIsOrAbsent(act, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    // Indices, not iterators: `index` grows below.
    auto ci_it = index.find(NameView(act.input(0)));
    if (ci_it == index.end() || ci_it->second < 0 || dead[ci_it->second]) {
      continue;
    }
    const int ci = ci_it->second;
    const NodeDef& conv = graph->node(ci);
    auto u = uses.find(conv.name());
    if (u == uses.end() || u->second.data != 1 || u->second.control != 0 ||
        keep.contains(conv.name())) {
      continue;
    }
    auto relu = act.attr().find("relu");
    if (abs_form && (relu == act.attr().end() || !relu->second.b())) {
      // x + (x - |x|) * a (relu = false) is not a PReLU, but on a conv whose
      // last fused op is Relu / Relu6 (x >= 0: x - |x| is +0) with a finite
      // `a` it is x itself (+0 * a is +-0, and x + -0 is x), except for
      // x = +inf, where the graph computes NaN. MobileFaceNet's converted
      // graph has 16 such after depthwise layers: the node goes.
      if (!ClampsAtZero(conv)) continue;
      auto a = index.find(NameView(act.input(1)));
      if (a == index.end() || a->second < 0) continue;
      const Tensor* alpha = FloatWeight(graph->node(a->second), *weights);
      if (alpha == nullptr || !AllFinite(*alpha)) continue;
      NodeDef node = conv;
      node.set_name(act.name());
      KeepSet controls = ControlInputsOf(conv);
      CopyControlInputs(act, &node, &controls);
      dead[ci] = true;
      *graph->mutable_node(ai) = std::move(node);
      ++fused;
      continue;
    }
    const bool residual = IsResidualConv(conv);
    if (!residual && (!IsBiasedConv(conv, /*depthwise_too=*/true) ||
                      conv.input_size() != 3)) {
      continue;
    }
    auto fi = index.find(NameView(conv.input(1)));
    auto ali = index.find(NameView(act.input(1)));
    if (fi == index.end() || fi->second < 0 || ali == index.end() ||
        ali->second < 0) {
      continue;
    }
    auto filter_dims = FloatConstDims(graph->node(fi->second), *weights);
    if (!filter_dims || filter_dims->size() != 4) continue;
    const int64_t channels = conv.op() == "FusedDepthwiseConv2dNative"
                                 ? (*filter_dims)[2] * (*filter_dims)[3]
                                 : (*filter_dims)[3];
    // The epilogue's slope: one value, or one per channel on the last axis.
    const Tensor* alpha = FloatWeight(graph->node(ali->second), *weights);
    if (alpha == nullptr || alpha->rank() > 4) continue;
    bool ok = alpha->num_elements() == 1;
    if (!ok && alpha->rank() >= 1 &&
        alpha->dim(alpha->rank() - 1) == channels) {
      ok = alpha->num_elements() == channels;
    }
    if (!ok) continue;
    std::string alpha_name = act.input(1);
    if (abs_form) {
      // base(x) + (x - |x|) * a is x above zero and (2x) * a below, which is
      // x * (2a) to the bit: doubling is exact both ways.
      absl::StatusOr<Tensor> doubled =
          Tensor::AllocateUninitialized(DType::kFloat32, alpha->shape());
      if (!doubled.ok()) continue;
      for (int64_t i = 0; i < alpha->num_elements(); ++i) {
        doubled->mutable_data<float>()[i] = 2.0f * alpha->data<float>()[i];
      }
      alpha_name = AddWeightConst(absl::StrCat(act.name(), "/_prelu_alpha"),
                                  act.device(), *std::move(doubled), &index,
                                  weights, &added);
    }
    NodeDef node = conv;
    node.set_name(act.name());
    node.clear_input();
    const int data_inputs = residual ? 4 : 3;
    for (int i = 0; i < data_inputs; ++i) node.add_input(conv.input(i));
    node.add_input(alpha_name);
    KeepSet controls;
    CopyControlInputs(conv, &node, &controls);
    CopyControlInputs(act, &node, &controls);
    auto& attrs = *node.mutable_attr();
    attrs["fused_ops"].mutable_list()->add_s("Prelu");
    attrs["num_args"].set_i(residual ? 3 : 2);
    dead[ci] = true;
    *graph->mutable_node(ai) = std::move(node);
    ++fused;
  }
  if (fused == 0) return 0;
  DropDead(graph, dead);
  for (NodeDef& c : added) *graph->add_node() = std::move(c);
  return fused;
}

}  // namespace passes
}  // namespace graphrt
