#include <gtest/gtest.h>
#include <Eigen/Dense>
#include <absl/status/statusor.h>
#include <absl/container/flat_hash_map.h>
#include <oneapi/tbb/parallel_for.h>
#include <nlohmann/json.hpp>
TEST(Smoke, Libs) {
  absl::StatusOr<int> s = 3;
  absl::flat_hash_map<std::string,int> m; m["a"]=1;
  Eigen::MatrixXf a = Eigen::MatrixXf::Ones(2,2);
  EXPECT_EQ((a*a)(0,0), 2.f);
  tbb::parallel_for(0, 4, [](int){});
  EXPECT_EQ(*s + m["a"], 4);
}
