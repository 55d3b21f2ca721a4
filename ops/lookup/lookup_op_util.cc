#include "ops/lookup/lookup_op_util.h"

#include <atomic>

#include "absl/strings/str_cat.h"
#include "ops/attrs.h"

namespace graphrt {
namespace lookup {

absl::Status ArityError(const KernelInit& init, int expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      init.node.op(), " '", init.node.name(), "' needs ", expected, " input",
      expected == 1 ? "" : "s", ", has ", init.num_inputs));
}

absl::StatusOr<LookupTable*> GetTable(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kResource || t.num_elements() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "input ", i, " must be a scalar table handle (resource), got ",
        t.DebugString()));
  }
  const ResourceHandle& handle = *t.data<ResourceHandle>();
  if (handle.resource == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        "table handle '", handle.name, "' does not refer to a table"));
  }
  auto* table = dynamic_cast<LookupTable*>(handle.resource.get());
  if (table == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("resource '", handle.name, "' is not a lookup table (",
                     handle.resource->DebugString(), ")"));
  }
  return table;
}

absl::StatusOr<TypeAttrs> TypeAttrs::Read(const tensorflow::NodeDef& node,
                                          const std::string& key_attr,
                                          const std::string& value_attr) {
  AttrReader attrs(node);
  TypeAttrs t;
  auto k = attrs.GetType(key_attr, DType::kInvalid);
  if (!k.ok()) return k.status();
  auto v = attrs.GetType(value_attr, DType::kInvalid);
  if (!v.ok()) return v.status();
  t.key = *k;
  t.value = *v;
  return t;
}

absl::Status TypeAttrs::Check(const LookupTable& table) const {
  if ((key != DType::kInvalid && key != table.key_dtype()) ||
      (value != DType::kInvalid && value != table.value_dtype())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "op is typed ", key == DType::kInvalid ? "?" : DTypeName(key), "->",
        value == DType::kInvalid ? "?" : DTypeName(value),
        " but the table is ", DTypeName(table.key_dtype()), "->",
        DTypeName(table.value_dtype())));
  }
  return absl::OkStatus();
}

absl::StatusOr<TableAttrs> TableAttrs::Read(const KernelInit& init) {
  AttrReader attrs(init.node);
  TableAttrs t;
  auto key_dtype = attrs.RequireType("key_dtype");
  if (!key_dtype.ok()) return key_dtype.status();
  auto value_dtype = attrs.RequireType("value_dtype");
  if (!value_dtype.ok()) return value_dtype.status();
  if (!IsSupportedTableKeyDType(*key_dtype)) {
    return attrs.Error("key_dtype",
                       absl::StrCat("unsupported key dtype ",
                                    DTypeName(*key_dtype),
                                    " (supported: string, int32, int64)"));
  }
  if (!IsSupportedTableValueDType(*value_dtype)) {
    return attrs.Error(
        "value_dtype",
        absl::StrCat("unsupported value dtype ", DTypeName(*value_dtype),
                     " (supported: float32, float64, int32, int64, bool, "
                     "string)"));
  }
  auto container = attrs.GetString("container", "");
  if (!container.ok()) return container.status();
  auto shared_name = attrs.GetString("shared_name", "");
  if (!shared_name.ok()) return shared_name.status();
  auto use_node_name = attrs.GetBool("use_node_name_sharing", false);
  if (!use_node_name.ok()) return use_node_name.status();

  std::string name;
  if (!shared_name->empty()) {
    name = *shared_name;
  } else if (*use_node_name) {
    name = init.node.name();
  } else {
    // Private to this kernel (TF: "_<unique id>_<node name>").
    static std::atomic<int64_t> next_id{0};
    name = absl::StrCat("_", next_id.fetch_add(1, std::memory_order_relaxed),
                        "_", init.node.name());
  }
  t.name = absl::StrCat(*container, "/", name);
  t.key_dtype = *key_dtype;
  t.value_dtype = *value_dtype;
  return t;
}

absl::Status CreateOrLookupTable(
    KernelContext& ctx, const TableAttrs& attrs, const TableFactory& factory,
    const std::function<bool(const LookupTable&)>& is_kind) {
  ResourceManager* resources = ctx.resources();
  if (resources == nullptr) {
    return absl::FailedPreconditionError(
        "no resource manager to hold the table");
  }
  absl::StatusOr<std::shared_ptr<Resource>> resource =
      resources->LookupOrCreate(
          attrs.name, [&factory]() -> absl::StatusOr<std::shared_ptr<Resource>> {
            auto table = factory();
            if (!table.ok()) return table.status();
            return std::shared_ptr<Resource>(std::move(*table));
          });
  if (!resource.ok()) return resource.status();
  auto* table = dynamic_cast<LookupTable*>(resource->get());
  if (table == nullptr || !is_kind(*table)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "resource '", attrs.name, "' exists and is not a table of this kind (",
        (*resource)->DebugString(), ")"));
  }
  if (table->key_dtype() != attrs.key_dtype ||
      table->value_dtype() != attrs.value_dtype) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Conflicting key/value dtypes ", DTypeName(attrs.key_dtype), "->",
        DTypeName(attrs.value_dtype), " with ", DTypeName(table->key_dtype()),
        "-", DTypeName(table->value_dtype()), " for table ", attrs.name));
  }
  absl::StatusOr<Tensor*> out =
      ctx.allocate_output(0, DType::kResource, Shape());
  if (!out.ok()) return out.status();
  ResourceHandle& handle = *(*out)->mutable_data<ResourceHandle>();
  handle.resource = std::move(*resource);
  handle.name = attrs.name;
  return absl::OkStatus();
}

}  // namespace lookup
}  // namespace graphrt
