#include "ops/builtin_ops.h"
#include "ops/tfdf/tfdf_ops.h"

namespace graphrt {

void RegisterTfdfOps(OpRegistry& r) { RegisterSimpleMlOps(r); }

}  // namespace graphrt
