// Helpers shared by the single-op tests (kernels with random-input
// comparisons against naive references).
#ifndef GRAPHRT_TESTS_OPS_TEST_HELPERS_H_
#define GRAPHRT_TESTS_OPS_TEST_HELPERS_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/tensor.h"

namespace graphrt::testing {

inline void ExpectError(const absl::StatusOr<std::vector<Tensor>>& r,
                        const std::string& substr) {
  ASSERT_FALSE(r.ok()) << "expected an error containing '" << substr << "'";
  EXPECT_NE(std::string(r.status().message()).find(substr), std::string::npos)
      << r.status();
}

inline std::vector<float> Random(int64_t n, std::mt19937* rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(*rng);
  return v;
}

inline void ExpectNear(const std::vector<float>& got,
                       const std::vector<float>& want, float tol = 1e-4f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], want[i], tol) << "at " << i;
  }
}

// [n, h, w, c] -> [n, c, h, w].
inline std::vector<float> Nhwc2Nchw(const std::vector<float>& v, int64_t n,
                                    int64_t h, int64_t w, int64_t c) {
  std::vector<float> o(v.size());
  for (int64_t b = 0; b < n; ++b)
    for (int64_t y = 0; y < h; ++y)
      for (int64_t x = 0; x < w; ++x)
        for (int64_t k = 0; k < c; ++k)
          o[((b * c + k) * h + y) * w + x] = v[((b * h + y) * w + x) * c + k];
  return o;
}

// TF window geometry: output size and pad_before.
inline void Window(int64_t in, int64_t k, int64_t s, int64_t d,
                   const std::string& padding, int64_t pb, int64_t pa,
                   int64_t* out, int64_t* before) {
  const int64_t e = (k - 1) * d + 1;
  if (padding == "VALID") {
    *out = (in - e + s) / s;
    *before = 0;
  } else if (padding == "SAME") {
    *out = (in + s - 1) / s;
    *before = std::max<int64_t>(0, (*out - 1) * s + e - in) / 2;
  } else {
    *out = (in + pb + pa - e + s) / s;
    *before = pb;
  }
}

// `run(out)` (a Run writing `out_size` floats; false or an error: failed)
// once on this thread, then `runs` times on each of 4 threads into each
// thread's own buffer: every thread's result must equal the first, bit for
// bit.
template <typename RunFn>
void ExpectConcurrentRunsAgree(size_t out_size, int runs, const RunFn& run) {
  std::vector<float> want(out_size);
  absl::StatusOr<bool> first = run(want.data());
  ASSERT_TRUE(first.ok() && *first);
  std::vector<std::vector<float>> got(4, std::vector<float>(out_size));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < runs; ++r) {
        absl::StatusOr<bool> done = run(got[t].data());
        if (!done.ok() || !*done) return;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(got[t], want) << "thread " << t;
}

}  // namespace graphrt::testing

#endif  // GRAPHRT_TESTS_OPS_TEST_HELPERS_H_
