#include "ops/builtin_ops.h"
#include "ops/nn/depthwise_block.h"
#include "ops/nn/nn_ops.h"

namespace graphrt {

void RegisterNnOps(OpRegistry& r) {
  RegisterConv(r);
  RegisterConvBackprop(r);
  RegisterDepthwiseConv(r);
  RegisterDepthwiseBlock(r);
  RegisterPooling(r);
  RegisterResize(r);
  RegisterImageTransform(r);
  RegisterBatchMatMul(r);
  RegisterEinsum(r);
  RegisterBatchNorm(r);
}

}  // namespace graphrt
