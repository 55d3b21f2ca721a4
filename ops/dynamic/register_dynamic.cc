#include "ops/builtin_ops.h"
#include "ops/dynamic/dynamic_ops.h"

namespace graphrt {

void RegisterDynamicOps(OpRegistry& r) {
}

}  // namespace graphrt
