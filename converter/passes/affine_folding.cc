// FoldAffineIntoConv (passes.h): a per-channel x * s + b (Keras batch
// norm after an activation) folded into the convolution that reads it,
// through a pooling layer in between.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

namespace {

// A biased convolution the affine can fold into: _FusedConv2D /
// FusedDepthwiseConv2dNative, NHWC, float32, fused_ops [BiasAdd(, act)]
// with one argument, a rank-4 float32 weight filter and a [channels]
// float32 weight bias, and no window reaching into padding (VALID, or a
// 1x1 window at stride 1): a padded zero would not carry the + b.
struct FoldTarget {
  const Tensor* filter;
  const Tensor* bias;
  bool depthwise;
  int64_t in_channels;
};

std::optional<FoldTarget> MatchTarget(
    const GraphDef& g, const NodeDef& conv,
    const absl::flat_hash_map<std::string, int>& index,
    const WeightMap& weights) {
  const bool depthwise = conv.op() == "FusedDepthwiseConv2dNative";
  if ((conv.op() != "_FusedConv2D" && !depthwise) || !IsNhwc(conv) ||
      conv.input_size() != 3 || HasControlInputs(conv) ||
      !TypeIsOrAbsent(conv, "T", tensorflow::DT_FLOAT)) {
    return std::nullopt;
  }
  auto ops = conv.attr().find("fused_ops");
  auto args = conv.attr().find("num_args");
  if (ops == conv.attr().end() || ops->second.list().s_size() < 1 ||
      ops->second.list().s_size() > 2 || ops->second.list().s(0) != "BiasAdd" ||
      args == conv.attr().end() || args->second.i() != 1) {
    return std::nullopt;
  }
  auto weight = [&](const std::string& input) -> const Tensor* {
    auto it = index.find(NameView(input));
    if (it == index.end() || it->second < 0 || OutputIndexOf(input) != 0) {
      return nullptr;
    }
    return FloatWeight(g.node(it->second), weights);
  };
  const Tensor* filter = weight(conv.input(1));
  const Tensor* bias = weight(conv.input(2));
  if (filter == nullptr || bias == nullptr || filter->rank() != 4 ||
      bias->rank() != 1) {
    return std::nullopt;
  }
  const int64_t out_channels = ConvOutputChannels(*filter, depthwise);
  if (bias->dim(0) != out_channels) return std::nullopt;
  auto padding = conv.attr().find("padding");
  const bool valid =
      padding != conv.attr().end() && padding->second.s() == "VALID";
  bool unit_window = filter->dim(0) == 1 && filter->dim(1) == 1;
  if (auto strides = conv.attr().find("strides");
      strides != conv.attr().end()) {
    for (int64_t s : strides->second.list().i()) unit_window &= s == 1;
  }
  const bool explicit_padding =
      padding != conv.attr().end() && padding->second.s() == "EXPLICIT";
  if (!valid && (!unit_window || explicit_padding)) return std::nullopt;
  return FoldTarget{filter, bias, depthwise, filter->dim(2)};
}

// The output channels of the convolution `n` (its filter a weight), or -1:
// a tensor known to be [..., channels], which a [channels] operand
// broadcasts against element-wise (so the fold keeps the shape).
int64_t ConvChannels(const GraphDef& g, const NodeDef& n,
                     const absl::flat_hash_map<std::string, int>& index,
                     const WeightMap& weights) {
  const bool depthwise = n.op() == "DepthwiseConv2dNative" ||
                         n.op() == "FusedDepthwiseConv2dNative";
  if ((n.op() != "Conv2D" && n.op() != "_FusedConv2D" && !depthwise) ||
      n.input_size() < 2 || !IsNhwc(n)) {
    return -1;
  }
  auto it = index.find(NameView(n.input(1)));
  if (it == index.end() || OutputIndexOf(n.input(1)) != 0) return -1;
  // -1: a filter this scan made (a fold into `n` itself), not yet a node.
  const Tensor* f = nullptr;
  if (it->second >= 0) {
    f = FloatWeight(g.node(it->second), weights);
  } else if (auto w = weights.find(NameView(n.input(1))); w != weights.end()) {
    f = &w->second;
  }
  if (f == nullptr || f->rank() != 4 || f->dtype() != DType::kFloat32) {
    return -1;
  }
  return ConvOutputChannels(*f, depthwise);
}

// A float32 weight of one value or one per channel along its last axis
// (dims 1 before it), as `channels` values; nullopt otherwise.
std::optional<std::vector<float>> PerChannel(const NodeDef& n,
                                             const WeightMap& weights,
                                             int64_t channels) {
  if (std::optional<float> one = OneFloat(n, weights)) {
    return std::vector<float>(channels, *one);
  }
  const Tensor* t = FloatWeight(n, weights);
  if (t == nullptr || t->rank() < 1 || t->rank() > 4 ||
      t->dim(t->rank() - 1) != channels) {
    return std::nullopt;
  }
  for (int d = 0; d + 1 < t->rank(); ++d) {
    if (t->dim(d) != 1) return std::nullopt;
  }
  return std::vector<float>(t->data<float>(), t->data<float>() + channels);
}

bool Finite(const std::vector<float>& v) {
  for (float x : v) {
    if (!std::isfinite(x)) return false;
  }
  return true;
}

// A spatial MaxPool / AvgPool (NHWC, float32, window and stride 1 on batch
// and channels).
bool IsSpatialPool(const NodeDef& n) {
  if ((n.op() != "MaxPool" && n.op() != "AvgPool") || !IsNhwc(n) ||
      NumDataInputs(n) != 1 || HasControlInputs(n) ||
      !TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT)) {
    return false;
  }
  for (const char* attr : {"ksize", "strides"}) {
    auto a = n.attr().find(attr);
    if (a == n.attr().end() || a->second.list().i_size() != 4 ||
        a->second.list().i(0) != 1 || a->second.list().i(3) != 1) {
      return false;
    }
  }
  return true;
}

}  // namespace

int FoldAffineIntoConv(GraphDef* graph, WeightMap* weights,
                       const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  std::vector<NodeDef> added;
  int folded = 0;
  // The node an input names (data, output 0, a node of the scan), or -1.
  auto producer = [&](const std::string& input) {
    auto it = index.find(NameView(input));
    return IsControl(input) || OutputIndexOf(input) != 0 || it == index.end() ||
                   it->second < 0 || dead[it->second]
               ? -1
               : it->second;
  };
  auto plain = [&](const NodeDef& n) {
    return NumDataInputs(n) == 2 && n.input_size() == 2 &&
           TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT) &&
           !keep.contains(n.name());
  };
  for (int ci = 0; ci < graph->node_size(); ++ci) {
    if (dead[ci]) continue;
    const NodeDef& conv = graph->node(ci);
    const std::optional<FoldTarget> target =
        MatchTarget(*graph, conv, index, *weights);
    if (!target.has_value()) continue;
    const int64_t channels = target->in_channels;
    // conv <- [pool <-] affine: each the only reader of the one before.
    int pool = -1;
    int affine = producer(conv.input(0));
    if (affine >= 0 && IsSpatialPool(graph->node(affine))) {
      if (OnlyReader(uses, graph->node(affine).name(), keep) != ci) continue;
      pool = affine;
      affine = producer(graph->node(pool).input(0));
    }
    if (affine < 0 || OnlyReader(uses, graph->node(affine).name(), keep) !=
                          (pool >= 0 ? pool : ci)) {
      continue;
    }
    // affine = Add(Mul(x, s), b), Add(x, b) or Mul(x, s), the constants on
    // either side.
    std::vector<float> scale(channels, 1.0f), shift(channels, 0.0f);
    int add = -1, mul = -1;
    std::string x;
    const NodeDef* a = &graph->node(affine);
    auto split = [&](const NodeDef& n, std::vector<float>* values,
                     std::string* other) {
      for (int k = 0; k < 2; ++k) {
        const int c = producer(n.input(k));
        if (c < 0) continue;
        if (auto v = PerChannel(graph->node(c), *weights, channels)) {
          *values = std::move(*v);
          *other = n.input(1 - k);
          return true;
        }
      }
      return false;
    };
    if ((a->op() == "Add" || a->op() == "AddV2") && plain(*a) &&
        !HasControlInputs(*a) && split(*a, &shift, &x)) {
      add = affine;
      const int m = producer(x);
      if (m >= 0 && graph->node(m).op() == "Mul" && plain(graph->node(m)) &&
          !HasControlInputs(graph->node(m)) &&
          OnlyReader(uses, graph->node(m).name(), keep) == add &&
          split(graph->node(m), &scale, &x)) {
        mul = m;
      }
    } else if (a->op() == "Mul" && plain(*a) && !HasControlInputs(*a) &&
               split(*a, &scale, &x)) {
      mul = affine;
    } else {
      continue;
    }
    // x must already be [..., channels] (else the constant broadcast it
    // to that shape and the fold would change it); a MaxPool commutes with
    // an increasing affine only.
    const int xi = producer(x);
    if (xi < 0 ||
        ConvChannels(*graph, graph->node(xi), index, *weights) != channels ||
        !Finite(scale) || !Finite(shift)) {
      continue;
    }
    bool positive = true;
    for (float s : scale) positive &= s > 0.0f;
    if (pool >= 0 && graph->node(pool).op() == "MaxPool" && !positive) {
      continue;
    }
    // conv(x * s + b, w) + bias = conv(x, w * s) + (bias + sum w * b): the
    // filter's input channel is dim 2 (HWIO and HWCM alike).
    const Tensor& w = *target->filter;
    const int64_t per_in = w.dim(3);  // out channels / multiplier
    auto scaled = Tensor::AllocateUninitialized(DType::kFloat32, w.shape());
    auto biased =
        Tensor::AllocateUninitialized(DType::kFloat32, target->bias->shape());
    if (!scaled.ok() || !biased.ok()) continue;
    std::vector<double> extra(target->bias->dim(0), 0.0);
    const float* wv = w.data<float>();
    float* sv = scaled->mutable_data<float>();
    // [taps, in, per_in]: HWIO's output channel is j, HWCM's in * M + j.
    const int64_t taps = w.dim(0) * w.dim(1);
    int64_t i = 0;
    for (int64_t t = 0; t < taps; ++t) {
      for (int64_t ic = 0; ic < channels; ++ic) {
        const float s = scale[ic];
        const double b = shift[ic];
        double* out = extra.data() + (target->depthwise ? ic * per_in : 0);
        for (int64_t j = 0; j < per_in; ++j, ++i) {
          sv[i] = wv[i] * s;
          out[j] += wv[i] * b;
        }
      }
    }
    for (int64_t o = 0; o < target->bias->dim(0); ++o) {
      biased->mutable_data<float>()[o] =
          static_cast<float>(target->bias->data<float>()[o] + extra[o]);
    }
    const std::string filter_name =
        AddWeightConst(conv.name() + "/folded_filter", conv.device(),
                       *std::move(scaled), &index, weights, &added);
    const std::string bias_name =
        AddWeightConst(conv.name() + "/folded_bias", conv.device(),
                       *std::move(biased), &index, weights, &added);
    NodeDef* c = graph->mutable_node(ci);
    c->set_input(1, filter_name);
    c->set_input(2, bias_name);
    graph->mutable_node(pool >= 0 ? pool : ci)->set_input(0, x);
    if (add >= 0) dead[add] = true;
    if (mul >= 0) dead[mul] = true;
    ++folded;
  }
  if (folded == 0) return 0;
  DropDead(graph, dead);
  for (NodeDef& n : added) *graph->add_node() = std::move(n);
  DropConstsNoLongerRead(graph, uses, keep, weights);
  return folded;
}

}  // namespace passes
}  // namespace graphrt
