#include "loader/ydf/record_files.h"

#include <cstdint>

#include "absl/strings/str_cat.h"
#include "loader/bundle/crc32c.h"

namespace graphrt::ydf {
namespace {

uint64_t LoadLittleEndian(absl::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i > 0; --i) {
    v = (v << 8) | static_cast<unsigned char>(bytes[i - 1]);
  }
  return v;
}

void AppendLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) {
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
}

absl::Status Corrupt(const std::string& where, size_t offset,
                     absl::string_view what) {
  return absl::DataLossError(
      absl::StrCat(where, ": corrupt record at byte ", offset, ": ", what));
}

}  // namespace

absl::StatusOr<std::vector<absl::string_view>> ReadBlobSequence(
    absl::string_view data, const std::string& where) {
  constexpr size_t kFileHeader = 8;
  if (data.size() < kFileHeader || data[0] != 'B' || data[1] != 'S') {
    return absl::DataLossError(
        absl::StrCat(where, ": not a blob sequence (no 'BS' header)"));
  }
  const uint64_t version = LoadLittleEndian(data.substr(2, 2));
  if (version != 0) {
    return absl::UnimplementedError(
        absl::StrCat(where, ": blob sequence version ", version,
                     " is not supported (only version 0, uncompressed)"));
  }
  std::vector<absl::string_view> records;
  size_t pos = kFileHeader;
  while (pos < data.size()) {
    if (data.size() - pos < 4) return Corrupt(where, pos, "truncated length");
    const uint64_t length = LoadLittleEndian(data.substr(pos, 4));
    if (length > data.size() - pos - 4) {
      return Corrupt(where, pos,
                     absl::StrCat("length ", length, " runs past the end (",
                                  data.size() - pos - 4, " bytes left)"));
    }
    records.push_back(data.substr(pos + 4, length));
    pos += 4 + length;
  }
  return records;
}

absl::StatusOr<std::vector<absl::string_view>> ReadTfRecords(
    absl::string_view data, const std::string& where) {
  std::vector<absl::string_view> records;
  size_t pos = 0;
  while (pos < data.size()) {
    if (data.size() - pos < 12) return Corrupt(where, pos, "truncated header");
    const absl::string_view length_bytes = data.substr(pos, 8);
    const uint64_t length = LoadLittleEndian(length_bytes);
    const uint32_t length_crc =
        static_cast<uint32_t>(LoadLittleEndian(data.substr(pos + 8, 4)));
    if (crc32c::Unmask(length_crc) != crc32c::Value(length_bytes)) {
      return Corrupt(where, pos, "length checksum mismatch");
    }
    if (length > data.size() - pos - 12 ||
        data.size() - pos - 12 - length < 4) {
      return Corrupt(where, pos,
                     absl::StrCat("length ", length, " runs past the end"));
    }
    const absl::string_view payload = data.substr(pos + 12, length);
    const uint32_t payload_crc = static_cast<uint32_t>(
        LoadLittleEndian(data.substr(pos + 12 + length, 4)));
    if (crc32c::Unmask(payload_crc) != crc32c::Value(payload)) {
      return Corrupt(where, pos, "data checksum mismatch");
    }
    records.push_back(payload);
    pos += 16 + length;
  }
  return records;
}

std::string WriteBlobSequence(const std::vector<std::string>& records) {
  std::string out = "BS";
  AppendLittleEndian(0, 2, &out);  // version
  AppendLittleEndian(0, 4, &out);  // reserved
  for (const std::string& r : records) {
    AppendLittleEndian(r.size(), 4, &out);
    out += r;
  }
  return out;
}

std::string WriteTfRecords(const std::vector<std::string>& records) {
  std::string out;
  for (const std::string& r : records) {
    std::string length;
    AppendLittleEndian(r.size(), 8, &length);
    out += length;
    AppendLittleEndian(crc32c::Mask(crc32c::Value(length)), 4, &out);
    out += r;
    AppendLittleEndian(crc32c::Mask(crc32c::Value(r)), 4, &out);
  }
  return out;
}

}  // namespace graphrt::ydf
