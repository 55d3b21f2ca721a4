#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// Element-wise ops of two inputs: op(Transpose(a), Transpose(b)) ==
// Transpose(op(a, b)) for one permutation, and a scalar operand broadcasts
// the same either way.
bool IsElementwiseBinary(const std::string& op) {
  static const auto* ops = new absl::flat_hash_set<std::string>{
      "Add",     "AddV2",   "Sub",     "Mul",
      "RealDiv", "Maximum", "Minimum", "SquaredDifference"};
  return ops->contains(op);
}

// `perm` is a permutation of 0..rank-1.
bool IsPermutation(const std::vector<int64_t>& perm) {
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[p]) {
      return false;
    }
    seen[p] = true;
  }
  return true;
}

// The rewrites of one scan over the graph (SinkTransposes loops until a
// scan changes nothing).
class Scan {
 public:
  Scan(GraphDef* graph, const WeightMap& weights, const KeepSet& keep)
      : graph_(*graph),
        weights_(weights),
        keep_(keep),
        uses_(CountUses(*graph)),
        touched_(graph->node_size(), false),
        dead_(graph->node_size(), false) {
    for (int i = 0; i < graph_.node_size(); ++i) {
      index_of_[graph_.node(i).name()] = i;
    }
  }

  // Rewrites every Transpose it can; returns how many.
  int Run() {
    int rewrites = 0;
    const int n = graph_.node_size();
    for (int ti = 0; ti < n; ++ti) {
      if (graph_.node(ti).op() == "Transpose" && TrySink(ti)) ++rewrites;
    }
    for (NodeDef& node : added_) *graph_.add_node() = std::move(node);
    if (rewrites > 0) {
      dead_.resize(graph_.node_size(), false);
      DropDead(&graph_, dead_);
    }
    return rewrites;
  }

 private:
  const NodeDef* NodeOf(const std::string& input) const {
    auto it = index_of_.find(NameView(input));
    return it == index_of_.end() ? nullptr : &graph_.node(it->second);
  }

  // The permutation of Transpose node `t` (a Const perm), or nullopt.
  std::optional<std::vector<int64_t>> PermOf(const NodeDef& t) const {
    if (t.input_size() != 2 || IsControl(t.input(0)) || IsControl(t.input(1)) ||
        OutputIndexOf(t.input(1)) != 0) {
      return std::nullopt;
    }
    const NodeDef* perm_node = NodeOf(t.input(1));
    if (perm_node == nullptr) return std::nullopt;
    std::optional<IntConst> perm = IntConstValue(*perm_node, weights_);
    if (!perm.has_value() || perm->dims.size() != 1 ||
        !IsPermutation(perm->values)) {
      return std::nullopt;
    }
    return perm->values;
  }

  // Moves Transpose `ti` below its only consumer when that consumer is a
  // layout-free unary op or a constant Pad, or cancels it against a
  // following inverse Transpose. The Transpose's name then holds the
  // consumer's op applied to the untransposed input, and the consumer's
  // name holds the Transpose of that, so the consumer's own readers see the
  // same values and need no rewiring.
  bool TrySink(int ti) {
    if (touched_[ti]) return false;
    const NodeDef& t = graph_.node(ti);
    if (keep_.contains(t.name())) return false;
    auto u = uses_.find(t.name());
    if (u == uses_.end() || u->second.data == 0 || u->second.control != 0) {
      return false;
    }
    std::optional<std::vector<int64_t>> perm = PermOf(t);
    if (!perm.has_value()) return false;
    if (u->second.data > 1) return Split(ti, u->second.consumers, *perm);
    const int ci = u->second.consumers[0];
    if (!Absorbs(ti, ci, *perm)) return false;
    const NodeDef& c = graph_.node(ci);
    if (c.op() == "Transpose") return Cancel(ti, ci);
    if (c.op() == "ConcatV2") return SinkConcat(ci, *perm);
    if (IsElementwiseBinary(c.op())) return SinkBinary(ci, *perm);
    if (c.op() == "Pad" || c.op() == "PadV2") return SinkPad(ti, ci, *perm);
    return Swap(ti, ci, NodeDef(c));
  }

  // Whether node ci, reading Transpose ti (permutation `perm`) once, can
  // take it below itself: an inverse Transpose, a layout-free unary op, a
  // constant Pad, a ConcatV2 of transposes with the same permutation, or a
  // binary element-wise op whose operands are such transposes or scalar
  // Consts.
  bool Absorbs(int ti, int ci, const std::vector<int64_t>& perm,
               bool splitting = false) const {
    if (touched_[ci]) return false;
    const NodeDef& t = graph_.node(ti);
    const NodeDef& c = graph_.node(ci);
    int reads = 0;
    for (const std::string& in : c.input()) {
      if (IsControl(in)) return false;
      if (NameView(in) == t.name()) {
        if (OutputIndexOf(in) != 0) return false;
        ++reads;
      }
    }
    if (reads != 1) return false;
    if (c.op() == "ConcatV2") {
      return ConcatAxis(c, perm, splitting ? ti : -1).has_value();
    }
    if (IsElementwiseBinary(c.op())) {
      return c.input_size() == 2 &&
             BinaryOperands(c, perm, splitting ? ti : -1).has_value();
    }
    if (c.input_size() == 0 || NameView(c.input(0)) != t.name()) return false;
    if (c.op() == "Transpose") {
      std::optional<std::vector<int64_t>> q = PermOf(c);
      if (!q.has_value() || q->size() != perm.size()) return false;
      for (size_t i = 0; i < q->size(); ++i) {
        if (perm[(*q)[i]] != static_cast<int64_t>(i)) return false;
      }
      return true;
    }
    if (IsLayoutFreeUnary(c.op())) return c.input_size() == 1;
    if ((c.op() == "Pad" && c.input_size() == 2) ||
        (c.op() == "PadV2" && c.input_size() == 3)) {
      return PaddingsOf(c, static_cast<int64_t>(perm.size())).has_value();
    }
    return false;
  }

  // A Transpose read by several nodes that can all absorb it: each reader
  // but the first gets its own copy (named <transpose>/_copy...), which the
  // next scans sink one by one.
  bool Split(int ti, absl::Span<const int> consumers,
             const std::vector<int64_t>& perm) {
    for (int ci : consumers) {
      if (!Absorbs(ti, ci, perm, /*splitting=*/true)) return false;
    }
    const NodeDef& t = graph_.node(ti);
    for (size_t k = 1; k < consumers.size(); ++k) {
      const std::string name = NewName(absl::StrCat(t.name(), "/_copy"));
      NodeDef& copy = added_.emplace_back(t);
      copy.set_name(name);
      for (std::string& in :
           *graph_.mutable_node(consumers[k])->mutable_input()) {
        if (NameView(in) == t.name()) in = name;
      }
    }
    touched_[ti] = true;
    for (int ci : consumers) touched_[ci] = true;
    return true;
  }

  // Transpose(Transpose(x, p), q) with p[q[i]] == i (Absorbs checked it):
  // the outer node becomes Identity(x) (RemoveIdentities then drops it),
  // the inner one goes.
  bool Cancel(int ti, int ci) {
    NodeDef& outer = *graph_.mutable_node(ci);
    const std::string x = graph_.node(ti).input(0);
    tensorflow::AttrValue dtype = outer.attr().contains("T")
                                      ? outer.attr().at("T")
                                      : tensorflow::AttrValue();
    outer.set_op("Identity");
    outer.clear_input();
    outer.add_input(x);
    outer.mutable_attr()->clear();
    if (dtype.value_case() != tensorflow::AttrValue::VALUE_NOT_SET) {
      (*outer.mutable_attr())["T"] = dtype;
    }
    dead_[ti] = true;
    touched_[ti] = touched_[ci] = true;
    return true;
  }

  // Node ti (Transpose(x, perm)) becomes `op_node` reading x, with its
  // other inputs; node ci becomes Transpose(ti, perm).
  bool Swap(int ti, int ci, NodeDef op_node) {
    NodeDef transpose = graph_.node(ti);
    NodeDef& below = *graph_.mutable_node(ti);
    const std::string x = transpose.input(0);
    op_node.set_name(transpose.name());
    op_node.set_input(0, x);
    below = std::move(op_node);
    NodeDef& above = *graph_.mutable_node(ci);
    const std::string name = above.name();
    transpose.set_name(name);
    transpose.set_input(0, below.name());
    above = std::move(transpose);
    touched_[ti] = touched_[ci] = true;
    return true;
  }

  // The [rank, 2] constant paddings of Pad / PadV2 node `pad`, or nullopt.
  std::optional<std::vector<int64_t>> PaddingsOf(const NodeDef& pad,
                                                 int64_t rank) const {
    if (IsControl(pad.input(1)) || OutputIndexOf(pad.input(1)) != 0) {
      return std::nullopt;
    }
    const NodeDef* node = NodeOf(pad.input(1));
    if (node == nullptr) return std::nullopt;
    std::optional<IntConst> paddings = IntConstValue(*node, weights_);
    if (!paddings.has_value() ||
        paddings->dims != std::vector<int64_t>{rank, 2}) {
      return std::nullopt;
    }
    return paddings->values;
  }

  // The axis of ConcatV2 node `c` if every value it joins is an untouched
  // Transpose by `perm` read only there (node `splitting`, about to be
  // split, may have other readers); nullopt otherwise.
  std::optional<int64_t> ConcatAxis(const NodeDef& c,
                                    const std::vector<int64_t>& perm,
                                    int splitting = -1) const {
    const int n = c.input_size() - 1;
    if (n < 1) return std::nullopt;
    const NodeDef* axis_node = NodeOf(c.input(n));
    if (axis_node == nullptr || OutputIndexOf(c.input(n)) != 0) {
      return std::nullopt;
    }
    std::optional<IntConst> axis = IntConstValue(*axis_node, weights_);
    const int64_t rank = static_cast<int64_t>(perm.size());
    if (!axis.has_value() || !axis->dims.empty() || axis->values[0] < -rank ||
        axis->values[0] >= rank) {
      return std::nullopt;
    }
    for (int i = 0; i < n; ++i) {
      if (!TransposedBy(c.input(i), perm, splitting)) return std::nullopt;
    }
    return axis->values[0] < 0 ? axis->values[0] + rank : axis->values[0];
  }

  // Whether `input` is an untouched Transpose by `perm` read only once
  // (node `splitting`, about to be split, may have other readers).
  bool TransposedBy(const std::string& input, const std::vector<int64_t>& perm,
                    int splitting) const {
    auto it = index_of_.find(NameView(input));
    if (IsControl(input) || it == index_of_.end() || touched_[it->second] ||
        OutputIndexOf(input) != 0) {
      return false;
    }
    const NodeDef& t = graph_.node(it->second);
    auto u = uses_.find(t.name());
    return t.op() == "Transpose" && !keep_.contains(t.name()) &&
           u != uses_.end() && u->second.control == 0 &&
           (u->second.data == 1 || it->second == splitting) &&
           PermOf(t) == perm;
  }

  // For a binary element-wise node `c`: per operand, whether it is a
  // Transpose by `perm` (see TransposedBy) rather than a scalar Const;
  // nullopt when an operand is neither or neither is a Transpose.
  std::optional<std::vector<bool>> BinaryOperands(
      const NodeDef& c, const std::vector<int64_t>& perm,
      int splitting = -1) const {
    std::vector<bool> transposed(2, false);
    for (int i = 0; i < 2; ++i) {
      if (TransposedBy(c.input(i), perm, splitting)) {
        transposed[i] = true;
        continue;
      }
      const NodeDef* operand = NodeOf(c.input(i));
      if (operand == nullptr || IsControl(c.input(i)) ||
          OutputIndexOf(c.input(i)) != 0 ||
          !FloatScalarConstValue(*operand, weights_).has_value()) {
        return std::nullopt;
      }
    }
    if (!transposed[0] && !transposed[1]) return std::nullopt;
    return transposed;
  }

  // op(Transpose(a, perm), Transpose(b, perm)) == Transpose(op(a, b), perm)
  // (either operand may be a scalar Const instead): the transposes go, a
  // new node <op>/_sunk reads their inputs, and the op's name holds the
  // Transpose of that.
  bool SinkBinary(int ci, const std::vector<int64_t>& perm) {
    const NodeDef& c = graph_.node(ci);
    std::optional<std::vector<bool>> transposed = BinaryOperands(c, perm);
    if (!transposed.has_value()) return false;
    NodeDef joined = c;
    joined.set_name(NewName(absl::StrCat(c.name(), "/_sunk")));
    NodeDef transpose;
    for (int i = 0; i < 2; ++i) {
      if (!(*transposed)[i]) continue;
      const int ti = index_of_.at(NameView(c.input(i)));
      const NodeDef& t = graph_.node(ti);
      joined.set_input(i, t.input(0));
      if (transpose.op().empty()) transpose = t;
      dead_[ti] = true;
      touched_[ti] = true;
    }
    transpose.set_name(c.name());
    transpose.set_input(0, joined.name());
    added_.push_back(std::move(joined));
    *graph_.mutable_node(ci) = std::move(transpose);
    touched_[ci] = true;
    return true;
  }

  // An unused node name starting with `base`.
  std::string NewName(const std::string& base) {
    std::string name = base;
    while (index_of_.contains(name) || added_names_.contains(name)) {
      name += "_";
    }
    added_names_.insert(name);
    return name;
  }

  // A new int32 Const node (appended after the scan); returns its name.
  std::string AddIntConst(const std::string& base,
                          const std::vector<int64_t>& dims,
                          const std::vector<int64_t>& values) {
    const std::string name = NewName(base);
    added_.push_back(Int32ConstNode(name, dims, values));
    return name;
  }

  // Pad(Transpose(x, perm), paddings) == Transpose(Pad(x, paddings'), perm)
  // with paddings'[perm[i]] = paddings[i]: a new Const holds paddings'.
  bool SinkPad(int ti, int ci, const std::vector<int64_t>& perm) {
    const NodeDef& pad = graph_.node(ci);
    const int64_t rank = static_cast<int64_t>(perm.size());
    std::optional<std::vector<int64_t>> paddings = PaddingsOf(pad, rank);
    if (!paddings.has_value()) return false;
    std::vector<int64_t> moved(2 * rank);
    for (int64_t i = 0; i < rank; ++i) {
      moved[2 * perm[i]] = (*paddings)[2 * i];
      moved[2 * perm[i] + 1] = (*paddings)[2 * i + 1];
    }
    NodeDef sunk = pad;
    sunk.set_input(1, AddIntConst(absl::StrCat(pad.name(), "/_sunk_paddings"),
                                  {rank, 2}, moved));
    (*sunk.mutable_attr())["Tpaddings"].set_type(tensorflow::DT_INT32);
    return Swap(ti, ci, std::move(sunk));
  }

  // ConcatV2(Transpose(a, perm), Transpose(b, perm), ..., axis) ==
  // Transpose(ConcatV2(a, b, ..., perm[axis]), perm): the joined transposes
  // go, a new node <concat>/_sunk joins their inputs, and the ConcatV2's
  // name holds the Transpose of that.
  bool SinkConcat(int ci, const std::vector<int64_t>& perm) {
    const NodeDef& c = graph_.node(ci);
    std::optional<int64_t> axis = ConcatAxis(c, perm);
    if (!axis.has_value()) return false;
    const int n = c.input_size() - 1;
    NodeDef joined = c;
    joined.set_name(NewName(absl::StrCat(c.name(), "/_sunk")));
    NodeDef transpose;
    for (int i = 0; i < n; ++i) {
      const int ti = index_of_.at(NameView(c.input(i)));
      const NodeDef& t = graph_.node(ti);
      joined.set_input(i, t.input(0));
      if (i == 0) transpose = t;
      dead_[ti] = true;
      touched_[ti] = true;
    }
    joined.set_input(n, AddIntConst(absl::StrCat(c.name(), "/_sunk_axis"), {},
                                    {perm[*axis]}));
    (*joined.mutable_attr())["Tidx"].set_type(tensorflow::DT_INT32);
    transpose.set_name(c.name());
    transpose.set_input(0, joined.name());
    added_.push_back(std::move(joined));
    *graph_.mutable_node(ci) = std::move(transpose);
    touched_[ci] = true;
    return true;
  }

  GraphDef& graph_;
  const WeightMap& weights_;
  const KeepSet& keep_;
  const absl::flat_hash_map<std::string, Uses> uses_;
  absl::flat_hash_map<std::string, int> index_of_;
  std::vector<bool> touched_;  // rewritten in this scan: uses_ is stale
  std::vector<bool> dead_;
  std::vector<NodeDef> added_;  // appended to the graph after the scan
  absl::flat_hash_set<std::string> added_names_;
};

}  // namespace

int SinkTransposes(GraphDef* graph, const WeightMap& weights,
                   const KeepSet& keep) {
  if (HasV1ControlFlow(*graph)) return 0;
  int total = 0;
  // Each scan moves a Transpose one node down; a chain of k layout-free
  // nodes takes k scans. The bound keeps a pathological graph's load time
  // linear in practice.
  for (int scan = 0; scan < 32; ++scan) {
    const int rewrites = Scan(graph, weights, keep).Run();
    if (rewrites == 0) break;
    total += rewrites;
  }
  return total;
}

}  // namespace passes
}  // namespace graphrt
