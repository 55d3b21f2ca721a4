#include "runtime/tensor.h"

#include <gtest/gtest.h>

#include <cstdint>

#include "runtime/resource.h"

namespace graphrt {
namespace {

TEST(TensorTest, AllocatesAlignedZeroed) {
  auto t = Tensor::Allocate(DType::kFloat32, Shape({3, 5}));
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t->raw_data()) % kTensorAlignment, 0u);
  EXPECT_EQ(t->num_elements(), 15);
  for (float v : t->span<float>()) EXPECT_EQ(v, 0.f);
  EXPECT_EQ(t->DebugString(), "float32[3,5]");
}

TEST(TensorTest, CopiesShareBufferReshapeKeepsIt) {
  Tensor a = Tensor::FromVector<int32_t>({1, 2, 3, 4});
  Tensor b = a;
  EXPECT_EQ(a.raw_data(), b.raw_data());
  auto r = a.Reshaped(Shape({2, 2}));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->raw_data(), a.raw_data());
  EXPECT_FALSE(a.Reshaped(Shape({3})).ok());
  auto c = a.Clone();
  ASSERT_TRUE(c.ok());
  EXPECT_NE(c->raw_data(), a.raw_data());
  EXPECT_TRUE(c->IdenticalTo(a));
}

TEST(TensorTest, StringsAndResourcesAreObjects) {
  auto s = Tensor::Allocate(DType::kString, Shape({2}));
  ASSERT_TRUE(s.ok());
  s->mutable_data<std::string>()[1] = std::string(1000, 'x');
  Tensor copy = *s;
  s = Tensor();  // the buffer lives on through `copy`
  EXPECT_EQ(copy.data<std::string>()[1].size(), 1000u);

  struct Dummy : Resource {
    std::string DebugString() const override { return "dummy"; }
  };
  auto r = Tensor::Allocate(DType::kResource, Shape());
  ASSERT_TRUE(r.ok());
  auto res = std::make_shared<Dummy>();
  r->mutable_data<ResourceHandle>()[0].resource = res;
  EXPECT_EQ(res.use_count(), 2);
  *r = Tensor();
  EXPECT_EQ(res.use_count(), 1);
}

TEST(TensorTest, ViewKeepsOwnerAlive) {
  auto owner = std::make_shared<std::vector<float>>(std::vector<float>{1, 2});
  Tensor v = Tensor::View(DType::kFloat32, Shape({2}), owner->data(), owner);
  std::weak_ptr<std::vector<float>> weak = owner;
  owner.reset();
  EXPECT_FALSE(weak.expired());
  EXPECT_EQ(v.data<float>()[1], 2.f);
  v = Tensor();
  EXPECT_TRUE(weak.expired());
}

TEST(TensorTest, BadShapesAreErrors) {
  EXPECT_FALSE(Tensor::Allocate(DType::kFloat32, Shape({-1})).ok());
  EXPECT_FALSE(
      Tensor::Allocate(DType::kFloat32, Shape({int64_t{1} << 40, int64_t{1} << 40}))
          .ok());
  EXPECT_FALSE(Tensor::Allocate(DType::kInvalid, Shape({1})).ok());
}

TEST(DTypeTest, Names) {
  EXPECT_EQ(*ParseDType("DT_HALF"), DType::kFloat16);
  EXPECT_EQ(*ParseDType("int64"), DType::kInt64);
  EXPECT_EQ(*DTypeFromProto(101), DType::kFloat32);  // DT_FLOAT_REF
  EXPECT_FALSE(ParseDType("float128").ok());
  EXPECT_EQ(DTypeName(DType::kComplex64), "complex64");
}

}  // namespace
}  // namespace graphrt
