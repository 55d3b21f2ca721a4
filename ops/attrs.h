// Typed access to a NodeDef's attrs, with errors that name the node, the
// attr and what was expected. Missing attrs fall back to the given default;
// Require* variants fail when the attr is absent.
#ifndef GRAPHRT_OPS_ATTRS_H_
#define GRAPHRT_OPS_ATTRS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "proto/graph.pb.h"
#include "runtime/dtype.h"
#include "runtime/shape.h"

namespace graphrt {

class AttrReader {
 public:
  explicit AttrReader(const tensorflow::NodeDef& node) : node_(node) {}

  bool Has(const std::string& name) const;

  absl::StatusOr<int64_t> GetInt(const std::string& name,
                                 int64_t default_value) const;
  absl::StatusOr<float> GetFloat(const std::string& name,
                                 float default_value) const;
  absl::StatusOr<bool> GetBool(const std::string& name,
                               bool default_value) const;
  absl::StatusOr<std::string> GetString(const std::string& name,
                                        const std::string& default_value) const;
  absl::StatusOr<DType> GetType(const std::string& name,
                                DType default_value) const;
  absl::StatusOr<DType> RequireType(const std::string& name) const;
  absl::StatusOr<std::vector<int64_t>> GetIntList(
      const std::string& name, std::vector<int64_t> default_value) const;
  absl::StatusOr<std::vector<float>> GetFloatList(
      const std::string& name, std::vector<float> default_value) const;
  absl::StatusOr<std::vector<std::string>> GetStringList(
      const std::string& name, std::vector<std::string> default_value) const;
  absl::StatusOr<std::vector<DType>> GetTypeList(
      const std::string& name, std::vector<DType> default_value) const;
  // Unknown rank -> PartialShape::UnknownRank().
  absl::StatusOr<PartialShape> GetShape(const std::string& name) const;

  // "node 'x' (op Y): attr 'a'"-style error.
  absl::Status Error(const std::string& attr, const std::string& what) const;

 private:
  const tensorflow::AttrValue* Find(const std::string& name) const;
  const tensorflow::NodeDef& node_;
};

PartialShape PartialShapeFromProto(const tensorflow::TensorShapeProto& proto);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_ATTRS_H_
