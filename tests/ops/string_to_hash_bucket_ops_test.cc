// StringToHashBucketFast / Strong / legacy: TF's test vectors
// (python/kernel_tests/strings_ops/string_to_hash_bucket_op_test.py) and
// farmhash Fingerprint64 values for every length class.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/string/fingerprint.h"
#include "tests/ops/op_test_util.h"

namespace graphrt::testing {
namespace {

Tensor Strings(const std::vector<std::string>& v) {
  return T_<std::string>({static_cast<int64_t>(v.size())}, v);
}

TEST(Fingerprint64, MatchesFarmhash) {
  EXPECT_EQ(Fingerprint64("a"), 12917804110809363939ULL);
  EXPECT_EQ(Fingerprint64("b"), 11795596070477164822ULL);
  EXPECT_EQ(Fingerprint64("c"), 11430444447143000872ULL);
  EXPECT_EQ(Fingerprint64("d"), 4470636696479570465ULL);
  EXPECT_EQ(Fingerprint64("Hello"), 15404698994557526151ULL);
  EXPECT_EQ(Fingerprint64("World"), 18308117990299812472ULL);
  // 17..32, 33..64 and > 64 bytes (reference: farmhash's Fingerprint64).
  EXPECT_EQ(Fingerprint64("abcdefghijklmnopq"), 11394395984755135400ULL);
  EXPECT_EQ(Fingerprint64("The quick brown fox jumps over"), 16670215548606328922ULL);
  EXPECT_EQ(Fingerprint64("The quick brown fox jumps over the lazy dog 0123456789 abcdef"),
            13032697042840963033ULL);
  EXPECT_EQ(Fingerprint64(std::string(65, 'x')), 4935023790501551929ULL);
  EXPECT_EQ(Fingerprint64("The quick brown fox jumps over the lazy dog, again and "
                          "again and again and again and again!!!"),
            17980904775616732753ULL);
  EXPECT_EQ(Fingerprint64(std::string(200, 'y') + std::string(77, 'z')),
            15225005740137457276ULL);
}

TEST(StringToHashBucket, Fast) {
  OpTest t("StringToHashBucketFast");
  t.Attr("num_buckets", int64_t{10});
  auto out = t.Run({Strings({"a", "b", "c", "d"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].dtype(), DType::kInt64);
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{9, 2, 2, 5}));
  OpTest one("StringToHashBucketFast");
  one.Attr("num_buckets", int64_t{1});
  out = one.Run({T_<std::string>({1, 3}, {"a", "b", "c"})});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].shape(), Shape({1, 3}));
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{0, 0, 0}));
}

TEST(StringToHashBucket, Legacy) {
  OpTest t("StringToHashBucket");
  t.Attr("num_buckets", int64_t{10});
  auto out = t.Run({Strings({"a", "b", "c"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{8, 0, 7}));
}

TEST(StringToHashBucket, Strong) {
  OpTest t("StringToHashBucketStrong");
  t.Attr("num_buckets", int64_t{10}).Attr("key", std::vector<int64_t>{98765, 132});
  auto out = t.Run({Strings({"a", "b", "c"})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Values<int64_t>((*out)[0]), (std::vector<int64_t>{4, 2, 8}));
  EXPECT_EQ(SipHash24(98765, 132, "a"), 7157389809176466784ULL);
  OpTest bad("StringToHashBucketStrong");
  bad.Attr("num_buckets", int64_t{10}).Attr("key", std::vector<int64_t>{98765});
  absl::Status s = bad.Create(1);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find("Key must have 2 elements"), std::string::npos);
}

TEST(StringToHashBucket, Errors) {
  OpTest zero("StringToHashBucketFast");
  zero.Attr("num_buckets", int64_t{0});
  EXPECT_FALSE(zero.Create(1).ok());
  OpTest t("StringToHashBucketFast");
  t.Attr("num_buckets", int64_t{3});
  EXPECT_FALSE(t.Run({T_<int32_t>({1}, {1})}).ok());
}

TEST(StringToHashBucket, LargeBatchIsDeterministic) {
  std::vector<std::string> v;
  for (int i = 0; i < 20000; ++i) v.push_back("tok" + std::to_string(i));
  OpTest t("StringToHashBucketFast");
  t.Attr("num_buckets", int64_t{1000});
  auto out = t.Run({Strings(v)});
  ASSERT_TRUE(out.ok());
  for (int i = 0; i < 20000; i += 997) {
    EXPECT_EQ((*out)[0].data<int64_t>()[i],
              static_cast<int64_t>(Fingerprint64(v[i]) % 1000));
  }
}

}  // namespace
}  // namespace graphrt::testing
