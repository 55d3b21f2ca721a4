// Tests for ops/dynamic/tensor_list_ops.cc and tensor_list_bulk_ops.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                 const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

Tensor Shape1(std::vector<int32_t> dims) {
  return T_<int32_t>({static_cast<int64_t>(dims.size())}, dims);
}
Tensor UnknownShape() { return Tensor::Scalar<int32_t>(-1); }

absl::StatusOr<std::vector<Tensor>> Op(const std::string& op,
                                       const std::vector<Tensor>& in,
                                       DType dtype = DType::kFloat32) {
  OpTest t(op);
  t.Attr("element_dtype", dtype);
  return t.Run(in);
}

Tensor Reserve(int n, const Tensor& shape) {
  auto out = Op("TensorListReserve", {shape, Tensor::Scalar<int32_t>(n)});
  EXPECT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kVariant);
  return (*out)[0];
}

int Length(const Tensor& list) {
  OpTest t("TensorListLength");
  auto out = t.Run({list});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *(*out)[0].data<int32_t>() : -1;
}

TEST(TensorListTest, SetItemHasValueSemantics) {
  Tensor l0 = Reserve(2, Shape1({2}));
  EXPECT_EQ(Length(l0), 2);
  auto l1 = Op("TensorListSetItem",
               {l0, Tensor::Scalar<int32_t>(0), T_<float>({2}, {1, 2})});
  ASSERT_TRUE(l1.ok()) << l1.status();
  auto l2 = Op("TensorListSetItem",
               {(*l1)[0], Tensor::Scalar<int32_t>(0), T_<float>({2}, {5, 6})});
  ASSERT_TRUE(l2.ok());
  // The original lists are unchanged.
  auto g0 = Op("TensorListGetItem", {l0, Tensor::Scalar<int32_t>(0), Shape1({2})});
  ASSERT_TRUE(g0.ok()) << g0.status();
  EXPECT_EQ(Values<float>((*g0)[0]), (std::vector<float>{0, 0}));
  auto g1 = Op("TensorListGetItem",
               {(*l1)[0], Tensor::Scalar<int32_t>(0), UnknownShape()});
  ASSERT_TRUE(g1.ok());
  EXPECT_EQ(Values<float>((*g1)[0]), (std::vector<float>{1, 2}));
  auto g2 = Op("TensorListGetItem",
               {(*l2)[0], Tensor::Scalar<int32_t>(0), UnknownShape()});
  ASSERT_TRUE(g2.ok());
  EXPECT_EQ(Values<float>((*g2)[0]), (std::vector<float>{5, 6}));
}

TEST(TensorListTest, GetSetErrors) {
  Tensor l = Reserve(2, UnknownShape());
  ExpectError(Op("TensorListGetItem", {l, Tensor::Scalar<int32_t>(2), UnknownShape()}),
              "element 2 in a list with 2");
  ExpectError(Op("TensorListGetItem", {l, Tensor::Scalar<int32_t>(0), UnknownShape()}),
              "not fully defined");
  ExpectError(Op("TensorListGetItem", {l, Tensor::Scalar<int32_t>(0), UnknownShape()},
                 DType::kInt32),
              "invalid data types");
  ExpectError(Op("TensorListSetItem",
                 {l, Tensor::Scalar<int32_t>(5), Tensor::Scalar<float>(1)}),
              "modify element 5");
  Tensor typed = Reserve(1, Shape1({2}));
  ExpectError(Op("TensorListSetItem",
                 {typed, Tensor::Scalar<int32_t>(0), T_<float>({3}, {1, 2, 3})}),
              "incompatible");
  OpTest grow("TensorListSetItem");
  grow.Attr("element_dtype", DType::kFloat32)
      .Attr("resize_if_index_out_of_bounds", true);
  auto g = grow.Run({l, Tensor::Scalar<int32_t>(4), Tensor::Scalar<float>(3)});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Length((*g)[0]), 5);
  // Unset item of a list whose set items fix the shape: zeros of that shape.
  auto z = Op("TensorListGetItem",
              {(*g)[0], Tensor::Scalar<int32_t>(0), UnknownShape()});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].shape(), Shape());
}

TEST(TensorListTest, PushPopAndMaxElements) {
  auto e = Op("EmptyTensorList", {UnknownShape(), Tensor::Scalar<int32_t>(2)});
  ASSERT_TRUE(e.ok()) << e.status();
  Tensor l0 = (*e)[0];
  auto l1 = Op("TensorListPushBack", {l0, T_<float>({1}, {1})});
  ASSERT_TRUE(l1.ok());
  auto l2 = Op("TensorListPushBack", {(*l1)[0], T_<float>({1}, {2})});
  ASSERT_TRUE(l2.ok());
  ExpectError(Op("TensorListPushBack", {(*l2)[0], T_<float>({1}, {3})}), "full");
  EXPECT_EQ(Length(l0), 0);
  EXPECT_EQ(Length((*l2)[0]), 2);
  auto p = Op("TensorListPopBack", {(*l2)[0], UnknownShape()});
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(Values<float>((*p)[1]), (std::vector<float>{2}));
  EXPECT_EQ(Length((*p)[0]), 1);
  EXPECT_EQ(Length((*l2)[0]), 2);
  ExpectError(Op("TensorListPopBack", {l0, UnknownShape()}), "empty list");
  ExpectError(Op("TensorListPushBack", {l0, T_<int32_t>({1}, {1})}),
              "invalid data types");
}

TEST(TensorListTest, FromTensorStackGather) {
  auto l = Op("TensorListFromTensor",
              {T_<float>({3, 2}, {1, 2, 3, 4, 5, 6}), Shape1({-1})});
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(Length((*l)[0]), 3);
  auto s = Op("TensorListStack", {(*l)[0], UnknownShape()});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>((*s)[0]), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  auto g = Op("TensorListGather", {(*l)[0], T_<int32_t>({2}, {2, 0}), UnknownShape()});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(Values<float>((*g)[0]), (std::vector<float>{5, 6, 1, 2}));
  ExpectError(Op("TensorListGather", {(*l)[0], T_<int32_t>({1}, {3}), UnknownShape()}),
              "gather element 3");
  OpTest st("TensorListStack");
  st.Attr("element_dtype", DType::kFloat32).Attr("num_elements", int64_t{2});
  ExpectError(st.Run({(*l)[0], UnknownShape()}), "expected a list with 2");
  ExpectError(Op("TensorListFromTensor", {T_<float>({2, 2}, {1, 2, 3, 4}), Shape1({3})}),
              "element shape");
}

TEST(TensorListTest, StackUnsetItems) {
  Tensor l = Reserve(3, Shape1({-1}));
  auto l1 = Op("TensorListSetItem",
               {l, Tensor::Scalar<int32_t>(1), T_<float>({2}, {7, 8})});
  ASSERT_TRUE(l1.ok());
  auto s = Op("TensorListStack", {(*l1)[0], UnknownShape()});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values<float>((*s)[0]), (std::vector<float>{0, 0, 7, 8, 0, 0}));
  ExpectError(Op("TensorListStack", {l, UnknownShape()}), "uninitialized");
  auto e = Op("TensorListStack", {Reserve(0, UnknownShape()), Shape1({2})});
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ((*e)[0].shape(), Shape({0, 2}));
  ExpectError(Op("TensorListStack", {Reserve(0, UnknownShape()), UnknownShape()}),
              "empty list");
}

TEST(TensorListTest, ScatterSplitConcatResize) {
  OpTest sc("TensorListScatterV2");
  sc.Attr("element_dtype", DType::kInt32);
  auto l = sc.Run({T_<int32_t>({2, 1}, {10, 20}), T_<int32_t>({2}, {3, 1}),
                   UnknownShape(), Tensor::Scalar<int32_t>(5)});
  ASSERT_TRUE(l.ok()) << l.status();
  EXPECT_EQ(Length((*l)[0]), 5);
  auto s = Op("TensorListStack", {(*l)[0], UnknownShape()}, DType::kInt32);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Values<int32_t>((*s)[0]), (std::vector<int32_t>{0, 20, 0, 10, 0}));
  auto v1 = Op("TensorListScatter", {T_<int32_t>({2, 1}, {10, 20}),
                                     T_<int32_t>({2}, {3, 1}), UnknownShape()},
               DType::kInt32);
  ASSERT_TRUE(v1.ok());
  EXPECT_EQ(Length((*v1)[0]), 4);
  ExpectError(Op("TensorListScatter", {T_<int32_t>({2, 1}, {10, 20}),
                                       T_<int32_t>({2}, {-1, 1}), UnknownShape()},
                 DType::kInt32),
              "non-negative");

  auto sp = Op("TensorListSplit", {T_<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                                   Shape1({-1, 2}), T_<int64_t>({2}, {1, 2})});
  ASSERT_TRUE(sp.ok()) << sp.status();
  EXPECT_EQ(Length((*sp)[0]), 2);
  auto it = Op("TensorListGetItem", {(*sp)[0], Tensor::Scalar<int32_t>(1), UnknownShape()});
  ASSERT_TRUE(it.ok());
  EXPECT_EQ((*it)[0].shape(), Shape({2, 2}));
  ExpectError(Op("TensorListSplit", {T_<float>({3}, {1, 2, 3}), Shape1({-1}),
                                     T_<int64_t>({1}, {2})}),
              "unused values");

  OpTest cc("TensorListConcat");
  cc.Attr("element_dtype", DType::kFloat32);
  auto c = cc.Run({(*sp)[0]});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Values<int64_t>((*c)[1]), (std::vector<int64_t>{1, 2}));

  // Resize to 3 adds an unset item; ConcatV2 fills it from leading_dims.
  OpTest rs("TensorListResize");
  auto r = rs.Run({(*sp)[0], Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Length((*r)[0]), 3);
  EXPECT_EQ(Length((*sp)[0]), 2);
  auto c2 = Op("TensorListConcatV2",
               {(*r)[0], Shape1({-1, 2}), T_<int64_t>({3}, {0, 0, 2})});
  ASSERT_TRUE(c2.ok()) << c2.status();
  EXPECT_EQ((*c2)[0].shape(), Shape({5, 2}));
  EXPECT_EQ(Values<float>((*c2)[0]),
            (std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0, 0, 0}));
  ExpectError(Op("TensorListConcatV2",
                 {(*r)[0], Shape1({-1, 2}), T_<int64_t>({0}, {})}),
              "leading_dims");
  OpTest shrink("TensorListResize");
  auto r1 = shrink.Run({(*sp)[0], Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(Length((*r1)[0]), 1);
}

TEST(TensorListTest, ElementShape) {
  OpTest es("TensorListElementShape");
  es.Attr("shape_type", DType::kInt64);
  auto s = es.Run({Reserve(1, Shape1({-1, 3}))});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(Values<int64_t>((*s)[0]), (std::vector<int64_t>{-1, 3}));
  OpTest eu("TensorListElementShape");
  auto u = eu.Run({Reserve(1, UnknownShape())});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ((*u)[0].shape(), Shape());
  EXPECT_EQ(*(*u)[0].data<int32_t>(), -1);
  OpTest bad("TensorListLength");
  ExpectError(bad.Run({Tensor::Scalar<float>(1)}), "TensorList");
}

}  // namespace
}  // namespace graphrt::testing
