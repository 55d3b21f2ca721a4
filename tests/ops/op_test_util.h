// Single-op test harness: build a NodeDef, create its kernel through the
// built-in registry, run it on input tensors, read the outputs.
//
//   OpTest t("AddV2");
//   t.Attr("T", DType::kFloat32);
//   auto out = t.Run({Tensor::FromVector<float>({1, 2}), ...});
#ifndef GRAPHRT_TESTS_OPS_OP_TEST_UTIL_H_
#define GRAPHRT_TESTS_OPS_OP_TEST_UTIL_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ops/registry.h"
#include "proto/graph.pb.h"
#include "runtime/resource.h"
#include "runtime/tensor.h"

namespace graphrt::testing {

class OpTest {
 public:
  explicit OpTest(const std::string& op, const std::string& name = "test_node");

  OpTest& Attr(const std::string& name, int64_t v);
  OpTest& Attr(const std::string& name, float v);
  OpTest& Attr(const std::string& name, bool v);
  OpTest& Attr(const std::string& name, const std::string& v);
  OpTest& Attr(const std::string& name, const char* v) {
    return Attr(name, std::string(v));
  }
  OpTest& Attr(const std::string& name, DType v);
  OpTest& Attr(const std::string& name, const std::vector<int64_t>& v);
  OpTest& Attr(const std::string& name, const std::vector<std::string>& v);
  OpTest& AttrShape(const std::string& name, const std::vector<int64_t>& dims);

  tensorflow::NodeDef& node() { return node_; }
  ResourceManager& resources() { return resources_; }

  // Creates the kernel (load-time checks) for `num_inputs` inputs.
  absl::Status Create(int num_inputs, const Tensor* constant = nullptr);
  // Creates the kernel if needed and runs it.
  absl::StatusOr<std::vector<Tensor>> Run(const std::vector<Tensor>& inputs);

 private:
  tensorflow::NodeDef node_;
  ResourceManager resources_;
  std::unique_ptr<Kernel> kernel_;
};

// Builds tensors quickly: T<float>({2,2}, {1,2,3,4}).
template <typename T>
Tensor T_(const std::vector<int64_t>& shape, const std::vector<T>& values) {
  return Tensor::FromVector<T>(values, Shape(absl::MakeConstSpan(shape)));
}

// std::vector<bool> has no contiguous storage: copy element by element.
template <>
inline Tensor T_<bool>(const std::vector<int64_t>& shape,
                       const std::vector<bool>& values) {
  Tensor t = *Tensor::Allocate(DType::kBool, Shape(absl::MakeConstSpan(shape)));
  for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.num_elements()); ++i) {
    t.mutable_data<bool>()[i] = values[i];
  }
  return t;
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.num_elements());
}

}  // namespace graphrt::testing

#endif  // GRAPHRT_TESTS_OPS_OP_TEST_UTIL_H_
