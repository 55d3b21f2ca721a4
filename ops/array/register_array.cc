#include "ops/builtin_ops.h"
#include "ops/array/array_ops.h"

namespace graphrt {

void RegisterArrayOps(OpRegistry& r) {
  RegisterShape(r);
  RegisterReshape(r);
  RegisterCast(r);
  RegisterGather(r);
  RegisterConcat(r);
}

}  // namespace graphrt
