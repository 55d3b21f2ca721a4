#include "ops/builtin_ops.h"
#include "ops/core/core_ops.h"

namespace graphrt {

void RegisterCoreOps(OpRegistry& r) {
  RegisterConst(r);
  RegisterPlaceholder(r);
  RegisterIdentity(r);
}

}  // namespace graphrt
