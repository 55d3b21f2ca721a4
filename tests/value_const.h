// A test helper shared by graph tests: a float32 Const node whose values
// sit in its `value` attr (tensor_content), as TensorFlow writes constants
// (TF.js models keep them in weight shards instead).
#ifndef GRAPHRT_TESTS_VALUE_CONST_H_
#define GRAPHRT_TESTS_VALUE_CONST_H_

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "proto/graph.pb.h"

namespace graphrt::test_util {

// Appends Const `name` of shape `dims` to `g`, its values uniform in
// [-scale, scale) drawn from `rng`.
inline tensorflow::NodeDef* AddRandomValueConst(tensorflow::GraphDef* g,
                                                const std::string& name,
                                                std::vector<int64_t> dims,
                                                float scale,
                                                std::mt19937* rng) {
  tensorflow::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op("Const");
  (*n->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(tensorflow::DT_FLOAT);
  int64_t count = 1;
  for (int64_t d : dims) {
    t->mutable_tensor_shape()->add_dim()->set_size(d);
    count *= d;
  }
  std::uniform_real_distribution<float> u(-scale, scale);
  std::vector<float> v(count);
  for (float& x : v) x = u(*rng);
  t->set_tensor_content(std::string(reinterpret_cast<const char*>(v.data()),
                                    v.size() * sizeof(float)));
  return n;
}

}  // namespace graphrt::test_util

#endif  // GRAPHRT_TESTS_VALUE_CONST_H_
