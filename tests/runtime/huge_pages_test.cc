#include "runtime/huge_pages.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "gtest/gtest.h"
#include "runtime/tensor.h"

namespace graphrt {
namespace {

// The VmFlags line of the /proc/self/smaps mapping that holds `address`
// ("" when not found).
std::string VmFlagsOf(const void* address) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    const std::vector<std::string> fields = absl::StrSplit(line, ' ');
    const std::vector<std::string> range = absl::StrSplit(fields[0], '-');
    uint64_t lo = 0, hi = 0;
    if (range.size() == 2 && absl::SimpleHexAtoi(range[0], &lo) &&
        absl::SimpleHexAtoi(range[1], &hi)) {
      inside = lo <= a && a < hi;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool ThpAvailable() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string mode;
  std::getline(f, mode);
  return !mode.empty() && mode.find("[never]") == std::string::npos;
}

char* HugeInterior(void* p) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  return reinterpret_cast<char*>((a + kHugePageBytes - 1) &
                                 ~(kHugePageBytes - 1));
}

TEST(HugePagesTest, AdvisesTheAlignedInteriorOfLargeBlocks) {
  if (!ThpAvailable()) GTEST_SKIP() << "transparent huge pages are off";
  const size_t bytes = 3 * kHugePageBytes;
  void* p = std::aligned_alloc(64, bytes);
  ASSERT_NE(p, nullptr);
  AdviseHugePages(p, bytes);
  EXPECT_NE(VmFlagsOf(HugeInterior(p)).find(" hg"), std::string::npos)
      << VmFlagsOf(HugeInterior(p));
  std::memset(p, 1, bytes);  // still ordinary memory
  std::free(p);
}

TEST(HugePagesTest, LeavesSmallBlocksAlone) {
  // Below kHugePageAdviceMinBytes nothing is advised (a heap block that
  // size shares its mapping with others).
  std::vector<char> small(kHugePageAdviceMinBytes - 1);
  AdviseHugePages(small.data(), small.size());
  EXPECT_EQ(VmFlagsOf(small.data()).find(" hg"), std::string::npos);
  AdviseHugePages(nullptr, kHugePageAdviceMinBytes);  // no-op
}

TEST(HugePagesTest, LargeTensorsAreAdvised) {
  if (!ThpAvailable()) GTEST_SKIP() << "transparent huge pages are off";
  auto t = Tensor::Allocate(DType::kFloat32,
                            Shape({static_cast<int64_t>(kHugePageBytes)}));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_NE(VmFlagsOf(HugeInterior(t->mutable_data<float>())).find(" hg"),
            std::string::npos);
  auto s = Tensor::Allocate(DType::kString, Shape({300000}));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->data<std::string>()[299999].empty());
}

TEST(HugePagesTest, AllocatorBacksAFlatHashMap) {
  absl::flat_hash_map<int64_t, int64_t, absl::Hash<int64_t>,
                      std::equal_to<int64_t>,
                      HugePageAllocator<std::pair<const int64_t, int64_t>>>
      map;
  map.reserve(1 << 20);  // ~17 MB of slots: advised
  for (int64_t i = 0; i < 1000; ++i) map[i * 7919] = i;
  EXPECT_EQ(map.size(), 1000u);
  EXPECT_EQ(map.at(7919 * 999), 999);
}

}  // namespace
}  // namespace graphrt
