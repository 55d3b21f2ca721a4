// PENDING: being written; registers nothing yet.
#include "ops/builtin_ops.h"

namespace graphrt {

void RegisterCast(OpRegistry& r) {}

}  // namespace graphrt
