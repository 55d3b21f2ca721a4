#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
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

// TF's canonical example: 6 boxes in three overlapping clusters.
Tensor Boxes() {
  return T_<float>({6, 4}, {0, 0,   1, 1,    0, 0.1f,  1, 1.1f,
                            0, -0.1f, 1, 0.9f, 0, 10,   1, 11,
                            0, 10.1f, 1, 11.1f, 0, 100, 1, 101});
}
Tensor Scores() { return T_<float>({6}, {0.9f, 0.75f, 0.6f, 0.95f, 0.5f, 0.3f}); }

TEST(NmsTest, V2SelectsFromClusters) {
  OpTest t("NonMaxSuppressionV2");
  auto out = t.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(3),
                    Tensor::Scalar<float>(0.5f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{3, 0, 5}));
}

TEST(NmsTest, V3ScoreThresholdAndMaxOutput) {
  OpTest t("NonMaxSuppressionV3");
  auto out = t.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(6),
                    Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.4f)});
  ASSERT_TRUE(out.ok()) << out.status();
  // Box 5 (0.3) is below the threshold.
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{3, 0}));
  OpTest t2("NonMaxSuppressionV3");
  auto one = t2.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(1),
                     Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(Values<int32_t>((*one)[0]), (std::vector<int32_t>{3}));
  // Score equal to the threshold is dropped (strict >).
  OpTest t3("NonMaxSuppressionV3");
  auto eq = t3.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(6),
                    Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.3f)});
  ASSERT_TRUE(eq.ok());
  EXPECT_EQ(Values<int32_t>((*eq)[0]), (std::vector<int32_t>{3, 0}));
}

TEST(NmsTest, TiesPickLowerIndexFirst) {
  // Four disjoint boxes with equal scores; index order must win.
  Tensor boxes = T_<float>({4, 4}, {0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5,
                                    6, 6, 7, 7});
  OpTest t("NonMaxSuppressionV3");
  auto out = t.Run({boxes, T_<float>({4}, {0.5f, 0.7f, 0.5f, 0.7f}),
                    Tensor::Scalar<int32_t>(4), Tensor::Scalar<float>(0.5f),
                    Tensor::Scalar<float>(0.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{1, 3, 0, 2}));
  // Identical overlapping boxes with equal scores: the lower index survives.
  Tensor same = T_<float>({3, 4}, {0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1});
  OpTest t2("NonMaxSuppressionV3");
  auto out2 = t2.Run({same, T_<float>({3}, {0.5f, 0.5f, 0.5f}),
                      Tensor::Scalar<int32_t>(3), Tensor::Scalar<float>(0.5f),
                      Tensor::Scalar<float>(0.0f)});
  ASSERT_TRUE(out2.ok());
  EXPECT_EQ(Values<int32_t>((*out2)[0]), (std::vector<int32_t>{0}));
}

TEST(NmsTest, IouThresholdIsStrict) {
  // Boxes 0 and 1 have IoU exactly 0.5 (intersection 1, union 2 ... ).
  // [0,0,1,2] and [0,1,1,3]: areas 2 and 2, intersection 1 -> IoU 1/3.
  Tensor boxes = T_<float>({2, 4}, {0, 0, 1, 2, 0, 1, 1, 3});
  OpTest keep("NonMaxSuppressionV2");
  auto a = keep.Run({boxes, T_<float>({2}, {0.9f, 0.8f}),
                     Tensor::Scalar<int32_t>(2),
                     Tensor::Scalar<float>(1.0f / 3.0f)});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(Values<int32_t>((*a)[0]), (std::vector<int32_t>{0, 1}));
  OpTest drop("NonMaxSuppressionV2");
  auto b = drop.Run({boxes, T_<float>({2}, {0.9f, 0.8f}),
                     Tensor::Scalar<int32_t>(2), Tensor::Scalar<float>(0.3f)});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(Values<int32_t>((*b)[0]), (std::vector<int32_t>{0}));
}

TEST(NmsTest, V4PadsAndCountsValid) {
  OpTest t("NonMaxSuppressionV4");
  t.Attr("pad_to_max_output_size", true);
  auto out = t.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(5),
                    Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]),
            (std::vector<int32_t>{3, 0, 5, 0, 0}));
  EXPECT_EQ(Values<int32_t>((*out)[1]), (std::vector<int32_t>{3}));
  OpTest u("NonMaxSuppressionV4");
  auto out2 = u.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(5),
                     Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f)});
  ASSERT_TRUE(out2.ok());
  EXPECT_EQ((*out2)[0].num_elements(), 3);
  EXPECT_EQ(Values<int32_t>((*out2)[1]), (std::vector<int32_t>{3}));
}

TEST(NmsTest, V5SoftNms) {
  // Two boxes with IoU 1/3; sigma 0.5: second score scaled by
  // exp(-0.5 * (1/9) / 0.5) = exp(-1/9).
  Tensor boxes = T_<float>({2, 4}, {0, 0, 1, 2, 0, 1, 1, 3});
  OpTest t("NonMaxSuppressionV5");
  auto out = t.Run({boxes, T_<float>({2}, {0.9f, 0.8f}),
                    Tensor::Scalar<int32_t>(2), Tensor::Scalar<float>(1.0f),
                    Tensor::Scalar<float>(0.0f), Tensor::Scalar<float>(0.5f)});
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 1}));
  auto s = Values<float>((*out)[1]);
  EXPECT_FLOAT_EQ(s[0], 0.9f);
  EXPECT_NEAR(s[1], 0.8f * std::exp(-1.0f / 9.0f), 1e-6);
  EXPECT_EQ(Values<int32_t>((*out)[2]), (std::vector<int32_t>{2}));
  // Sigma 0 = hard NMS; scores returned unchanged.
  OpTest h("NonMaxSuppressionV5");
  auto hard = h.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(6),
                     Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.0f),
                     Tensor::Scalar<float>(0.0f)});
  ASSERT_TRUE(hard.ok());
  EXPECT_EQ(Values<int32_t>((*hard)[0]), (std::vector<int32_t>{3, 0, 5}));
  EXPECT_EQ(Values<float>((*hard)[1]),
            (std::vector<float>{0.95f, 0.9f, 0.3f}));
}

TEST(NmsTest, SoftNmsReordersCandidates) {
  // Box 1 overlaps box 0 heavily and drops below box 2 after decay.
  Tensor boxes = T_<float>({3, 4}, {0, 0, 1, 1, 0, 0, 1, 1.1f, 5, 5, 6, 6});
  OpTest t("NonMaxSuppressionV5");
  auto out = t.Run({boxes, T_<float>({3}, {0.9f, 0.85f, 0.5f}),
                    Tensor::Scalar<int32_t>(3), Tensor::Scalar<float>(1.0f),
                    Tensor::Scalar<float>(0.0f), Tensor::Scalar<float>(0.1f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int32_t>((*out)[0]), (std::vector<int32_t>{0, 2, 1}));
  const float iou = 1.0f / 1.1f;
  EXPECT_NEAR(Values<float>((*out)[1])[2],
              0.85f * std::exp(-0.5f * iou * iou / 0.1f), 1e-6);
}

// TF's greedy selection written plainly: candidates sorted by score (ties:
// lower index first), each kept unless its IoU with a kept box exceeds the
// threshold. IoU as TF computes it, corners sorted per pair.
std::vector<int32_t> GreedyReference(const std::vector<float>& boxes,
                                     const std::vector<float>& scores,
                                     int max_out, float iou_threshold,
                                     float score_threshold) {
  std::vector<int32_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return scores[a] > scores[b]; });
  auto iou = [&](int32_t i, int32_t j) {
    const float* a = &boxes[4 * i];
    const float* b = &boxes[4 * j];
    const float ay0 = std::min(a[0], a[2]), ay1 = std::max(a[0], a[2]);
    const float ax0 = std::min(a[1], a[3]), ax1 = std::max(a[1], a[3]);
    const float by0 = std::min(b[0], b[2]), by1 = std::max(b[0], b[2]);
    const float bx0 = std::min(b[1], b[3]), bx1 = std::max(b[1], b[3]);
    const float area_a = (ay1 - ay0) * (ax1 - ax0);
    const float area_b = (by1 - by0) * (bx1 - bx0);
    if (area_a <= 0 || area_b <= 0) return 0.0f;
    const float ih = std::max(std::min(ay1, by1) - std::max(ay0, by0), 0.0f);
    const float iw = std::max(std::min(ax1, bx1) - std::max(ax0, bx0), 0.0f);
    const float inter = ih * iw;
    return inter / (area_a + area_b - inter);
  };
  std::vector<int32_t> kept;
  for (int32_t c : order) {
    if (static_cast<int>(kept.size()) == max_out) break;
    if (!(scores[c] > score_threshold)) continue;
    bool suppressed = false;
    for (int32_t k : kept) suppressed = suppressed || iou(c, k) > iou_threshold;
    if (!suppressed) kept.push_back(c);
  }
  return kept;
}

// Hard NMS visits candidates in batches of score bins (the kernel's own
// ordering, not a full sort): the selection must be the greedy one for
// scores spread over many bins, scores crowded into one bin, ties, -0 and
// +0, scores below the threshold, and selections that need many batches
// (clustered boxes: most candidates are suppressed).
TEST(NmsTest, HardNmsMatchesAGreedyReference) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::normal_distribution<float> logit(-4.0f, 2.0f);
  for (int trial = 0; trial < 40; ++trial) {
    const int n = trial % 4 == 0 ? 3000 : 1 + static_cast<int>(rng() % 700);
    const int clusters = trial % 3 == 0 ? 4 : 1000;
    std::vector<float> boxes(4 * n), scores(n);
    std::vector<float> centers(2 * clusters);
    for (float& c : centers) c = unit(rng);
    for (int i = 0; i < n; ++i) {
      const int k = static_cast<int>(rng() % clusters);
      const float cy = centers[2 * k] + 0.02f * unit(rng);
      const float cx = centers[2 * k + 1] + 0.02f * unit(rng);
      const float h = 0.05f + 0.2f * unit(rng), w = 0.05f + 0.2f * unit(rng);
      // Corners in either order.
      boxes[4 * i + 0] = i % 2 ? cy - h : cy + h;
      boxes[4 * i + 1] = cx - w;
      boxes[4 * i + 2] = i % 2 ? cy + h : cy - h;
      boxes[4 * i + 3] = cx + w;
      switch (trial % 5) {
        case 0:  // sigmoids, as detectors emit
          scores[i] = 1.0f / (1.0f + std::exp(-logit(rng)));
          break;
        case 1:  // one bin: a narrow range
          scores[i] = 0.5f + 1e-4f * unit(rng);
          break;
        case 2:  // few values: ties everywhere, zeros of both signs
          scores[i] = static_cast<float>(rng() % 4) * 0.25f - 0.25f;
          if (scores[i] == 0.0f && i % 2) scores[i] = -0.0f;
          break;
        default:  // signed, some below the threshold
          scores[i] = logit(rng);
      }
    }
    const int max_out = trial % 2 ? 10 : 200;
    const float threshold = trial % 5 == 2 ? -0.1f : -3.0f;
    OpTest t("NonMaxSuppressionV3");
    auto out =
        t.Run({T_<float>({n, 4}, boxes), T_<float>({n}, scores),
               Tensor::Scalar<int32_t>(max_out), Tensor::Scalar<float>(0.3f),
               Tensor::Scalar<float>(threshold)});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(Values<int32_t>((*out)[0]),
              GreedyReference(boxes, scores, max_out, 0.3f, threshold))
        << "trial " << trial << ", " << n << " boxes";
  }
}

TEST(NmsTest, Errors) {
  OpTest a("NonMaxSuppressionV3");
  ExpectError(a.Run({T_<float>({2, 3}, {0, 0, 0, 0, 0, 0}),
                     T_<float>({2}, {1, 1}), Tensor::Scalar<int32_t>(1),
                     Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.f)}),
              "4 columns");
  OpTest b("NonMaxSuppressionV3");
  ExpectError(b.Run({Boxes(), T_<float>({5}, {1, 1, 1, 1, 1}),
                     Tensor::Scalar<int32_t>(1), Tensor::Scalar<float>(0.5f),
                     Tensor::Scalar<float>(0.f)}),
              "scores");
  OpTest c("NonMaxSuppressionV3");
  ExpectError(c.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(1),
                     Tensor::Scalar<float>(1.5f), Tensor::Scalar<float>(0.f)}),
              "iou_threshold must be in [0, 1]");
  OpTest d("NonMaxSuppressionV3");
  ExpectError(d.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(-1),
                     Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.f)}),
              "non-negative");
  OpTest e("NonMaxSuppressionV5");
  ExpectError(e.Run({Boxes(), Scores(), Tensor::Scalar<int32_t>(1),
                     Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.f),
                     Tensor::Scalar<float>(-1.f)}),
              "soft_nms_sigma");
  OpTest f("NonMaxSuppressionV3");
  ExpectError(f.Run({Boxes(), Scores(), T_<int32_t>({1}, {1}),
                     Tensor::Scalar<float>(0.5f), Tensor::Scalar<float>(0.f)}),
              "max_output_size");
}

TEST(NmsTest, EmptyInput) {
  OpTest t("NonMaxSuppressionV3");
  auto out = t.Run({T_<float>({0, 4}, {}), T_<float>({0}, {}),
                    Tensor::Scalar<int32_t>(3), Tensor::Scalar<float>(0.5f),
                    Tensor::Scalar<float>(0.0f)});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), Shape({0}));
}

}  // namespace
}  // namespace graphrt::testing
