// Einsum(inputs..., attr equation, N): the general Einstein summation over
// N >= 1 inputs. Equation "ab,bc->ac" (explicit) or "ab,bc" (implicit:
// the output is the ellipsis dims, then the labels used exactly once, in
// ASCII order). Labels are letters; "..." stands for broadcast dims
// (aligned right, size-1 dims broadcast). A label repeated within one input
// takes its diagonal; labels absent from the output are summed (also the
// ellipsis dims when the output has no "..."). Named labels must have equal
// sizes everywhere. float32/64, int32/64 (wrapping), complex64/128.
//
// Evaluated by index loops: each output element (split over oneTBB) sums
// the product of the inputs over every combination of the summed labels,
// in a fixed order. Cost = output size * product of summed label sizes;
// memory = output only.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/nn/nn_ops.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

// Label ids: 0..51 letters, 52+ ellipsis dims (left to right).
constexpr int kEllipsisBase = 52;

int LabelId(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

struct Term {
  std::vector<int> labels;  // letter ids; ellipsis marked as -1
  bool has_ellipsis = false;
};

absl::StatusOr<Term> ParseTerm(absl::string_view s, absl::string_view eq) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '.') {
      if (t.has_ellipsis || s.substr(i, 3) != "...") {
        return absl::InvalidArgumentError(
            absl::StrCat("invalid ellipsis in einsum equation '", eq, "'"));
      }
      t.has_ellipsis = true;
      t.labels.push_back(-1);
      i += 2;
      continue;
    }
    const int id = LabelId(s[i]);
    if (id < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "invalid character '", std::string(1, s[i]),
          "' in einsum equation '", eq, "'"));
    }
    t.labels.push_back(id);
  }
  return t;
}

struct Parsed {
  std::vector<Term> inputs;
  Term output;
  bool implicit = false;
};

absl::StatusOr<Parsed> ParseEquation(const std::string& equation) {
  std::string eq;
  for (char c : equation) {
    if (c != ' ') eq += c;
  }
  Parsed p;
  const size_t arrow = eq.find("->");
  const std::string lhs = arrow == std::string::npos ? eq : eq.substr(0, arrow);
  p.implicit = arrow == std::string::npos;
  for (absl::string_view part : absl::StrSplit(lhs, ',')) {
    GRAPHRT_ASSIGN_OR_RETURN(Term t, ParseTerm(part, equation));
    p.inputs.push_back(std::move(t));
  }
  if (!p.implicit) {
    GRAPHRT_ASSIGN_OR_RETURN(p.output,
                             ParseTerm(eq.substr(arrow + 2), equation));
  }
  return p;
}

template <typename T>
T Mul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
  } else {
    return a * b;
  }
}
template <typename T>
T Add(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

class EinsumKernel : public Kernel {
 public:
  EinsumKernel(Parsed p, std::string equation, DType t)
      : p_(std::move(p)), equation_(std::move(equation)), t_(t) {}

  absl::Status Run(KernelContext& ctx) const override {
    const int n = static_cast<int>(p_.inputs.size());
    GRAPHRT_RETURN_IF_ERROR(ops::CheckNumInputs(ctx, n));
    const DType dtype = ctx.input(0).dtype();
    for (int i = 0; i < n; ++i) {
      const Tensor& x = ctx.input(i);
      if (x.dtype() != dtype || (t_ != DType::kInvalid && x.dtype() != t_)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "expected inputs of one dtype, got ", x.DebugString(),
            " at input ", i));
      }
    }
    // Resolve each input's dims to label ids.
    int ell_rank = 0;
    std::vector<std::vector<int>> dims_labels(n);
    for (int i = 0; i < n; ++i) {
      const Term& t = p_.inputs[i];
      const int named = static_cast<int>(t.labels.size()) -
                        (t.has_ellipsis ? 1 : 0);
      const int rank = ctx.input(i).rank();
      if (rank < named || (!t.has_ellipsis && rank != named)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "input ", i, " of einsum '", equation_, "' has ", named,
            " labels but rank ", rank, ": ", ctx.input(i).DebugString()));
      }
      ell_rank = std::max(ell_rank, rank - named);
    }
    std::vector<int64_t> size(kEllipsisBase + ell_rank, -1);
    for (int i = 0; i < n; ++i) {
      const Term& t = p_.inputs[i];
      const Tensor& x = ctx.input(i);
      const int e = x.rank() - (static_cast<int>(t.labels.size()) -
                                (t.has_ellipsis ? 1 : 0));
      for (int l : t.labels) {
        if (l >= 0) {
          dims_labels[i].push_back(l);
        } else {
          for (int k = 0; k < e; ++k) {
            dims_labels[i].push_back(kEllipsisBase + ell_rank - e + k);
          }
        }
      }
      for (int d = 0; d < x.rank(); ++d) {
        const int l = dims_labels[i][d];
        const int64_t s = x.dim(d);
        if (size[l] < 0 || (l >= kEllipsisBase && size[l] == 1)) {
          size[l] = s;
        } else if (size[l] != s && !(l >= kEllipsisBase && s == 1)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "einsum '", equation_, "': dimension ", d, " of input ", i,
              " has size ", s, " but its label has size ", size[l]));
        }
      }
    }
    // Output labels.
    std::vector<int> out_labels;
    std::vector<int> count(kEllipsisBase, 0);
    for (int i = 0; i < n; ++i) {
      for (int l : p_.inputs[i].labels) {
        if (l >= 0) ++count[l];
      }
    }
    if (p_.implicit) {
      for (int k = 0; k < ell_rank; ++k) out_labels.push_back(kEllipsisBase + k);
      // ASCII order: uppercase (ids 26..51) before lowercase (0..25).
      for (int l = 26; l < 52; ++l) if (count[l] == 1) out_labels.push_back(l);
      for (int l = 0; l < 26; ++l) if (count[l] == 1) out_labels.push_back(l);
    } else {
      for (int l : p_.output.labels) {
        if (l < 0) {
          for (int k = 0; k < ell_rank; ++k) {
            out_labels.push_back(kEllipsisBase + k);
          }
        } else {
          if (count[l] == 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                "einsum '", equation_, "': output label not in any input"));
          }
          if (std::count(out_labels.begin(), out_labels.end(), l) > 0) {
            return absl::InvalidArgumentError(absl::StrCat(
                "einsum '", equation_, "': output label repeated"));
          }
          out_labels.push_back(l);
        }
      }
    }
    std::vector<int> sum_labels;
    for (int l = 0; l < static_cast<int>(size.size()); ++l) {
      if (size[l] >= 0 &&
          std::find(out_labels.begin(), out_labels.end(), l) ==
              out_labels.end()) {
        sum_labels.push_back(l);
      }
    }
    // Per-input stride of every label (summed for repeated labels; 0 for
    // broadcast size-1 ellipsis dims).
    std::vector<std::vector<int64_t>> stride(
        n, std::vector<int64_t>(size.size(), 0));
    for (int i = 0; i < n; ++i) {
      const Tensor& x = ctx.input(i);
      int64_t s = 1;
      for (int d = x.rank() - 1; d >= 0; --d) {
        const int l = dims_labels[i][d];
        if (!(x.dim(d) == 1 && size[l] != 1)) stride[i][l] += s;
        s *= x.dim(d);
      }
    }
    std::vector<int64_t> out_dims;
    for (int l : out_labels) out_dims.push_back(size[l]);
    GRAPHRT_ASSIGN_OR_RETURN(Shape shape, Shape::Make(out_dims));
    GRAPHRT_ASSIGN_OR_RETURN(Tensor * out,
                             ctx.allocate_output(0, dtype, shape));
    int64_t inner = 1;
    for (int l : sum_labels) inner *= size[l];
    const int64_t total = out->num_elements();
    return ops::DispatchDType<float, double, int32_t, int64_t, complex64,
                              complex128>(dtype, "Einsum", [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* o = out->mutable_data<T>();
      std::vector<const T*> in(n);
      for (int i = 0; i < n; ++i) in[i] = ctx.input(i).data<T>();
      const int no = static_cast<int>(out_labels.size());
      const int ns = static_cast<int>(sum_labels.size());
      const int64_t min_par = std::max<int64_t>(
          2, ops::kParallelMinElements / std::max<int64_t>(1, inner * n));
      ops::ParallelFor(total, min_par, [&](int64_t e0, int64_t e1) {
        std::vector<int64_t> base(n), off(n), idx(ns);
        for (int64_t e = e0; e < e1; ++e) {
          int64_t rem = e;
          std::fill(base.begin(), base.end(), 0);
          for (int k = no - 1; k >= 0; --k) {
            const int l = out_labels[k];
            const int64_t v = rem % size[l];
            rem /= size[l];
            for (int i = 0; i < n; ++i) base[i] += v * stride[i][l];
          }
          T acc = T(0);
          if (inner > 0) {
            std::fill(idx.begin(), idx.end(), 0);
            off = base;
            for (int64_t it = 0; it < inner; ++it) {
              T prod = in[0][off[0]];
              for (int i = 1; i < n; ++i) prod = Mul(prod, in[i][off[i]]);
              acc = Add(acc, prod);
              // Odometer over the summed labels (last fastest).
              for (int k = ns - 1; k >= 0; --k) {
                const int l = sum_labels[k];
                if (++idx[k] < size[l]) {
                  for (int i = 0; i < n; ++i) off[i] += stride[i][l];
                  break;
                }
                idx[k] = 0;
                for (int i = 0; i < n; ++i) {
                  off[i] -= (size[l] - 1) * stride[i][l];
                }
              }
            }
          }
          o[e] = acc;
        }
      });
      return absl::OkStatus();
    });
  }

 private:
  Parsed p_;
  std::string equation_;
  DType t_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateEinsum(const KernelInit& init) {
  AttrReader attrs(init.node);
  GRAPHRT_ASSIGN_OR_RETURN(std::string equation,
                           attrs.GetString("equation", ""));
  auto parsed = ParseEquation(equation);
  if (!parsed.ok()) return attrs.Error("equation", std::string(parsed.status().message()));
  GRAPHRT_ASSIGN_OR_RETURN(DType t, attrs.GetType("T", DType::kInvalid));
  if (t != DType::kInvalid &&
      !ops::IsOneOf<float, double, int32_t, int64_t, complex64, complex128>(
          t)) {
    return attrs.Error("T", absl::StrCat("has unsupported dtype ",
                                         DTypeName(t)));
  }
  const int n = static_cast<int>(parsed->inputs.size());
  if (init.num_inputs != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Einsum '", init.node.name(), "': equation '", equation, "' has ", n,
        " inputs, the node has ", init.num_inputs));
  }
  return std::unique_ptr<Kernel>(
      new EinsumKernel(std::move(*parsed), equation, t));
}

}  // namespace

void RegisterEinsum(OpRegistry& r) { r.Register("Einsum", CreateEinsum); }

}  // namespace graphrt
