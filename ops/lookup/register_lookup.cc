#include "ops/builtin_ops.h"
#include "ops/lookup/lookup_ops.h"

namespace graphrt {

void RegisterLookupOps(OpRegistry& r) {
  RegisterHashTableOps(r);
  RegisterMutableTableOps(r);
  RegisterTextFileInitOps(r);
}

}  // namespace graphrt
