// Registration functions of the op files in ops/array/.
#ifndef GRAPHRT_OPS_ARRAY_ARRAY_OPS_H_
#define GRAPHRT_OPS_ARRAY_ARRAY_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterShape(OpRegistry& r);    // Shape
void RegisterReshape(OpRegistry& r);  // Reshape
void RegisterCast(OpRegistry& r);     // Cast
void RegisterGather(OpRegistry& r);   // Gather, GatherV2
void RegisterConcat(OpRegistry& r);   // Concat, ConcatV2
void RegisterTranspose(OpRegistry& r);  // Transpose
void RegisterSlice(OpRegistry& r);      // Slice, StridedSlice
void RegisterPack(OpRegistry& r);       // Pack, Unpack
void RegisterSplit(OpRegistry& r);      // Split, SplitV
void RegisterReverse(OpRegistry& r);    // Reverse, ReverseV2
void RegisterTile(OpRegistry& r);       // Tile, BroadcastTo, BroadcastArgs
// ExpandDims, Squeeze, EnsureShape, Rank, Size, ShapeN, Snapshot, Print
void RegisterShapeOps(OpRegistry& r);
// Fill, ZerosLike, OnesLike, LinSpace, Range, OneHot
void RegisterFill(OpRegistry& r);
// RandomUniform, RandomUniformInt, RandomStandardNormal, TruncatedNormal,
// Multinomial
void RegisterRandom(OpRegistry& r);
void RegisterPad(OpRegistry& r);        // Pad, PadV2, MirrorPad
void RegisterGatherNd(OpRegistry& r);   // GatherNd
// ScatterNd, TensorScatterUpdate, SparseToDense
void RegisterScatterNd(OpRegistry& r);
// DepthToSpace, SpaceToDepth, SpaceToBatchND, BatchToSpaceND
void RegisterSpaceOps(OpRegistry& r);
// FakeQuantWithMinMaxVars, FakeQuantWithMinMaxVarsPerChannel,
// FakeQuantWithMinMaxArgs
void RegisterFakeQuant(OpRegistry& r);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_ARRAY_ARRAY_OPS_H_
