// Registration functions of the op files in ops/dynamic/.
#ifndef GRAPHRT_OPS_DYNAMIC_DYNAMIC_OPS_H_
#define GRAPHRT_OPS_DYNAMIC_DYNAMIC_OPS_H_

#include "ops/registry.h"

namespace graphrt {

}  // namespace graphrt

#endif  // GRAPHRT_OPS_DYNAMIC_DYNAMIC_OPS_H_
