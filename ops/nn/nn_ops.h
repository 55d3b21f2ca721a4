// Registration functions of the op files in ops/nn/.
#ifndef GRAPHRT_OPS_NN_NN_OPS_H_
#define GRAPHRT_OPS_NN_NN_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterConv(OpRegistry& r);  // Conv1D, Conv2D, _FusedConv2D, Conv3D
void RegisterConvBackprop(OpRegistry& r);  // Conv2DBackpropInput
// DepthwiseConv2dNative, DepthwiseConv2d, FusedDepthwiseConv2dNative,
// Dilation2D
void RegisterDepthwiseConv(OpRegistry& r);
// MaxPool, AvgPool, MaxPool3D, AvgPool3D, MaxPoolWithArgmax
void RegisterPooling(OpRegistry& r);
// ResizeBilinear, ResizeNearestNeighbor, CropAndResize
void RegisterResize(OpRegistry& r);
// ImageProjectiveTransformV2, ImageProjectiveTransformV3
void RegisterImageTransform(OpRegistry& r);
// BatchMatMul, BatchMatMulV2, MatrixBandPart
void RegisterBatchMatMul(OpRegistry& r);
void RegisterEinsum(OpRegistry& r);  // Einsum
// FusedBatchNorm, FusedBatchNormV2, FusedBatchNormV3, LRN
void RegisterBatchNorm(OpRegistry& r);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_NN_OPS_H_
