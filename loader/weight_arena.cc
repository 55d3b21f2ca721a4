#include "loader/weight_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>

#include "runtime/huge_pages.h"

namespace graphrt {

std::shared_ptr<WeightArena> WeightArena::Create(size_t bytes) {
  if (bytes == 0 || bytes > (size_t{1} << 46)) return nullptr;
  // Huge pages need 2 MiB alignment: map one huge page more and start at
  // the first boundary.
  const size_t span = bytes >= kHugePageBytes ? bytes + kHugePageBytes : bytes;
  void* mapping = ::mmap(nullptr, span, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) return nullptr;
  char* begin = static_cast<char*>(mapping);
  if (bytes >= kHugePageBytes) {
    const uintptr_t p = reinterpret_cast<uintptr_t>(begin);
    begin = reinterpret_cast<char*>((p + kHugePageBytes - 1) &
                                    ~(kHugePageBytes - 1));
    // Advice only: without THP the kernel uses small pages.
    ::madvise(begin, bytes, MADV_HUGEPAGE);
  }
#ifdef MADV_POPULATE_WRITE
  // Every page is written by the decoder right away: fault them all in with
  // one call (Linux >= 5.14; huge pages where the advice above got them)
  // instead of one trap per page. Best effort: older kernels say EINVAL and
  // the pages fault in on first touch as before.
  ::madvise(begin, bytes, MADV_POPULATE_WRITE);
#endif
  return std::shared_ptr<WeightArena>(
      new WeightArena(mapping, span, begin, begin + bytes));
}

WeightArena::~WeightArena() { ::munmap(mapping_, mapping_bytes_); }

void* WeightArena::Take(size_t bytes) {
  const size_t piece = PieceSize(bytes);
  if (piece > static_cast<size_t>(end_ - next_)) return nullptr;
  void* out = next_;
  next_ += piece;
  return out;
}

namespace {

class PageReleasingPiece {
 public:
  PageReleasingPiece(std::shared_ptr<const void> owner, void* data,
                     size_t bytes)
      : owner_(std::move(owner)), data_(data), bytes_(bytes) {}
  ~PageReleasingPiece() {
    const uintptr_t page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(data_);
    const uintptr_t first = (begin + page - 1) / page * page;
    const uintptr_t last = (begin + bytes_) / page * page;
    if (last > first) {
      ::madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED);
    }
  }
  PageReleasingPiece(const PageReleasingPiece&) = delete;
  PageReleasingPiece& operator=(const PageReleasingPiece&) = delete;

 private:
  std::shared_ptr<const void> owner_;
  void* data_;
  size_t bytes_;
};

}  // namespace

std::shared_ptr<const void> PageReleasingOwner(
    std::shared_ptr<const void> owner, void* data, size_t bytes) {
  if (owner == nullptr || data == nullptr || bytes < kMinReleasableBytes) {
    return owner;
  }
  return std::make_shared<PageReleasingPiece>(std::move(owner), data, bytes);
}

}  // namespace graphrt
