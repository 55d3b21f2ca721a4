#include "ops/builtin_ops.h"
#include "ops/nn/nn_ops.h"

namespace graphrt {

void RegisterNnOps(OpRegistry& r) {
}

}  // namespace graphrt
