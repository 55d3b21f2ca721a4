// Decoding of TensorFlow TensorProto values (Const `value` attrs in binary
// GraphDefs): tensor_content or the typed *_val fields, with TF's rule that
// a shorter typed list is padded by repeating its last value.
#ifndef GRAPHRT_CONVERTER_TENSOR_PROTO_H_
#define GRAPHRT_CONVERTER_TENSOR_PROTO_H_

#include "absl/status/statusor.h"
#include "proto/graph.pb.h"
#include "runtime/tensor.h"

namespace graphrt {

absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto);

// Converts numeric `t` to `dtype` (static_cast semantics). Used where a
// weight was stored narrower than its node declares (TF.js writes int64
// Consts as int32, float64 as float32).
absl::StatusOr<Tensor> CastTensor(const Tensor& t, DType dtype);

}  // namespace graphrt

#endif  // GRAPHRT_CONVERTER_TENSOR_PROTO_H_
