// Registration functions of the op files in ops/string/.
#ifndef GRAPHRT_OPS_STRING_STRING_OPS_H_
#define GRAPHRT_OPS_STRING_STRING_OPS_H_

#include "ops/registry.h"

namespace graphrt {

// StringToHashBucketFast, StringToHashBucketStrong, StringToHashBucket
void RegisterStringToHashBucketOps(OpRegistry& r);
// StringSplit, StringSplitV2
void RegisterStringSplitOps(OpRegistry& r);
// StringLower, StringUpper, StringJoin, Substr
void RegisterStringBasicOps(OpRegistry& r);
// StaticRegexReplace
void RegisterRegexReplaceOps(OpRegistry& r);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_STRING_STRING_OPS_H_
