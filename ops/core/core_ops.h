// Registration functions of the op files in ops/core/.
#ifndef GRAPHRT_OPS_CORE_CORE_OPS_H_
#define GRAPHRT_OPS_CORE_CORE_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterConst(OpRegistry& r);        // Const
void RegisterPlaceholder(OpRegistry& r);  // Placeholder, PlaceholderWithDefault
void RegisterIdentity(OpRegistry& r);     // Identity, IdentityN, StopGradient, NoOp

}  // namespace graphrt

#endif  // GRAPHRT_OPS_CORE_CORE_OPS_H_
