#include "tests/ops/op_test_util.h"

#include "absl/strings/str_cat.h"

namespace graphrt::testing {

OpTest::OpTest(const std::string& op, const std::string& name) {
  node_.set_op(op);
  node_.set_name(name);
}

OpTest& OpTest::Attr(const std::string& name, int64_t v) {
  (*node_.mutable_attr())[name].set_i(v);
  return *this;
}
OpTest& OpTest::Attr(const std::string& name, float v) {
  (*node_.mutable_attr())[name].set_f(v);
  return *this;
}
OpTest& OpTest::Attr(const std::string& name, bool v) {
  (*node_.mutable_attr())[name].set_b(v);
  return *this;
}
OpTest& OpTest::Attr(const std::string& name, const std::string& v) {
  (*node_.mutable_attr())[name].set_s(v);
  return *this;
}
OpTest& OpTest::Attr(const std::string& name, DType v) {
  (*node_.mutable_attr())[name].set_type(
      static_cast<tensorflow::DataType>(static_cast<int>(v)));
  return *this;
}
OpTest& OpTest::Attr(const std::string& name, const std::vector<int64_t>& v) {
  auto* list = (*node_.mutable_attr())[name].mutable_list();
  for (int64_t x : v) list->add_i(x);
  return *this;
}
OpTest& OpTest::Attr(const std::string& name,
                     const std::vector<std::string>& v) {
  auto* list = (*node_.mutable_attr())[name].mutable_list();
  for (const auto& x : v) list->add_s(x);
  return *this;
}
OpTest& OpTest::AttrShape(const std::string& name,
                          const std::vector<int64_t>& dims) {
  auto* shape = (*node_.mutable_attr())[name].mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
  return *this;
}

absl::Status OpTest::Create(int num_inputs, const Tensor* constant) {
  KernelFactory factory = BuiltinOps().Find(node_.op());
  if (factory == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown op ", node_.op()));
  }
  KernelInit init{node_, num_inputs, constant};
  auto kernel = factory(init);
  if (!kernel.ok()) return kernel.status();
  kernel_ = std::move(*kernel);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> OpTest::Run(
    const std::vector<Tensor>& inputs) {
  if (kernel_ == nullptr) {
    absl::Status s = Create(static_cast<int>(inputs.size()));
    if (!s.ok()) return s;
  }
  std::vector<const Tensor*> ptrs;
  for (const auto& t : inputs) ptrs.push_back(&t);
  std::vector<Tensor> outputs;
  KernelContext ctx(ptrs, &outputs, &resources_);
  absl::Status s = kernel_->Run(ctx);
  if (!s.ok()) return s;
  return outputs;
}

}  // namespace graphrt::testing
