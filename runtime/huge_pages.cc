#include "runtime/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace graphrt {

void AdviseHugePages(void* data, size_t bytes) {
  if (data == nullptr || bytes < kHugePageAdviceMinBytes) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const uintptr_t last = (begin + bytes) & ~(kHugePageBytes - 1);
  if (last <= first) return;
  // Advice only: EINVAL (THP compiled out) or ENOMEM change nothing here.
  ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace graphrt
