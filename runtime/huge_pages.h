// Transparent-huge-page advice for large, freshly allocated memory.
//
// Why: on the VMs graphrt runs on, the first touch of each 4 KiB page of new
// memory is a trap costing several microseconds (a 9.2 MB malloc + write:
// 35 ms with 4 KiB pages, 4 ms with 2 MiB ones; bench/RESULTS.md "Load
// time"). Load-time structures of hash-table-heavy models are exactly such
// memory: a 300k-word vocabulary decodes into ~10 MB of std::string and its
// table takes ~13 MB. MADV_HUGEPAGE on the 2 MiB-aligned interior of a
// block lets the kernel back it with huge pages on first touch (512x fewer
// traps, fewer TLB misses when probing); where THP is off the advice is
// ignored and nothing changes.
//
// Contract: advise memory before its first write (pages already touched
// stay small); blocks below kHugePageAdviceMinBytes are left alone (their
// huge-page interior would be small and heap blocks that size are usually
// recycled pages). Advice never fails visibly.
#ifndef GRAPHRT_RUNTIME_HUGE_PAGES_H_
#define GRAPHRT_RUNTIME_HUGE_PAGES_H_

#include <cstddef>
#include <memory>

namespace graphrt {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
inline constexpr size_t kHugePageAdviceMinBytes = size_t{4} << 20;

// Advises the whole 2 MiB pages inside [data, data + bytes) for THP when
// bytes >= kHugePageAdviceMinBytes; a no-op otherwise.
void AdviseHugePages(void* data, size_t bytes);

// std::allocator that advises large blocks (a container's backing array,
// e.g. absl::flat_hash_map's slots) with AdviseHugePages.
template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    T* p = std::allocator<T>().allocate(n);
    AdviseHugePages(p, n * sizeof(T));
    return p;
  }
  void deallocate(T* p, size_t n) { std::allocator<T>().deallocate(p, n); }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_HUGE_PAGES_H_
