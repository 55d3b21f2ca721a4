#include <gtest/gtest.h>

#include <string>
#include <thread>
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

Tensor Flow() { return Tensor::Scalar<float>(0.0f); }

// Creates a TensorArray; returns its handle.
Tensor MakeArray(int size, bool dynamic_size = false, bool clear = true,
                 std::vector<int64_t> shape = {}, bool with_shape = false,
                 bool identical = false, DType dtype = DType::kFloat32) {
  OpTest t("TensorArrayV3");
  t.Attr("dtype", dtype).Attr("dynamic_size", dynamic_size)
      .Attr("clear_after_read", clear)
      .Attr("identical_element_shapes", identical);
  if (with_shape) t.AttrShape("element_shape", shape);
  auto out = t.Run({Tensor::Scalar<int32_t>(size)});
  EXPECT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kResource);
  EXPECT_EQ((*out)[1].dtype(), DType::kFloat32);
  return (*out)[0];
}

absl::StatusOr<std::vector<Tensor>> Write(const Tensor& h, int i,
                                          const Tensor& v) {
  OpTest t("TensorArrayWriteV3");
  t.Attr("T", v.dtype());
  return t.Run({h, Tensor::Scalar<int32_t>(i), v, Flow()});
}

absl::StatusOr<std::vector<Tensor>> Read(const Tensor& h, int i,
                                         DType dtype = DType::kFloat32) {
  OpTest t("TensorArrayReadV3");
  t.Attr("dtype", dtype);
  return t.Run({h, Tensor::Scalar<int32_t>(i), Flow()});
}

int Size(const Tensor& h) {
  OpTest t("TensorArraySizeV3");
  auto out = t.Run({h, Flow()});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *(*out)[0].data<int32_t>() : -1;
}

TEST(TensorArrayTest, WriteReadAndEachRunIsNew) {
  Tensor h = MakeArray(2);
  ASSERT_TRUE(Write(h, 1, T_<float>({2}, {3, 4})).ok());
  auto r = Read(h, 1);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(Values<float>((*r)[0]), (std::vector<float>{3, 4}));
  // clear_after_read: a second read fails.
  ExpectError(Read(h, 1), "cleared");
  // The same node run twice gives two independent arrays.
  OpTest t("TensorArrayV3");
  t.Attr("dtype", DType::kFloat32);
  auto a = t.Run({Tensor::Scalar<int32_t>(1)});
  auto b = t.Run({Tensor::Scalar<int32_t>(1)});
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(Write((*a)[0], 0, Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(Write((*b)[0], 0, Tensor::Scalar<float>(2)).ok());
  EXPECT_EQ(Values<float>((*Read((*a)[0], 0))[0]), (std::vector<float>{1}));
  EXPECT_EQ(Values<float>((*Read((*b)[0], 0))[0]), (std::vector<float>{2}));
  EXPECT_TRUE(t.resources().List().empty());
}

TEST(TensorArrayTest, WriteErrors) {
  Tensor h = MakeArray(2, false, true, {2}, true);
  ExpectError(Write(h, 2, T_<float>({2}, {1, 2})), "not resizeable");
  ExpectError(Write(h, -1, T_<float>({2}, {1, 2})), "negative");
  ExpectError(Write(h, 0, T_<int32_t>({2}, {1, 2})), "dtype");
  ExpectError(Write(h, 0, T_<float>({3}, {1, 2, 3})), "incompatible");
  ASSERT_TRUE(Write(h, 0, T_<float>({2}, {1, 2})).ok());
  ExpectError(Write(h, 0, T_<float>({2}, {1, 2})), "already been written");
  ExpectError(Read(h, 0, DType::kInt32), "dtype");
  ExpectError(Read(h, 5), "array size is: 2");
}

TEST(TensorArrayTest, UnwrittenReadsZerosOnlyWithKnownShape) {
  Tensor known = MakeArray(2, false, false, {2, 1}, true);
  auto z = Read(known, 1);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].shape(), Shape({2, 1}));
  EXPECT_EQ(Values<float>((*z)[0]), (std::vector<float>{0, 0}));
  Tensor unknown = MakeArray(2);
  ExpectError(Read(unknown, 1), "not fully defined");
}

TEST(TensorArrayTest, DynamicGrowthAndIdenticalShapes) {
  Tensor h = MakeArray(0, true, false, {}, false, true);
  EXPECT_EQ(Size(h), 0);
  ASSERT_TRUE(Write(h, 3, T_<float>({2}, {7, 8})).ok());
  EXPECT_EQ(Size(h), 4);
  // identical_element_shapes: the first write fixed the element shape.
  ExpectError(Write(h, 0, T_<float>({3}, {1, 2, 3})), "incompatible");
  // Unwritten items now read as zeros of [2].
  auto z = Read(h, 1);
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ((*z)[0].shape(), Shape({2}));
}

TEST(TensorArrayTest, ScatterGatherConcatSplit) {
  Tensor h = MakeArray(3, false, false);
  OpTest sc("TensorArrayScatterV3");
  auto s = sc.Run({h, T_<int32_t>({3}, {2, 0, 1}),
                   T_<float>({3, 2}, {1, 2, 3, 4, 5, 6}), Flow()});
  ASSERT_TRUE(s.ok()) << s.status();
  OpTest ga("TensorArrayGatherV3");
  ga.Attr("dtype", DType::kFloat32);
  auto g = ga.Run({h, T_<int32_t>({2}, {0, 2}), Flow()});
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ((*g)[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Values<float>((*g)[0]), (std::vector<float>{3, 4, 1, 2}));
  OpTest co("TensorArrayConcatV3");
  co.Attr("dtype", DType::kFloat32);
  auto c = co.Run({h, Flow()});
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ((*c)[0].shape(), Shape({6}));
  EXPECT_EQ(Values<float>((*c)[0]), (std::vector<float>{3, 4, 5, 6, 1, 2}));
  EXPECT_EQ(Values<int64_t>((*c)[1]), (std::vector<int64_t>{2, 2, 2}));

  Tensor h2 = MakeArray(2, false, false, {}, false, false, DType::kInt32);
  OpTest sp("TensorArraySplitV3");
  auto p = sp.Run({h2, T_<int32_t>({3, 1}, {1, 2, 3}),
                   T_<int64_t>({2}, {1, 2}), Flow()});
  ASSERT_TRUE(p.ok()) << p.status();
  auto r = Read(h2, 1);
  ASSERT_TRUE(r.ok() == false);  // dtype float32 requested, array is int32
  auto r2 = Read(h2, 1, DType::kInt32);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ((*r2)[0].shape(), Shape({2, 1}));
  EXPECT_EQ(Values<int32_t>((*r2)[0]), (std::vector<int32_t>{2, 3}));
}

TEST(TensorArrayTest, BulkErrorsAndClose) {
  Tensor h = MakeArray(2);
  OpTest sc("TensorArrayScatterV3");
  ExpectError(sc.Run({h, T_<int32_t>({2}, {0, 1}), T_<float>({3}, {1, 2, 3}),
                      Flow()}),
              "len(indices)");
  OpTest sp("TensorArraySplitV3");
  ExpectError(sp.Run({h, T_<float>({3}, {1, 2, 3}), T_<int64_t>({2}, {1, 1}),
                      Flow()}),
              "sum of lengths");
  OpTest sp3("TensorArraySplitV3");
  ExpectError(sp3.Run({h, T_<float>({3}, {1, 2, 3}),
                       T_<int64_t>({3}, {1, 1, 1}), Flow()}),
              "not equal to the size of lengths");
  OpTest ga("TensorArrayGatherV3");
  ga.Attr("dtype", DType::kFloat32);
  ExpectError(ga.Run({h, T_<int32_t>({0}, {}), Flow()}), "fully defined");
  OpTest cl("TensorArrayCloseV3");
  ASSERT_TRUE(cl.Run({h}).ok());
  ExpectError(Write(h, 0, Tensor::Scalar<float>(1)), "closed");
  OpTest sz("TensorArraySizeV3");
  ExpectError(sz.Run({h, Flow()}), "closed");
  OpTest bad("TensorArraySizeV3");
  ExpectError(bad.Run({Tensor::Scalar<float>(1), Flow()}), "handle");
}

TEST(TensorArrayTest, ConcurrentWrites) {
  Tensor h = MakeArray(64);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h, t] {
      for (int i = t; i < 64; i += 4) {
        EXPECT_TRUE(Write(h, i, Tensor::Scalar<float>(i)).ok());
      }
    });
  }
  for (auto& th : threads) th.join();
  OpTest ga("TensorArrayGatherV3");
  ga.Attr("dtype", DType::kFloat32);
  std::vector<int32_t> idx(64);
  for (int i = 0; i < 64; ++i) idx[i] = i;
  auto g = ga.Run({h, T_<int32_t>({64}, idx), Flow()});
  ASSERT_TRUE(g.ok()) << g.status();
  for (int i = 0; i < 64; ++i) EXPECT_EQ(Values<float>((*g)[0])[i], i);
}

}  // namespace
}  // namespace graphrt::testing
