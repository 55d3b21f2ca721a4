#include "ops/builtin_ops.h"
#include "ops/string/string_ops.h"

namespace graphrt {

void RegisterStringOps(OpRegistry& r) {
  RegisterStringToHashBucketOps(r);
  RegisterStringSplitOps(r);
  RegisterStringBasicOps(r);
  RegisterRegexReplaceOps(r);
}

}  // namespace graphrt
