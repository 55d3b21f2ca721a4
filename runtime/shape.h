// Tensor shapes. A Shape is always fully known (every dim >= 0); a
// PartialShape (declared input shapes, signature shapes) may have unknown
// dims (-1) or unknown rank.
#ifndef GRAPHRT_RUNTIME_SHAPE_H_
#define GRAPHRT_RUNTIME_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace graphrt {

class Shape {
 public:
  Shape() = default;  // scalar
  Shape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit Shape(absl::Span<const int64_t> dims)
      : dims_(dims.begin(), dims.end()) {}

  // Validates dims (none negative) and that the element count fits in
  // int64 and in `max_elements`.
  static absl::StatusOr<Shape> Make(absl::Span<const int64_t> dims,
                                    int64_t max_elements = INT64_MAX);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  void set_dim(int i, int64_t v) { dims_[i] = v; }
  absl::Span<const int64_t> dims() const { return dims_; }
  void AddDim(int64_t d) { dims_.push_back(d); }
  void InsertDim(int i, int64_t d) { dims_.insert(dims_.begin() + i, d); }
  void RemoveDim(int i) { dims_.erase(dims_.begin() + i); }
  int64_t num_elements() const;
  bool operator==(const Shape& o) const { return dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }
  std::string ToString() const;  // "[1,2,3]"

 private:
  absl::InlinedVector<int64_t, 6> dims_;
};

class PartialShape {
 public:
  PartialShape() : unknown_rank_(true) {}
  explicit PartialShape(std::vector<int64_t> dims)
      : unknown_rank_(false), dims_(std::move(dims)) {}
  static PartialShape UnknownRank() { return PartialShape(); }

  bool unknown_rank() const { return unknown_rank_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  // True if `shape` fits: same rank and equal dims where known.
  bool IsCompatible(const Shape& shape) const;
  std::string ToString() const;  // "[1,-1,3]" or "<unknown rank>"

 private:
  bool unknown_rank_;
  std::vector<int64_t> dims_;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_SHAPE_H_
