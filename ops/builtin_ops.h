// Registration of the built-in ops, one function per area folder. Each
// area's register_<area>.cc calls the registration function of every op
// file in that folder (declared in <area>/<area>_ops.h); ops/register.cc
// calls the areas. Adding an op = a file in its area + one line in that
// area's register_<area>.cc.
#ifndef GRAPHRT_OPS_BUILTIN_OPS_H_
#define GRAPHRT_OPS_BUILTIN_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterCoreOps(OpRegistry& r);     // ops/core/: graph plumbing
void RegisterControlOps(OpRegistry& r);  // ops/control/: v1 frames, If/While, calls
void RegisterArrayOps(OpRegistry& r);    // ops/array/: shapes, slicing, joining, creation
void RegisterMathOps(OpRegistry& r);     // ops/math/: element-wise, reductions, MatMul
void RegisterNnOps(OpRegistry& r);       // ops/nn/: convolution, pooling, image, batch matmul
void RegisterDynamicOps(OpRegistry& r);  // ops/dynamic/: NMS, TopK, Where, TensorArray/List, sparse
void RegisterStringOps(OpRegistry& r);   // ops/string/: string ops
void RegisterLookupOps(OpRegistry& r);   // ops/lookup/: hash tables
void RegisterParsingOps(OpRegistry& r);  // ops/parsing/: tf.Example decoding
void RegisterSummaryOps(OpRegistry& r);  // ops/summary/: TensorBoard summaries
void RegisterStateOps(OpRegistry& r);    // ops/state/: variables
void RegisterTfdfOps(OpRegistry& r);     // ops/tfdf/: TF Decision Forests (YDF)

}  // namespace graphrt

#endif  // GRAPHRT_OPS_BUILTIN_OPS_H_
