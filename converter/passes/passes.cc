#include "converter/passes/passes.h"

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "converter/passes/pass_util.h"

namespace graphrt {
namespace passes {
using tensorflow::GraphDef;
using tensorflow::NodeDef;

std::string NodeNameOf(const std::string& input) {
  return std::string(NameView(input));
}

int RemoveIdentities(GraphDef* graph, const KeepSet& keep) {
  // TF.js graphs' Identity nodes are mostly their signature outputs (kept)
  // or sinks: look for a removable one before counting the graph's uses.
  absl::flat_hash_set<absl::string_view> candidates;
  for (const NodeDef& n : graph->node()) {
    if ((n.op() == "Identity" || n.op() == "StopGradient" ||
         n.op() == "Snapshot") &&
        n.input_size() == 1 && !IsControl(n.input(0)) &&
        !keep.contains(n.name())) {
      candidates.insert(n.name());
    }
  }
  bool read = false;
  for (const NodeDef& n : graph->node()) {
    for (const std::string& in : n.input()) {
      if (!IsControl(in) && candidates.contains(NameView(in))) read = true;
    }
    if (read) break;
  }
  if (!read || HasV1ControlFlow(*graph)) return 0;
  const auto uses = CountUses(*graph);
  absl::flat_hash_map<std::string, std::string> forward;  // name -> input
  std::vector<bool> dead(graph->node_size(), false);
  for (int i = 0; i < graph->node_size(); ++i) {
    const NodeDef& n = graph->node(i);
    if (n.op() != "Identity" && n.op() != "StopGradient" &&
        n.op() != "Snapshot") {
      continue;
    }
    if (n.input_size() != 1 || IsControl(n.input(0)) ||
        keep.contains(n.name())) {
      continue;
    }
    auto u = uses.find(n.name());
    // Sinks stay: they are the default outputs of signature-less graphs.
    if (u == uses.end() || u->second.data == 0 || u->second.control != 0) {
      continue;
    }
    forward[n.name()] = n.input(0);
    dead[i] = true;
  }
  if (forward.empty()) return 0;
  // Follows chains of removed identities to the surviving producer.
  auto resolve = [&](std::string in) {
    for (int hops = 0; hops <= graph->node_size(); ++hops) {
      auto it = forward.find(NameView(in));
      if (it == forward.end() || OutputIndexOf(in) != 0) return in;
      in = it->second;
    }
    return in;
  };
  for (int i = 0; i < graph->node_size(); ++i) {
    if (dead[i]) continue;
    for (std::string& in : *graph->mutable_node(i)->mutable_input()) {
      if (!IsControl(in)) in = resolve(in);
    }
  }
  DropDead(graph, dead);
  return static_cast<int>(forward.size());
}

int FuseConvBiasActivation(GraphDef* graph, const WeightMap& weights,
                           const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  absl::flat_hash_map<std::string, int> index_of;
  for (int i = 0; i < graph->node_size(); ++i) {
    index_of[graph->node(i).name()] = i;
  }
  auto node_of = [&](const std::string& input) -> const NodeDef* {
    auto it = index_of.find(NameView(input));
    return it == index_of.end() ? nullptr : &graph->node(it->second);
  };
  auto only_consumer = [&](const std::string& name) {
    return OnlyReader(uses, name, keep);
  };
  std::vector<bool> dead(graph->node_size(), false);
  int fused = 0;
  for (int ci = 0; ci < graph->node_size(); ++ci) {
    const NodeDef& conv = graph->node(ci);
    const bool depthwise = conv.op() == "DepthwiseConv2dNative";
    if ((conv.op() != "Conv2D" && !depthwise) || dead[ci] ||
        NumDataInputs(conv) != 2 || IsControl(conv.input(1)) || !IsNhwc(conv) ||
        !TypeIsOrAbsent(conv, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    const NodeDef* filter = node_of(conv.input(1));
    if (filter == nullptr || OutputIndexOf(conv.input(1)) != 0) continue;
    auto filter_dims = FloatConstDims(*filter, weights);
    if (!filter_dims || filter_dims->size() != 4) continue;
    const int64_t out_channels =
        depthwise ? (*filter_dims)[2] * (*filter_dims)[3] : (*filter_dims)[3];
    const int ai = only_consumer(conv.name());
    if (ai < 0 || dead[ai]) continue;
    const NodeDef& add = graph->node(ai);
    if ((add.op() != "BiasAdd" && add.op() != "Add" && add.op() != "AddV2") ||
        NumDataInputs(add) != 2 || IsControl(add.input(1)) ||
        !TypeIsOrAbsent(add, "T", tensorflow::DT_FLOAT) ||
        (add.op() == "BiasAdd" && !IsNhwc(add))) {
      continue;
    }
    const int conv_pos = NameView(add.input(0)) == conv.name() ? 0 : 1;
    if (OutputIndexOf(add.input(conv_pos)) != 0 ||
        (add.op() == "BiasAdd" && conv_pos != 0)) {
      continue;
    }
    const std::string& bias_input = add.input(1 - conv_pos);
    const NodeDef* bias = node_of(bias_input);
    if (bias == nullptr || OutputIndexOf(bias_input) != 0) continue;
    auto bias_dims = FloatConstDims(*bias, weights);
    if (!bias_dims || *bias_dims != std::vector<int64_t>{out_channels}) {
      continue;
    }
    int last = ai;
    std::string activation;
    const int ri = only_consumer(add.name());
    if (ri >= 0 && !dead[ri]) {
      const NodeDef& act = graph->node(ri);
      if ((act.op() == "Relu" || act.op() == "Relu6") &&
          NumDataInputs(act) == 1 && OutputIndexOf(act.input(0)) == 0 &&
          TypeIsOrAbsent(act, "T", tensorflow::DT_FLOAT)) {
        activation = act.op();
        last = ri;
      }
    }
    NodeDef node = FusedChainNode(
        *graph, graph->node(last).name(),
        depthwise ? "FusedDepthwiseConv2dNative" : "_FusedConv2D",
        conv.device(), {conv.input(0), conv.input(1), bias_input},
        {ci, ai, last});
    *node.mutable_attr() = conv.attr();
    auto& attrs = *node.mutable_attr();
    attrs["T"].set_type(tensorflow::DT_FLOAT);
    auto* ops = attrs["fused_ops"].mutable_list();
    ops->Clear();
    ops->add_s("BiasAdd");
    if (!activation.empty()) ops->add_s(activation);
    attrs["num_args"].set_i(1);
    dead[ci] = true;
    if (last != ai) dead[ai] = true;
    *graph->mutable_node(last) = std::move(node);
    dead[last] = false;
    ++fused;
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

int FuseAbsPrelu(GraphDef* graph, const WeightMap& weights,
                 const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  absl::flat_hash_map<std::string, int> index_of;
  for (int i = 0; i < graph->node_size(); ++i) {
    index_of[graph->node(i).name()] = i;
  }
  auto index_of_input = [&](const std::string& input) {
    auto it = index_of.find(NameView(input));
    return it == index_of.end() || IsControl(input) ? -1 : it->second;
  };
  // `consumer` is the only user of node `i` (data, output 0), and `i` may go.
  auto only_feeds = [&](int i, int consumer) {
    const std::string& name = graph->node(i).name();
    auto u = uses.find(name);
    return u != uses.end() && u->second.data == 1 && u->second.control == 0 &&
           u->second.consumers[0] == consumer && !keep.contains(name);
  };
  auto is_float_op = [&](const NodeDef& n, const char* op, int inputs) {
    return n.op() == op && NumDataInputs(n) == inputs &&
           n.input_size() == inputs &&
           TypeIsOrAbsent(n, "T", tensorflow::DT_FLOAT);
  };
  auto same_tensor = [](const std::string& a, const std::string& b) {
    return NameView(a) == NameView(b) && OutputIndexOf(a) == OutputIndexOf(b) &&
           OutputIndexOf(a) >= 0;
  };
  std::vector<bool> dead(graph->node_size(), false);
  int fused = 0;
  for (int ai = 0; ai < graph->node_size(); ++ai) {
    const NodeDef& add = graph->node(ai);
    if (dead[ai] ||
        (!is_float_op(add, "Add", 2) && !is_float_op(add, "AddV2", 2))) {
      continue;
    }
    for (int pos = 0; pos < 2; ++pos) {
      const int mi = index_of_input(add.input(pos));
      if (mi < 0 || dead[mi] || OutputIndexOf(add.input(pos)) != 0 ||
          !is_float_op(graph->node(mi), "Mul", 2) || !only_feeds(mi, ai)) {
        continue;
      }
      const NodeDef& mul = graph->node(mi);
      for (int mpos = 0; mpos < 2; ++mpos) {
        const int si = index_of_input(mul.input(mpos));
        const int ci = index_of_input(mul.input(1 - mpos));
        if (si < 0 || ci < 0 || dead[si] ||
            OutputIndexOf(mul.input(mpos)) != 0 ||
            OutputIndexOf(mul.input(1 - mpos)) != 0 ||
            !is_float_op(graph->node(si), "Sub", 2) || !only_feeds(si, mi)) {
          continue;
        }
        // alpha: a float constant whose dims are 1 but the last.
        auto alpha_dims = FloatConstDims(graph->node(ci), weights);
        if (!alpha_dims || alpha_dims->size() > 4) continue;
        bool ones = true;
        for (size_t d = 0; d + 1 < alpha_dims->size(); ++d) {
          ones = ones && (*alpha_dims)[d] == 1;
        }
        if (!ones) continue;
        const NodeDef& sub = graph->node(si);
        const std::string& x = sub.input(0);
        const int bi = index_of_input(sub.input(1));
        const int xi = index_of_input(x);
        if (bi < 0 || xi < 0 || dead[bi] || OutputIndexOf(sub.input(1)) != 0 ||
            !is_float_op(graph->node(bi), "Abs", 1) || !only_feeds(bi, si) ||
            !same_tensor(graph->node(bi).input(0), x)) {
          continue;
        }
        // x must be rank 4 (alpha's rank is at most 4): an NHWC conv or
        // batch norm output.
        const std::string& producer = graph->node(xi).op();
        if (producer != "Conv2D" && producer != "_FusedConv2D" &&
            producer != "DepthwiseConv2dNative" &&
            producer != "FusedDepthwiseConv2dNative" &&
            producer != "FusedBatchNorm" && producer != "FusedBatchNormV3") {
          continue;
        }
        const std::string& base = add.input(1 - pos);
        int ri = -1;
        if (!same_tensor(base, x)) {
          ri = index_of_input(base);
          if (ri < 0 || dead[ri] || OutputIndexOf(base) != 0 ||
              !is_float_op(graph->node(ri), "Relu", 1) || !only_feeds(ri, ai) ||
              !same_tensor(graph->node(ri).input(0), x)) {
            continue;
          }
        }
        NodeDef node;
        node.set_name(add.name());
        node.set_op("_AbsPrelu");
        node.set_device(add.device());
        node.add_input(x);
        node.add_input(mul.input(1 - mpos));
        auto& attrs = *node.mutable_attr();
        attrs["T"].set_type(tensorflow::DT_FLOAT);
        attrs["relu"].set_b(ri >= 0);
        dead[mi] = dead[si] = dead[bi] = true;
        if (ri >= 0) dead[ri] = true;
        *graph->mutable_node(ai) = std::move(node);
        ++fused;
        pos = 2;  // done with this Add
        break;
      }
    }
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

int FoldPadIntoConv(GraphDef* graph, const WeightMap& weights,
                    const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  absl::flat_hash_map<std::string, int> index_of;
  for (int i = 0; i < graph->node_size(); ++i) {
    index_of[graph->node(i).name()] = i;
  }
  std::vector<bool> dead(graph->node_size(), false);
  int folded = 0;
  for (int ci = 0; ci < graph->node_size(); ++ci) {
    NodeDef& conv = *graph->mutable_node(ci);
    const std::string& op = conv.op();
    if ((op != "Conv2D" && op != "_FusedConv2D" &&
         op != "DepthwiseConv2dNative" && op != "FusedDepthwiseConv2dNative") ||
        conv.input_size() < 2 || IsControl(conv.input(0)) || !IsNhwc(conv) ||
        !TypeIsOrAbsent(conv, "T", tensorflow::DT_FLOAT) ||
        OutputIndexOf(conv.input(0)) != 0) {
      continue;
    }
    auto padding = conv.attr().find("padding");
    auto explicit_pads = conv.attr().find("explicit_paddings");
    if (padding == conv.attr().end() || padding->second.s() != "VALID" ||
        (explicit_pads != conv.attr().end() &&
         explicit_pads->second.list().i_size() != 0)) {
      continue;
    }
    auto pi = index_of.find(NameView(conv.input(0)));
    if (pi == index_of.end() || dead[pi->second]) continue;
    const NodeDef& pad = graph->node(pi->second);
    auto u = uses.find(pad.name());
    if (pad.op() != "Pad" || u == uses.end() || u->second.data != 1 ||
        u->second.control != 0 || keep.contains(pad.name()) ||
        pad.input_size() != 2 || IsControl(pad.input(1)) ||
        OutputIndexOf(pad.input(1)) != 0 ||
        !TypeIsOrAbsent(pad, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    // paddings: a [4, 2] int32 / int64 Const, zero outside H and W.
    auto pn = index_of.find(NameView(pad.input(1)));
    if (pn == index_of.end()) continue;
    std::optional<IntConst> paddings =
        IntConstValue(graph->node(pn->second), weights);
    if (!paddings.has_value() || paddings->dims != std::vector<int64_t>{4, 2}) {
      continue;
    }
    const std::vector<int64_t>& p = paddings->values;
    bool ok = p[0] == 0 && p[1] == 0 && p[6] == 0 && p[7] == 0;
    for (int i = 2; i < 6; ++i) ok = ok && p[i] >= 0 && p[i] <= (1 << 20);
    if (!ok) continue;
    conv.set_input(0, pad.input(0));
    for (const std::string& in : pad.input()) {
      if (IsControl(in)) conv.add_input(in);
    }
    auto& attrs = *conv.mutable_attr();
    attrs["padding"].set_s("EXPLICIT");
    auto* list = attrs["explicit_paddings"].mutable_list();
    list->Clear();
    for (int64_t v : p) list->add_i(v);
    dead[pi->second] = true;
    ++folded;
  }
  if (folded > 0) DropDead(graph, dead);
  return folded;
}

int FuseAddActivation(GraphDef* graph, const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  int fused = 0;
  for (int ai = 0; ai < graph->node_size(); ++ai) {
    const NodeDef& add = graph->node(ai);
    if ((add.op() != "Add" && add.op() != "AddV2") || dead[ai] ||
        NumDataInputs(add) != 2 || IsControl(add.input(1)) ||
        add.attr().contains("_fused_activation") || keep.contains(add.name())) {
      continue;
    }
    auto t = add.attr().find("T");
    if (t == add.attr().end() || t->second.type() != tensorflow::DT_FLOAT) {
      continue;
    }
    auto u = uses.find(add.name());
    if (u == uses.end() || u->second.data != 1 || u->second.control != 0) {
      continue;
    }
    const int ri = u->second.consumers[0];
    const NodeDef& act = graph->node(ri);
    if (dead[ri] || (act.op() != "Relu" && act.op() != "Relu6") ||
        NumDataInputs(act) != 1 || OutputIndexOf(act.input(0)) != 0 ||
        !TypeIsOrAbsent(act, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    NodeDef node;
    node.set_name(act.name());
    node.set_op(add.op());
    node.set_device(add.device());
    node.add_input(add.input(0));
    node.add_input(add.input(1));
    KeepSet controls;
    for (int idx : {ai, ri}) {
      CopyControlInputs(graph->node(idx), &node, &controls);
    }
    *node.mutable_attr() = add.attr();
    (*node.mutable_attr())["_fused_activation"].set_s(act.op());
    dead[ai] = true;
    *graph->mutable_node(ri) = std::move(node);
    ++fused;
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

int FuseConvAdd(GraphDef* graph, const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  absl::flat_hash_map<std::string, int> index_of;
  for (int i = 0; i < graph->node_size(); ++i) {
    index_of[graph->node(i).name()] = i;
  }
  std::vector<bool> dead(graph->node_size(), false);
  int fused = 0;
  for (int ai = 0; ai < graph->node_size(); ++ai) {
    const NodeDef& add = graph->node(ai);
    if ((add.op() != "Add" && add.op() != "AddV2") || dead[ai] ||
        NumDataInputs(add) != 2 || add.input_size() != 2 ||
        !TypeIsOrAbsent(add, "T", tensorflow::DT_FLOAT)) {
      continue;
    }
    std::string activation;
    auto fa = add.attr().find("_fused_activation");
    if (fa != add.attr().end()) {
      activation = fa->second.s();
      if (activation != "Relu" && activation != "Relu6") continue;
    }
    for (int pos = 0; pos < 2; ++pos) {
      auto ci_it = index_of.find(NameView(add.input(pos)));
      if (ci_it == index_of.end() || OutputIndexOf(add.input(pos)) != 0) {
        continue;
      }
      const int ci = ci_it->second;
      const NodeDef& conv = graph->node(ci);
      auto u = uses.find(conv.name());
      if (dead[ci] || !IsBiasedConv(conv, /*depthwise_too=*/false) ||
          u == uses.end() || u->second.data != 1 || u->second.control != 0 ||
          keep.contains(conv.name()) || conv.input_size() != 3) {
        continue;
      }
      NodeDef node;
      node.set_name(add.name());
      node.set_op("_FusedConv2D");
      node.set_device(conv.device());
      for (int i = 0; i < 3; ++i) node.add_input(conv.input(i));
      node.add_input(add.input(1 - pos));
      *node.mutable_attr() = conv.attr();
      auto* ops = (*node.mutable_attr())["fused_ops"].mutable_list();
      ops->add_s("Add");
      if (!activation.empty()) ops->add_s(activation);
      (*node.mutable_attr())["num_args"].set_i(2);
      dead[ci] = true;
      *graph->mutable_node(ai) = std::move(node);
      ++fused;
      break;
    }
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

// Every count of PassStats has a name below: a new one must be added there.
static_assert(sizeof(PassStats) == 22 * sizeof(int),
              "PassStats changed: name the new count in Rewrites()");

std::vector<std::pair<std::string, int>> PassStats::Rewrites() const {
  const std::pair<const char*, int> all[] = {
      {"NCHW nodes run channels-last", nchw_nodes_converted},
      {"transposes sunk or cancelled", transposes_sunk},
      {"identities removed", identities_removed},
      {"nodes folded to constants", constants_folded},
      {"constant If branches taken", branches_pruned},
      {"constant v1 Switches pruned", switches_pruned},
      {"conv scales folded", conv_scales_folded},
      {"batch norms folded", batch_norms_folded},
      {"conv chains fused", convs_fused},
      {"MatMul chains fused", matmuls_fused},
      {"affines folded into convs", affines_folded},
      {"PReLUs of Abs fused", abs_prelus_fused},
      {"pads folded into convs", pads_folded},
      {"hard-swishes fused", hard_swishes_fused},
      {"Add + activation fused", adds_fused},
      {"residual Adds into convs", conv_adds_fused},
      {"resizes + Adds fused", resize_adds_fused},
      {"Relu clips fused", relu_clips_fused},
      {"pool / activation swapped", pool_activations_swapped},
      {"activations into convs", conv_activations_fused},
      {"PReLUs into convs", conv_prelus_fused},
      {"depthwise blocks fused", depthwise_blocks_fused},
  };
  std::vector<std::pair<std::string, int>> out;
  for (const auto& [name, count] : all) {
    if (count != 0) out.emplace_back(name, count);
  }
  return out;
}

PassStats OptimizeInferenceGraph(GraphDef* graph, WeightMap* weights_in,
                                 const KeepSet& keep,
                                 const OpRegistry* registry) {
  const WeightMap& weights = *weights_in;
  PassStats stats;
  const char* off = std::getenv("GRAPHRT_DISABLE_GRAPH_PASSES");
  if (off != nullptr && off[0] != '\0' && !(off[0] == '0' && off[1] == '\0')) {
    return stats;
  }
  // Each pass walks and indexes the whole graph; skip those whose anchor
  // ops the graph does not have (a third of a small model's load time went
  // to passes that could not match).
  // Strings, not views: the passes below move and drop nodes.
  absl::flat_hash_set<std::string> ops;
  bool nchw = false;
  for (const NodeDef& n : graph->node()) {
    ops.insert(n.op());
    if (auto f = n.attr().find("data_format"); f != n.attr().end()) {
      nchw |= f->second.s() == "NCHW";
    }
  }
  auto has = [&ops](std::initializer_list<absl::string_view> names) {
    for (absl::string_view name : names) {
      if (ops.contains(name)) return true;
    }
    return false;
  };
  const bool adds = has({"Add", "AddV2"});
  if (nchw) {
    stats.nchw_nodes_converted = ChooseNhwcLayout(graph);
    if (stats.nchw_nodes_converted > 0) ops.insert("Transpose");
  }
  if (has({"Transpose"})) {
    stats.transposes_sunk = SinkTransposes(graph, weights, keep);
  }
  if (stats.transposes_sunk > 0 ||
      has({"Identity", "StopGradient", "Snapshot"})) {
    stats.identities_removed = RemoveIdentities(graph, keep);
  }
  // Before the fusions: a folded value may be the filter or bias they want.
  if (registry != nullptr && has({"Const"})) {
    stats.constants_folded = FoldConstants(graph, weights_in, keep, *registry);
  }
  if (has({"If", "StatelessIf"})) {
    stats.branches_pruned = PruneConstantBranches(graph, *weights_in, keep);
  }
  if (has({"Switch"})) {
    stats.switches_pruned = PruneDeadSwitches(graph, *weights_in, keep);
    // Layout choice and transpose sinking skip graphs with v1 frames: a
    // graph the pruning left without any gets them now.
    if (stats.switches_pruned > 0 && !HasV1ControlFlow(*graph)) {
      if (nchw) {
        const int converted = ChooseNhwcLayout(graph);
        stats.nchw_nodes_converted += converted;
        if (converted > 0) ops.insert("Transpose");
      }
      if (has({"Transpose"})) {
        stats.transposes_sunk += SinkTransposes(graph, weights, keep);
      }
    }
    if (stats.switches_pruned > 0) {
      stats.identities_removed += RemoveIdentities(graph, keep);
    }
  }
  // Each gate below is a necessary condition of its pass's pattern (the
  // ops the pass starts from, or an edge between them: HasEdge).
  const std::initializer_list<absl::string_view> kRawConvs = {
      "Conv2D", "DepthwiseConv2dNative"};
  if (has(kRawConvs) && has({"Mul"}) && HasEdge(*graph, kRawConvs, {"Mul"})) {
    stats.conv_scales_folded = FoldConvScale(graph, weights_in, keep);
  }
  const std::initializer_list<absl::string_view> kBatchNorms = {
      "FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"};
  if (has(kRawConvs) && has(kBatchNorms) &&
      HasEdge(*graph, kRawConvs, kBatchNorms)) {
    stats.batch_norms_folded = FoldBatchNorm(graph, weights_in, keep);
    if (stats.batch_norms_folded > 0) ops.insert("BiasAdd");
  }
  if (has(kRawConvs) && has({"BiasAdd", "Add", "AddV2"}) &&
      HasEdge(*graph, kRawConvs, {"BiasAdd", "Add", "AddV2"})) {
    stats.convs_fused = FuseConvBiasActivation(graph, weights, keep);
  }
  if (has({"MatMul"}) && has({"BiasAdd", "Add", "AddV2"}) &&
      HasEdge(*graph, {"MatMul"}, {"BiasAdd", "Add", "AddV2"})) {
    stats.matmuls_fused = FuseMatMulBiasActivation(graph, weights, keep);
  }
  if (has({"Mul", "Add", "AddV2"}) &&
      HasEdge(
          *graph, {"Mul", "Add", "AddV2"},
          {"MaxPool", "AvgPool", "_FusedConv2D", "FusedDepthwiseConv2dNative"},
          /*first_input_only=*/true)) {
    stats.affines_folded = FoldAffineIntoConv(graph, weights_in, keep);
  }
  if (adds && has({"Abs"})) {
    stats.abs_prelus_fused = FuseAbsPrelu(graph, weights, keep);
  }
  if (has({"Pad"}) &&
      HasEdge(*graph, {"Pad"},
              {"Conv2D", "_FusedConv2D", "DepthwiseConv2dNative",
               "FusedDepthwiseConv2dNative"},
              /*first_input_only=*/true)) {
    stats.pads_folded = FoldPadIntoConv(graph, weights, keep);
  }
  // Before FuseAddActivation, which would fuse the pattern's Add + Relu6.
  if (adds && has({"Relu6"}) && has({"Mul"})) {
    stats.hard_swishes_fused = FuseHardSwish(graph, weights, keep);
  }
  // After FuseAbsPrelu, whose Add(Relu(x), ...) this must not take apart.
  if (adds && has({"Relu", "Relu6"}) &&
      HasEdge(*graph, {"Add", "AddV2"}, {"Relu", "Relu6"},
              /*first_input_only=*/true)) {
    stats.adds_fused = FuseAddActivation(graph, keep);
  }
  // After FuseAddActivation: takes its Add(+Relu) whole into the conv.
  // (_FusedConv2D may be new since the scan above.)
  if (adds && HasEdge(*graph, {"_FusedConv2D"}, {"Add", "AddV2"})) {
    stats.conv_adds_fused = FuseConvAdd(graph, keep);
  }
  // After FuseConvAdd: an Add a convolution took as its residual is gone.
  if (adds && has({"ResizeBilinear"}) &&
      HasEdge(*graph, {"ResizeBilinear"}, {"Add", "AddV2"})) {
    stats.resize_adds_fused = FuseResizeAdd(graph, keep);
  }
  // Before FuseConvActivation, which then takes the Relu into the conv.
  if (has({"MaxPool"}) && has({"Relu", "Relu6"})) {
    stats.pool_activations_swapped = SwapMaxPoolActivation(graph, keep);
  }
  // Last: FuseConvAdd wants convolutions whose fused_ops are [BiasAdd].
  if (HasEdge(*graph, {"_FusedConv2D", "FusedDepthwiseConv2dNative"},
              {"Relu", "Relu6", "LeakyRelu", "_HardSwish"},
              /*first_input_only=*/true)) {
    stats.conv_activations_fused = FuseConvActivation(graph, keep);
  }
  if (has({"Prelu", "_AbsPrelu"}) || stats.abs_prelus_fused > 0) {
    stats.conv_prelus_fused = FuseConvPrelu(graph, weights_in, keep);
  }
  // Last: its Relus are fused into convolutions and Adds by now.
  if (has({"Minimum"}) &&
      HasEdge(*graph,
              {"Relu", "_FusedConv2D", "FusedDepthwiseConv2dNative", "Add",
               "AddV2"},
              {"Minimum"})) {
    stats.relu_clips_fused = FuseReluClip(graph, weights, keep);
  }
  // Last: it takes whole conv chains, with their activations and residuals.
  if (has({"DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"}) &&
      HasEdge(*graph, {"DepthwiseConv2dNative", "FusedDepthwiseConv2dNative"},
              {"Conv2D", "_FusedConv2D"}, /*first_input_only=*/true)) {
    const char* scope = std::getenv("GRAPHRT_FUSE_DEPTHWISE_BLOCKS");
    const std::string_view v = scope == nullptr ? "" : scope;
    if (v != "0") {
      stats.depthwise_blocks_fused =
          FuseDepthwiseBlocks(graph, weights, keep, v == "expand");
    }
  }
  return stats;
}

}  // namespace passes
}  // namespace graphrt
