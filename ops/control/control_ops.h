// Registration functions of the op files in ops/control/.
#ifndef GRAPHRT_OPS_CONTROL_CONTROL_OPS_H_
#define GRAPHRT_OPS_CONTROL_CONTROL_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterFrameOps(OpRegistry& r);     // Switch, Merge, Enter, Exit, NextIteration, LoopCond
void RegisterFunctionOps(OpRegistry& r);  // If, While (+Stateless), (Stateful)PartitionedCall

}  // namespace graphrt

#endif  // GRAPHRT_OPS_CONTROL_CONTROL_OPS_H_
