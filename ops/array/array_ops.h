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

}  // namespace graphrt

#endif  // GRAPHRT_OPS_ARRAY_ARRAY_OPS_H_
