// The resource behind a TF-Decision-Forests model handle
// (SimpleMLCreateModelResource): an initially empty slot that
// SimpleMLLoadModelFromPathWithHandle fills with a compiled forest and
// SimpleMLInferenceOpWithHandle reads.
//
// Thread-safety: Set and Get may race (a reload while inference runs); Get
// returns a shared pointer, so a running inference keeps the forest it
// started with. The forest itself is immutable.
#ifndef GRAPHRT_OPS_TFDF_YDF_MODEL_RESOURCE_H_
#define GRAPHRT_OPS_TFDF_YDF_MODEL_RESOURCE_H_

#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "loader/ydf/forest.h"
#include "runtime/mutex.h"
#include "runtime/resource.h"

namespace graphrt {

class YdfModelResource : public Resource {
 public:
  // Replaces the model (TF-DF replaces it on every load too).
  void Set(std::shared_ptr<const ydf::Forest> forest, std::string path) {
    MutexLock lock(&mu_);
    forest_ = std::move(forest);
    path_ = std::move(path);
  }
  // Null until a model is loaded.
  std::shared_ptr<const ydf::Forest> Get() const {
    ReaderMutexLock lock(&mu_);
    return forest_;
  }
  std::string DebugString() const override {
    ReaderMutexLock lock(&mu_);
    if (forest_ == nullptr) return "YDF model (not loaded)";
    return forest_->DebugString() + " from " + path_;
  }

 private:
  mutable Mutex mu_;
  std::shared_ptr<const ydf::Forest> forest_ ABSL_GUARDED_BY(mu_);
  std::string path_ ABSL_GUARDED_BY(mu_);
};

}  // namespace graphrt

#endif  // GRAPHRT_OPS_TFDF_YDF_MODEL_RESOURCE_H_
