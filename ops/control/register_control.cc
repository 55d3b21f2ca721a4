#include "ops/builtin_ops.h"
#include "ops/control/control_ops.h"

namespace graphrt {

void RegisterControlOps(OpRegistry& r) {
  RegisterFrameOps(r);
  RegisterFunctionOps(r);
}

}  // namespace graphrt
