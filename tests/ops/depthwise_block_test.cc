// _FusedDepthwiseBlock (ops/nn/depthwise_block.h) on fed filters (packed
// per Run) against the naive reference applied stage by stage, and its
// errors for inputs that do not fit the block. The pass that builds the
// node and the adopted-filter path: tests/converter/passes/
// block_fusion_test.cc.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/ops/conv_reference.h"
#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

using nn::XnnConvSpec;

std::vector<float> Random(int64_t n, std::mt19937* rng, float scale) {
  std::uniform_real_distribution<float> d(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(*rng);
  return v;
}

struct Block {
  int64_t n = 2, h = 19, w = 11, c = 5, e = 13, co = 5, k = 3, stride = 1;
  bool residual = true;
  // Prelu after the expand stage (one slope per channel) and after the
  // residual add (one slope), instead of Relu6 and Relu.
  bool prelu = false;
  std::string padding = "SAME";
};

void Prelu(const std::vector<float>& alpha, std::vector<float>* v) {
  for (size_t i = 0; i < v->size(); ++i) {
    const float a = alpha.size() == 1 ? alpha[0] : alpha[i % alpha.size()];
    if ((*v)[i] < 0.0f) (*v)[i] *= a;
  }
}

// Expected output, and the op's inputs (expand, project_bias on).
void Build(const Block& b, std::vector<Tensor>* inputs,
           std::vector<float>* want, int64_t* oh, int64_t* ow) {
  std::mt19937 rng(7);
  const auto x = Random(b.n * b.h * b.w * b.c, &rng, 8.0f);  // past Relu6
  const auto ef = Random(b.c * b.e, &rng, 0.5f);
  const auto eb = Random(b.e, &rng, 0.5f);
  const auto df = Random(b.k * b.k * b.e, &rng, 0.5f);
  const auto db = Random(b.e, &rng, 0.5f);
  const auto pf = Random(b.e * b.co, &rng, 0.5f);
  const auto pb = Random(b.co, &rng, 0.5f);
  std::vector<float> ea = Random(b.e, &rng, 0.5f);
  const std::vector<float> pa = {0.25f};
  XnnConvSpec ex;
  ex.in_channels = b.c;
  ex.out_channels = b.e;
  if (!b.prelu) {
    ex.out_min = 0.0f;
    ex.out_max = 6.0f;
  }
  auto expanded = Reference(ex, x, ef, &eb, b.n, b.h, b.w, b.h, b.w);
  if (b.prelu) Prelu(ea, &expanded);
  XnnConvSpec dw;
  dw.depthwise = true;
  dw.kh = dw.kw = b.k;
  dw.stride_h = dw.stride_w = b.stride;
  dw.in_channels = dw.out_channels = b.e;
  dw.out_min = 0.0f;
  int64_t pad_h = 0, pad_w = 0;
  if (b.padding == "SAME") {
    *oh = (b.h + b.stride - 1) / b.stride;
    *ow = (b.w + b.stride - 1) / b.stride;
    pad_h = std::max<int64_t>(0, (*oh - 1) * b.stride + b.k - b.h);
    pad_w = std::max<int64_t>(0, (*ow - 1) * b.stride + b.k - b.w);
  } else {
    *oh = (b.h - b.k) / b.stride + 1;
    *ow = (b.w - b.k) / b.stride + 1;
  }
  dw.pad_top = pad_h / 2;
  dw.pad_left = pad_w / 2;
  const auto d = Reference(dw, expanded, df, &db, b.n, b.h, b.w, *oh, *ow);
  XnnConvSpec pj;
  pj.in_channels = b.e;
  pj.out_channels = b.co;
  *want = Reference(pj, d, pf, &pb, b.n, *oh, *ow, *oh, *ow);
  std::vector<float> res;
  if (b.residual) {
    res = Random(b.n * *oh * *ow * b.co, &rng, 1.0f);
    for (size_t i = 0; i < want->size(); ++i) {
      (*want)[i] += res[i];
      if (!b.prelu) (*want)[i] = std::max(0.0f, (*want)[i]);  // project Relu
    }
    if (b.prelu) Prelu(pa, want);
  }
  *inputs = {T_<float>({b.n, b.h, b.w, b.c}, x),
             T_<float>({1, 1, b.c, b.e}, ef),
             T_<float>({b.e}, eb),
             T_<float>({b.k, b.k, b.e, 1}, df),
             T_<float>({b.e}, db),
             T_<float>({1, 1, b.e, b.co}, pf),
             T_<float>({b.co}, pb)};
  if (b.residual) inputs->push_back(T_<float>({b.n, *oh, *ow, b.co}, res));
  if (b.prelu) inputs->push_back(T_<float>({b.e}, ea));
  if (b.prelu && b.residual) inputs->push_back(T_<float>({1}, pa));
}

// Sets the attrs of a block with expand and project bias.
void SetAttrs(const Block& b, OpTest* op) {
  op->Attr("T", DType::kFloat32)
      .Attr("strides", std::vector<int64_t>{1, b.stride, b.stride, 1})
      .Attr("padding", b.padding)
      .Attr("expand", true)
      .Attr("expand_activation", b.prelu ? "Prelu" : "Relu6")
      .Attr("depthwise_activation", "Relu")
      .Attr("project_bias", true)
      .Attr("project_residual", b.residual)
      .Attr("project_activation", !b.residual ? ""
                                  : b.prelu   ? "Prelu"
                                              : "Relu");
}

// Small images run as one band, large ones (an expanded tensor of more
// than 128k values: 48x91x32) in bands and stripes.
TEST(FusedDepthwiseBlockTest, MatchesTheStagesOnFedFilters) {
  for (int64_t k : {3, 5}) {
    for (int64_t stride : {1, 2}) {
      for (const char* padding : {"SAME", "VALID"}) {
        for (const bool large : {false, true}) {
          for (const bool prelu : {false, true}) {
            Block b;
            b.k = k;
            b.stride = stride;
            b.padding = padding;
            b.residual = stride == 1 && std::string(padding) == "SAME";
            b.prelu = prelu;
            if (large) {
              b.h = 48;
              b.w = 91;
              b.e = 32;
            }
            SCOPED_TRACE(::testing::Message()
                         << k << "x" << k << " /" << stride << " " << padding
                         << (large ? " large" : "") << (prelu ? " prelu" : ""));
            std::vector<Tensor> inputs;
            std::vector<float> want;
            int64_t oh, ow;
            Build(b, &inputs, &want, &oh, &ow);
            OpTest op("_FusedDepthwiseBlock");
            SetAttrs(b, &op);
            auto out = op.Run(inputs);
            ASSERT_TRUE(out.ok()) << out.status();
            const Tensor& got = (*out)[0];
            ASSERT_EQ(got.shape(), Shape({b.n, oh, ow, b.co}));
            for (int64_t i = 0; i < got.num_elements(); ++i) {
              EXPECT_NEAR(got.data<float>()[i], want[i],
                          1e-4f * (1 + std::fabs(want[i])))
                  << i;
            }
          }
        }
      }
    }
  }
}

TEST(FusedDepthwiseBlockTest, RejectsInputsThatDoNotFit) {
  Block b;
  std::vector<Tensor> good;
  std::vector<float> want;
  int64_t oh, ow;
  Build(b, &good, &want, &oh, &ow);
  auto expect_invalid = [&](std::vector<Tensor> inputs, const char* what) {
    OpTest op("_FusedDepthwiseBlock");
    SetAttrs(b, &op);
    auto out = op.Run(inputs);
    EXPECT_FALSE(out.ok()) << what;
    if (!out.ok()) {
      EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument)
          << what << ": " << out.status();
    }
  };
  auto with = [&](int i, Tensor t) {
    std::vector<Tensor> in = good;
    in[i] = std::move(t);
    return in;
  };
  expect_invalid(with(0, T_<float>({2, 19, 11}, std::vector<float>(418))),
                 "rank-3 input");
  expect_invalid(with(0, T_<int32_t>({1, 1, 1, 5}, std::vector<int32_t>(5))),
                 "int32 x");
  expect_invalid(with(2, T_<float>({4}, std::vector<float>(4))),
                 "short expand bias");
  expect_invalid(with(3, T_<float>({7, 7, 13, 1}, std::vector<float>(637))),
                 "7x7 depthwise filter");
  expect_invalid(with(5, T_<float>({1, 1, 12, 5}, std::vector<float>(60))),
                 "project filter of other depth");
  expect_invalid(with(7, T_<float>({2, 19, 11, 4}, std::vector<float>(1672))),
                 "residual of other shape");
  good.pop_back();
  expect_invalid(good, "missing residual");
  // Prelu slopes of the wrong length.
  b.prelu = true;
  Build(b, &good, &want, &oh, &ow);
  expect_invalid(with(8, T_<float>({4}, std::vector<float>(4))),
                 "4 expand slopes for 13 channels");
}

TEST(FusedDepthwiseBlockTest, RejectsBadAttrsAtCreate) {
  {
    OpTest op("_FusedDepthwiseBlock");
    SetAttrs(Block{}, &op);
    op.Attr("depthwise_activation", "Tanh");
    EXPECT_FALSE(op.Create(8).ok());
  }
  {
    OpTest op("_FusedDepthwiseBlock");
    SetAttrs(Block{}, &op);
    op.Attr("expand", false).Attr("expand_activation", "Prelu");
    EXPECT_FALSE(op.Create(6).ok());  // Prelu of a stage that is not there
  }
  {
    OpTest op("_FusedDepthwiseBlock");
    SetAttrs(Block{}, &op);
    op.Attr("T", DType::kInt32);
    EXPECT_FALSE(op.Create(8).ok());
  }
  {
    OpTest op("_FusedDepthwiseBlock");
    SetAttrs(Block{}, &op);
    op.Attr("dilations", std::vector<int64_t>{1, 2, 2, 1});
    EXPECT_FALSE(op.Create(8).ok());
  }
  {
    OpTest op("_FusedDepthwiseBlock");
    SetAttrs(Block{}, &op);
    EXPECT_FALSE(op.Create(7).ok());  // the residual is missing
    OpTest ok("_FusedDepthwiseBlock");
    SetAttrs(Block{}, &ok);
    EXPECT_TRUE(ok.Create(8).ok());
  }
}

}  // namespace
}  // namespace graphrt::testing
