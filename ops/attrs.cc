#include "ops/attrs.h"

#include "absl/strings/str_cat.h"

namespace graphrt {

using tensorflow::AttrValue;

const AttrValue* AttrReader::Find(const std::string& name) const {
  auto it = node_.attr().find(name);
  return it == node_.attr().end() ? nullptr : &it->second;
}

bool AttrReader::Has(const std::string& name) const {
  return Find(name) != nullptr;
}

absl::Status AttrReader::Error(const std::string& attr,
                               const std::string& what) const {
  return absl::InvalidArgumentError(absl::StrCat("node '", node_.name(),
                                                 "' (op ", node_.op(),
                                                 "): attr '", attr, "' ", what));
}

absl::StatusOr<int64_t> AttrReader::GetInt(const std::string& name,
                                           int64_t default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kI) return Error(name, "must be an int");
  return v->i();
}

absl::StatusOr<float> AttrReader::GetFloat(const std::string& name,
                                           float default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kF) return Error(name, "must be a float");
  return v->f();
}

absl::StatusOr<bool> AttrReader::GetBool(const std::string& name,
                                         bool default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kB) return Error(name, "must be a bool");
  return v->b();
}

absl::StatusOr<std::string> AttrReader::GetString(
    const std::string& name, const std::string& default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kS) return Error(name, "must be a string");
  return v->s();
}

absl::StatusOr<DType> AttrReader::GetType(const std::string& name,
                                          DType default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kType) return Error(name, "must be a type");
  auto d = DTypeFromProto(v->type());
  if (!d.ok()) return Error(name, std::string(d.status().message()));
  return *d;
}

absl::StatusOr<DType> AttrReader::RequireType(const std::string& name) const {
  if (!Has(name)) return Error(name, "is missing");
  return GetType(name, DType::kInvalid);
}

absl::StatusOr<std::vector<int64_t>> AttrReader::GetIntList(
    const std::string& name, std::vector<int64_t> default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kList) return Error(name, "must be a list");
  return std::vector<int64_t>(v->list().i().begin(), v->list().i().end());
}

absl::StatusOr<std::vector<float>> AttrReader::GetFloatList(
    const std::string& name, std::vector<float> default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kList) return Error(name, "must be a list");
  return std::vector<float>(v->list().f().begin(), v->list().f().end());
}

absl::StatusOr<std::vector<std::string>> AttrReader::GetStringList(
    const std::string& name, std::vector<std::string> default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kList) return Error(name, "must be a list");
  return std::vector<std::string>(v->list().s().begin(), v->list().s().end());
}

absl::StatusOr<std::vector<DType>> AttrReader::GetTypeList(
    const std::string& name, std::vector<DType> default_value) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return default_value;
  if (v->value_case() != AttrValue::kList) return Error(name, "must be a list");
  std::vector<DType> out;
  for (int t : v->list().type()) {
    auto d = DTypeFromProto(t);
    if (!d.ok()) return Error(name, std::string(d.status().message()));
    out.push_back(*d);
  }
  return out;
}

absl::StatusOr<PartialShape> AttrReader::GetShape(
    const std::string& name) const {
  const AttrValue* v = Find(name);
  if (v == nullptr) return PartialShape::UnknownRank();
  if (v->value_case() != AttrValue::kShape) return Error(name, "must be a shape");
  return PartialShapeFromProto(v->shape());
}

PartialShape PartialShapeFromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) return PartialShape::UnknownRank();
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size() < 0 ? -1 : d.size());
  return PartialShape(std::move(dims));
}

}  // namespace graphrt
