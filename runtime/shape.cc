#include "runtime/shape.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace graphrt {

absl::StatusOr<Shape> Shape::Make(absl::Span<const int64_t> dims,
                                  int64_t max_elements) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "negative dimension in shape [", absl::StrJoin(dims, ","), "]"));
    }
    if (d != 0 && n > max_elements / d) {
      return absl::InvalidArgumentError(
          absl::StrCat("shape [", absl::StrJoin(dims, ","),
                       "] has too many elements (limit ", max_elements, ")"));
    }
    n *= d;
  }
  return Shape(dims);
}

int64_t Shape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string Shape::ToString() const {
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

bool PartialShape::IsCompatible(const Shape& shape) const {
  if (unknown_rank_) return true;
  if (static_cast<int>(dims_.size()) != shape.rank()) return false;
  for (int i = 0; i < shape.rank(); ++i) {
    if (dims_[i] >= 0 && dims_[i] != shape.dim(i)) return false;
  }
  return true;
}

std::string PartialShape::ToString() const {
  if (unknown_rank_) return "<unknown rank>";
  return absl::StrCat("[", absl::StrJoin(dims_, ","), "]");
}

}  // namespace graphrt
