// The element type of DT_VARIANT tensors (TensorList handles and the like):
// a shared pointer to an immutable value object.
#ifndef GRAPHRT_RUNTIME_VARIANT_H_
#define GRAPHRT_RUNTIME_VARIANT_H_

#include <memory>
#include <string>

namespace graphrt {

class VariantValue {
 public:
  virtual ~VariantValue() = default;
  virtual std::string TypeName() const = 0;
};

struct Variant {
  std::shared_ptr<const VariantValue> value;
};

}  // namespace graphrt

#endif  // GRAPHRT_RUNTIME_VARIANT_H_
