// Registration functions of the op files in ops/tfdf/: TensorFlow Decision
// Forests inference (Yggdrasil Decision Forests models, loader/ydf/).
#ifndef GRAPHRT_OPS_TFDF_TFDF_OPS_H_
#define GRAPHRT_OPS_TFDF_TFDF_OPS_H_

#include "ops/registry.h"

namespace graphrt {

// SimpleMLCreateModelResource, SimpleMLLoadModelFromPathWithHandle,
// SimpleMLInferenceOpWithHandle
void RegisterSimpleMlOps(OpRegistry& r);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_TFDF_TFDF_OPS_H_
