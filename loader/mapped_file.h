// A read-only memory map of a whole file. Loaders parse from it; the TF.js
// loader also keeps it alive behind unquantized float32/int32 weights, which
// are zero-copy views into it (TfjsLoadOptions::view_weights).
//
// Why not read(): a read() into a std::string zero-fills the string, faults
// in its pages and copies every byte from the page cache; a map reads the
// page cache directly, and unmapping it frees nothing the process owned.
// On blazepose-heavy (27 MB of shards) this took a third off the load.
//
//   GRAPHRT_ASSIGN_OR_RETURN(MappedFile file, MappedFile::Open(path));
//   Parse(file.data());          // absl::string_view over the whole file
//
// Lifetime: data() is valid until the MappedFile is destroyed or moved
// from. The map is MAP_PRIVATE and PROT_READ: writes through it fault. As
// with any mapped input (TFLite maps its models the same way), a file that
// another process truncates while it is mapped gives SIGBUS on access; a
// map is kept only for one load unless weights view it (then for the
// model's life).
//
// Errors: NotFound / PermissionDenied / ... from errno (with the path);
// InvalidArgument for a directory. An empty file maps to an empty view.
#ifndef GRAPHRT_LOADER_MAPPED_FILE_H_
#define GRAPHRT_LOADER_MAPPED_FILE_H_

#include <cstddef>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphrt {

class MappedFile {
 public:
  static absl::StatusOr<MappedFile> Open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  absl::string_view data() const {
    return absl::string_view(static_cast<const char*>(addr_), size_);
  }
  size_t size() const { return size_; }

  // Gives back the pages wholly inside [begin, end) (byte offsets): they
  // leave the process's resident set and are read from the file again if
  // touched (MADV_DONTNEED on a private read-only file map). For the bytes
  // of a map kept alive for some ranges only.
  void Release(size_t begin, size_t end) const;

 private:
  MappedFile(void* addr, size_t size) : addr_(addr), size_(size) {}
  void Unmap();

  void* addr_ = nullptr;  // nullptr for an empty file
  size_t size_ = 0;
};

}  // namespace graphrt

#endif  // GRAPHRT_LOADER_MAPPED_FILE_H_
