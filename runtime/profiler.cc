#include "runtime/profiler.h"

#include <algorithm>
#include <cmath>

namespace graphrt {
namespace {

bool IsConv(const std::string& op) {
  return op == "Conv2D" || op == "_FusedConv2D";
}
bool IsDepthwise(const std::string& op) {
  return op == "DepthwiseConv2dNative" || op == "FusedDepthwiseConv2dNative";
}
bool IsMatMul(const std::string& op) {
  return op == "MatMul" || op == "_FusedMatMul" || op == "BatchMatMul" ||
         op == "BatchMatMulV2" || op == "BatchMatMulV3";
}

// Product of the last two dims (1 for rank < 2 handled by the caller).
double LastTwo(const Tensor& t) {
  const int r = t.rank();
  return static_cast<double>(t.dim(r - 1)) * static_cast<double>(t.dim(r - 2));
}

}  // namespace

void Profiler::Record(const void* key, const std::string& name,
                      const std::string& op, double seconds, double flops) {
  MutexLock lock(&mu_);
  NodeStats& s = nodes_[key];
  if (s.calls == 0) {
    s.name = name;
    s.op = op;
  }
  ++s.calls;
  s.seconds += seconds;
  s.flops += flops;
}

double Profiler::EstimateFlops(const std::string& op,
                               absl::Span<const Tensor* const> inputs,
                               absl::Span<const Tensor> outputs) {
  if (outputs.empty() || !outputs[0].valid()) return 0;
  const Tensor& out = outputs[0];
  const double out_elements = static_cast<double>(out.num_elements());
  if (IsConv(op) || IsDepthwise(op)) {
    if (inputs.size() < 2 || inputs[1]->rank() != 4) return 0;
    const Tensor& f = *inputs[1];  // [kh, kw, in, out or multiplier]
    const double taps = static_cast<double>(f.dim(0)) * f.dim(1);
    return IsConv(op) ? 2 * out_elements * taps * f.dim(2)
                      : 2 * out_elements * taps;
  }
  if (op == "_FusedDepthwiseBlock") {
    // Inputs x, [expand filter [1, 1, c, e], bias], depthwise filter
    // [k, k, e, 1], [bias], project filter [1, 1, e, co], ...: at least
    // three (a block without expand stage or biases).
    if (inputs.size() < 3 || inputs[1]->rank() != 4) return 0;
    const bool expand = inputs[1]->dim(0) == 1;
    if (expand && inputs.size() < 5) return 0;
    const Tensor& dw = *inputs[expand ? 3 : 1];
    if (dw.rank() != 4 || out.rank() != 4 || out.dim(3) == 0) return 0;
    const double e = static_cast<double>(dw.dim(2));
    const double pixels = out_elements / out.dim(3);
    const double in_pixels =
        static_cast<double>(inputs[0]->num_elements()) /
        std::max<int64_t>(1, inputs[0]->rank() == 4 ? inputs[0]->dim(3) : 1);
    return (expand ? 2 * in_pixels * inputs[1]->dim(2) * e : 0) +
           2 * pixels * e * dw.dim(0) * dw.dim(1) + 2 * out_elements * e;
  }
  if (op == "Conv2DBackpropInput") {
    if (inputs.size() < 3 || inputs[1]->rank() != 4) return 0;
    const Tensor& f = *inputs[1];  // [kh, kw, in, out]
    const double dy = static_cast<double>(inputs[2]->num_elements());
    return 2 * dy * f.dim(0) * f.dim(1) * f.dim(2);
  }
  if (IsMatMul(op)) {
    if (inputs.size() < 2 || inputs[0]->rank() < 2 || inputs[1]->rank() < 2 ||
        out.rank() < 2 || LastTwo(out) == 0) {
      return 0;
    }
    // a = m x k, b = k x n, out = m x n (either transposed): k^2 =
    // |a| |b| / |out| over the matrix dims.
    const double k =
        std::sqrt(LastTwo(*inputs[0]) * LastTwo(*inputs[1]) / LastTwo(out));
    return 2 * out_elements * std::round(k);
  }
  return 0;
}

std::vector<Profiler::OpStats> Profiler::ByOp() const {
  absl::flat_hash_map<std::string, OpStats> by_op;
  {
    MutexLock lock(&mu_);
    for (const auto& [key, s] : nodes_) {
      OpStats& o = by_op[s.op];
      o.op = s.op;
      ++o.nodes;
      o.calls += s.calls;
      o.seconds += s.seconds;
      o.flops += s.flops;
    }
  }
  std::vector<OpStats> out;
  out.reserve(by_op.size());
  for (auto& [op, s] : by_op) out.push_back(std::move(s));
  std::sort(out.begin(), out.end(), [](const OpStats& a, const OpStats& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.op < b.op;
  });
  return out;
}

std::vector<Profiler::NodeStats> Profiler::TopNodes(int n) const {
  std::vector<NodeStats> out;
  {
    MutexLock lock(&mu_);
    out.reserve(nodes_.size());
    for (const auto& [key, s] : nodes_) out.push_back(s);
  }
  std::sort(out.begin(), out.end(), [](const NodeStats& a, const NodeStats& b) {
    return a.seconds != b.seconds ? a.seconds > b.seconds : a.name < b.name;
  });
  if (n >= 0 && static_cast<size_t>(n) < out.size()) out.resize(n);
  return out;
}

double Profiler::TotalSeconds() const {
  MutexLock lock(&mu_);
  double sum = 0;
  for (const auto& [key, s] : nodes_) sum += s.seconds;
  return sum;
}

void Profiler::Reset() {
  MutexLock lock(&mu_);
  nodes_.clear();
}

}  // namespace graphrt
