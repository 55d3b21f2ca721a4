// Registration functions of the op files in ops/string/.
#ifndef GRAPHRT_OPS_STRING_STRING_OPS_H_
#define GRAPHRT_OPS_STRING_STRING_OPS_H_

#include "ops/registry.h"

namespace graphrt {

}  // namespace graphrt

#endif  // GRAPHRT_OPS_STRING_STRING_OPS_H_
