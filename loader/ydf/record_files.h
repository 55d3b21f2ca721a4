// The two record containers Yggdrasil Decision Forests stores tree nodes in
// (`nodes-XXXXX-of-YYYYY` files, one serialized Node proto per record):
//
//   BLOB_SEQUENCE (YDF's current default): an 8-byte file header — magic
//     "BS", uint16 version (0), uint32 reserved — then records, each a
//     little-endian uint32 length followed by that many bytes.
//   TFE_RECORDIO (older TF-DF models; the header's default): TFRecord
//     framing — uint64 length, uint32 masked CRC32C of the length, the
//     bytes, uint32 masked CRC32C of the bytes.
//
// Both readers take the whole file's bytes and return the records, or an
// error naming `where` (the file) and the byte offset of the bad record:
// truncated headers or payloads, lengths past the end of the file, bad
// magic, unknown versions and CRC mismatches are DataLoss /
// Unimplemented, never a crash. The returned views point into `data`.
// Stateless and thread-safe.
#ifndef GRAPHRT_LOADER_YDF_RECORD_FILES_H_
#define GRAPHRT_LOADER_YDF_RECORD_FILES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace graphrt::ydf {

absl::StatusOr<std::vector<absl::string_view>> ReadBlobSequence(
    absl::string_view data, const std::string& where);

absl::StatusOr<std::vector<absl::string_view>> ReadTfRecords(
    absl::string_view data, const std::string& where);

// Writers (tests build models with them; also handy for tools).
std::string WriteBlobSequence(const std::vector<std::string>& records);
std::string WriteTfRecords(const std::vector<std::string>& records);

}  // namespace graphrt::ydf

#endif  // GRAPHRT_LOADER_YDF_RECORD_FILES_H_
