// WeightArena: one anonymous memory mapping that holds every decoded weight
// of a TF.js weight group, carved into 64-byte aligned pieces.
//
// Why: decoded weights are fresh memory, and on the VMs this project runs
// on the first touch of each 4 KiB page is a trap costing several
// microseconds: a model with 9 MB of float32 weights (movenet-lightning,
// float16 in its shards) spent more time faulting pages in than decoding
// them. One mapping advised for transparent huge pages (MADV_HUGEPAGE; the
// kernel uses 2 MiB pages where it has them, 4 KiB ones otherwise) takes
// 512x fewer faults; measured numbers in bench/RESULTS.md "Load time".
//
// Lifecycle / ownership: Create maps the whole size up front; Take hands
// out pieces in order and never frees them; the mapping is unmapped when
// the last shared_ptr to the arena goes (each weight Tensor is a
// Tensor::View holding one). A weight that a graph pass replaces keeps its
// piece until the whole arena goes: the arena suits weights, which live as
// long as the model.
//
// Thread-safety: Take is not thread-safe (one loader fills an arena);
// the memory it returns is ordinary memory.
#ifndef GRAPHRT_LOADER_WEIGHT_ARENA_H_
#define GRAPHRT_LOADER_WEIGHT_ARENA_H_

#include <cstddef>
#include <memory>

namespace graphrt {

class WeightArena {
 public:
  // Pieces are aligned to this (runtime/tensor.h's kTensorAlignment).
  static constexpr size_t kAlignment = 64;
  // Groups whose weights decode to fewer bytes than this use ordinary
  // allocations (the heap's recycled pages are cheaper than a mapping).
  static constexpr size_t kMinBytes = size_t{1} << 20;

  // Bytes a piece of `bytes` takes (rounded up to kAlignment).
  static size_t PieceSize(size_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

  // An arena of `bytes` bytes (the sum of PieceSize of what will be
  // taken); null when the mapping fails (callers then allocate normally).
  static std::shared_ptr<WeightArena> Create(size_t bytes);

  ~WeightArena();
  WeightArena(const WeightArena&) = delete;
  WeightArena& operator=(const WeightArena&) = delete;

  // The next PieceSize(bytes) bytes, or null when the arena is full.
  void* Take(size_t bytes);

 private:
  WeightArena(void* mapping, size_t mapping_bytes, char* begin, char* end)
      : mapping_(mapping),
        mapping_bytes_(mapping_bytes),
        next_(begin),
        end_(end) {}

  void* mapping_;
  size_t mapping_bytes_;
  char* next_;
  char* end_;
};

// The keep-alive of one weight's bytes [data, data + bytes) in memory that
// `owner` keeps mapped (a WeightArena, a mapped weight shard). It holds
// `owner`, and when the last tensor viewing the weight goes it gives the
// whole pages inside the range back to the OS (MADV_DONTNEED; a neighbour's
// partly covered pages stay). So a weight nothing uses any more, such as a
// convolution filter whose kernel packed its own copy (Kernel::
// AdoptConstInput), stops counting in the process's memory while the rest
// of the mapping stays. Weights under kMinReleasableBytes (two 4 KB pages:
// the least that surely covers a whole page) get `owner` itself. A small
// model's weights are mostly 8-64 KB: were they not released one by one,
// the whole shard would stay resident until the first Run had packed every
// filter, next to the packed copies (iris: 2.5 MB twice at the peak).
inline constexpr size_t kMinReleasableBytes = size_t{8} << 10;
std::shared_ptr<const void> PageReleasingOwner(
    std::shared_ptr<const void> owner, void* data, size_t bytes);

}  // namespace graphrt

#endif  // GRAPHRT_LOADER_WEIGHT_ARENA_H_
