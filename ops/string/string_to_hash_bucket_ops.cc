// StringToHashBucketFast, StringToHashBucketStrong, StringToHashBucket:
// string tensor (any shape) -> int64 bucket ids of the same shape, with
// TensorFlow's hashes (see fingerprint.h):
//
//   StringToHashBucketFast    Fingerprint64(s) % num_buckets
//   StringToHashBucketStrong  SipHash-2-4(key[0], key[1], s) % num_buckets;
//                             attr `key` must have 2 elements
//   StringToHashBucket        legacy Hash64(s) % num_buckets
//
// num_buckets >= 1 (attr error otherwise). Large inputs are hashed in
// parallel (each element independently: thread-count independent).
#include <cstdint>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "ops/array/op_util.h"
#include "ops/attrs.h"
#include "ops/string/fingerprint.h"
#include "ops/string/string_ops.h"

namespace graphrt {
namespace {

enum class HashKind { kFast, kStrong, kLegacy };

class HashBucketOp : public Kernel {
 public:
  HashBucketOp(HashKind kind, uint64_t buckets, uint64_t k0, uint64_t k1)
      : kind_(kind), buckets_(buckets), k0_(k0), k1_(k1) {}

  absl::Status Run(KernelContext& ctx) const override {
    absl::Status s = ops::CheckNumInputs(ctx, 1);
    if (!s.ok()) return s;
    const Tensor& in = ctx.input(0);
    s = ops::CheckDType(in, DType::kString, "input");
    if (!s.ok()) return s;
    auto out = ctx.allocate_output(0, DType::kInt64, in.shape());
    if (!out.ok()) return out.status();
    const std::string* src = in.data<std::string>();
    int64_t* dst = (*out)->mutable_data<int64_t>();
    ops::ParallelFor(in.num_elements(), 8192, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        uint64_t h;
        switch (kind_) {
          case HashKind::kFast:
            h = Fingerprint64(src[i]);
            break;
          case HashKind::kStrong:
            h = SipHash24(k0_, k1_, src[i]);
            break;
          default:
            h = LegacyHash64(src[i]);
            break;
        }
        dst[i] = static_cast<int64_t>(h % buckets_);
      }
    });
    return absl::OkStatus();
  }

 private:
  const HashKind kind_;
  const uint64_t buckets_;
  const uint64_t k0_, k1_;
};

template <HashKind kKind>
absl::StatusOr<std::unique_ptr<Kernel>> Create(const KernelInit& init) {
  AttrReader attrs(init.node);
  if (!attrs.Has("num_buckets")) {
    return attrs.Error("num_buckets", "is required");
  }
  auto buckets = attrs.GetInt("num_buckets", 1);
  if (!buckets.ok()) return buckets.status();
  if (*buckets < 1) {
    return attrs.Error("num_buckets",
                       absl::StrCat("must be >= 1, got ", *buckets));
  }
  uint64_t k0 = 0, k1 = 0;
  if (kKind == HashKind::kStrong) {
    auto key = attrs.GetIntList("key", {});
    if (!key.ok()) return key.status();
    if (key->size() != 2) {
      return attrs.Error("key", absl::StrCat("Key must have 2 elements, got ",
                                             key->size()));
    }
    k0 = static_cast<uint64_t>((*key)[0]);
    k1 = static_cast<uint64_t>((*key)[1]);
  }
  return std::make_unique<HashBucketOp>(kKind, static_cast<uint64_t>(*buckets),
                                        k0, k1);
}

}  // namespace

void RegisterStringToHashBucketOps(OpRegistry& r) {
  r.Register("StringToHashBucketFast", Create<HashKind::kFast>);
  r.Register("StringToHashBucketStrong", Create<HashKind::kStrong>);
  r.Register("StringToHashBucket", Create<HashKind::kLegacy>);
}

}  // namespace graphrt
