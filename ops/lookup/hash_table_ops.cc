// Static hash tables with TensorFlow's semantics (see ops/lookup/hash_table.h
// and /work/shared/notes/tfjs.md section 4.2; where TF.js differs, TF wins):
//
//   HashTable, HashTableV2       -> scalar DT_RESOURCE handle to the table
//   LookupTableImport(V2)        (handle, keys, values)    keys/values same shape
//   InitializeTable(V2)          (handle, keys, values)    vectors of equal length
//   LookupTableFind(V2)          (handle, keys, default) -> values, keys' shape
//   LookupTableSize(V2)          (handle)                -> int64 scalar
//
// The v1 ops take a ref-typed handle in TF; here every handle is a DT_RESOURCE
// tensor (v1 HashTable outputs the same handle as HashTableV2).
//
// Table identity: HashTable(V2) looks its table up in the Model's
// ResourceManager under  container + "/" + shared_name  (or the node name if
// shared_name is empty and use_node_name_sharing is set, else a name unique
// to the kernel), creating it on first run.
#include <atomic>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "ops/attrs.h"
#include "ops/lookup/lookup_ops.h"
#include "ops/lookup/hash_table.h"

namespace graphrt {
namespace {

absl::Status ArityError(const KernelInit& init, int expected) {
  return absl::InvalidArgumentError(absl::StrCat(
      init.node.op(), " '", init.node.name(), "' needs ", expected,
      " input", expected == 1 ? "" : "s", ", has ", init.num_inputs));
}

// The table behind input `i` (a scalar DT_RESOURCE handle). The pointer
// stays valid while the input tensor (which holds a reference) lives.
absl::StatusOr<HashTable*> GetTable(const KernelContext& ctx, int i) {
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
  auto* table = dynamic_cast<HashTable*>(handle.resource.get());
  if (table == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("resource '", handle.name, "' is not a hash table (",
                     handle.resource->DebugString(), ")"));
  }
  return table;
}

// Optional key/value dtype attrs of a table op (Tin/Tout, Tkey/Tval); TF
// checks them against the table at run time (MatchSignature).
struct TypeAttrs {
  DType key = DType::kInvalid;  // kInvalid: attr absent, not checked
  DType value = DType::kInvalid;

  static absl::StatusOr<TypeAttrs> Read(const tensorflow::NodeDef& node,
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

  absl::Status Check(const HashTable& table) const {
    if ((key != DType::kInvalid && key != table.key_dtype()) ||
        (value != DType::kInvalid && value != table.value_dtype())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "op is typed ",
          key == DType::kInvalid ? "?" : DTypeName(key), "->",
          value == DType::kInvalid ? "?" : DTypeName(value),
          " but the table is ", DTypeName(table.key_dtype()), "->",
          DTypeName(table.value_dtype())));
    }
    return absl::OkStatus();
  }
};

// ---------------------------------------------------------------------------
// HashTable, HashTableV2

class HashTableOp : public Kernel {
 public:
  HashTableOp(std::string name, DType key_dtype, DType value_dtype)
      : name_(std::move(name)), key_dtype_(key_dtype),
        value_dtype_(value_dtype) {}

  absl::Status Run(KernelContext& ctx) const override {
    ResourceManager* resources = ctx.resources();
    if (resources == nullptr) {
      return absl::FailedPreconditionError(
          "no resource manager to hold the table");
    }
    const DType key_dtype = key_dtype_;
    const DType value_dtype = value_dtype_;
    absl::StatusOr<std::shared_ptr<Resource>> resource =
        resources->LookupOrCreate(
            name_, [key_dtype, value_dtype]()
                       -> absl::StatusOr<std::shared_ptr<Resource>> {
              auto table = HashTable::Create(key_dtype, value_dtype);
              if (!table.ok()) return table.status();
              return std::shared_ptr<Resource>(std::move(*table));
            });
    if (!resource.ok()) return resource.status();
    auto* table = dynamic_cast<HashTable*>(resource->get());
    if (table == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("resource '", name_, "' exists and is not a hash table (",
                       (*resource)->DebugString(), ")"));
    }
    if (table->key_dtype() != key_dtype_ ||
        table->value_dtype() != value_dtype_) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Conflicting key/value dtypes ", DTypeName(key_dtype_), "->",
          DTypeName(value_dtype_), " with ", DTypeName(table->key_dtype()),
          "-", DTypeName(table->value_dtype()), " for table ", name_));
    }
    absl::StatusOr<Tensor*> out =
        ctx.allocate_output(0, DType::kResource, Shape());
    if (!out.ok()) return out.status();
    ResourceHandle& handle = *(*out)->mutable_data<ResourceHandle>();
    handle.resource = std::move(*resource);
    handle.name = name_;
    return absl::OkStatus();
  }

 private:
  const std::string name_;  // full ResourceManager name
  const DType key_dtype_;
  const DType value_dtype_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateHashTable(
    const KernelInit& init) {
  if (init.num_inputs != 0) return ArityError(init, 0);
  AttrReader attrs(init.node);
  auto key_dtype = attrs.RequireType("key_dtype");
  if (!key_dtype.ok()) return key_dtype.status();
  auto value_dtype = attrs.RequireType("value_dtype");
  if (!value_dtype.ok()) return value_dtype.status();
  if (!HashTable::IsSupportedKeyDType(*key_dtype)) {
    return attrs.Error("key_dtype",
                       absl::StrCat("unsupported key dtype ",
                                    DTypeName(*key_dtype),
                                    " (supported: string, int32, int64)"));
  }
  if (!HashTable::IsSupportedValueDType(*value_dtype)) {
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
  return std::make_unique<HashTableOp>(absl::StrCat(*container, "/", name),
                                       *key_dtype, *value_dtype);
}

// ---------------------------------------------------------------------------
// LookupTableImport(V2), InitializeTable(V2)

class TableInitOp : public Kernel {
 public:
  TableInitOp(TypeAttrs types, bool vectors_only)
      : types_(types), vectors_only_(vectors_only) {}

  absl::Status Run(KernelContext& ctx) const override {
    auto table = GetTable(ctx, 0);
    if (!table.ok()) return table.status();
    const Tensor& keys = ctx.input(1);
    const Tensor& values = ctx.input(2);
    absl::Status s = types_.Check(**table);
    if (!s.ok()) return s;
    s = (*table)->CheckKeyAndValueTypes(keys.dtype(), values.dtype());
    if (!s.ok()) return s;
    if (vectors_only_) {  // InitializeTable(V2)
      if (keys.rank() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Keys must be a vector, but received shape ",
                         keys.shape().ToString()));
      }
      if (values.rank() != 1) {
        return absl::InvalidArgumentError(
            absl::StrCat("Values must be a vector, but received shape ",
                         values.shape().ToString()));
      }
      if (keys.num_elements() != values.num_elements()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Keys and values must have the same size ", keys.num_elements(),
            " vs ", values.num_elements()));
      }
    }
    return (*table)->Initialize(keys, values);
  }

 private:
  const TypeAttrs types_;
  const bool vectors_only_;
};

template <bool kVectorsOnly>
absl::StatusOr<std::unique_ptr<Kernel>> CreateTableInit(
    const KernelInit& init) {
  if (init.num_inputs != 3) return ArityError(init, 3);
  auto types = kVectorsOnly ? TypeAttrs::Read(init.node, "Tkey", "Tval")
                            : TypeAttrs::Read(init.node, "Tin", "Tout");
  if (!types.ok()) return types.status();
  return std::make_unique<TableInitOp>(*types, kVectorsOnly);
}

// ---------------------------------------------------------------------------
// LookupTableFind(V2)

class TableFindOp : public Kernel {
 public:
  explicit TableFindOp(TypeAttrs types) : types_(types) {}

  absl::Status Run(KernelContext& ctx) const override {
    auto table = GetTable(ctx, 0);
    if (!table.ok()) return table.status();
    absl::Status s = types_.Check(**table);
    if (!s.ok()) return s;
    Tensor out;
    s = (*table)->Find(ctx.input(1), ctx.input(2), &out);
    if (!s.ok()) return s;
    ctx.set_output(0, std::move(out));
    return absl::OkStatus();
  }

 private:
  const TypeAttrs types_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateTableFind(
    const KernelInit& init) {
  if (init.num_inputs != 3) return ArityError(init, 3);
  auto types = TypeAttrs::Read(init.node, "Tin", "Tout");
  if (!types.ok()) return types.status();
  return std::make_unique<TableFindOp>(*types);
}

// ---------------------------------------------------------------------------
// LookupTableSize(V2)

absl::Status RunTableSize(KernelContext& ctx) {
  auto table = GetTable(ctx, 0);
  if (!table.ok()) return table.status();
  absl::StatusOr<Tensor*> out = ctx.allocate_output(0, DType::kInt64, Shape());
  if (!out.ok()) return out.status();
  *(*out)->mutable_data<int64_t>() = (*table)->size();
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Kernel>> CreateTableSize(
    const KernelInit& init) {
  if (init.num_inputs != 1) return ArityError(init, 1);
  return MakeFunctionKernel(RunTableSize);
}

}  // namespace

void RegisterHashTableOps(OpRegistry& r) {
  r.Register("HashTable", CreateHashTable);
  r.Register("HashTableV2", CreateHashTable);
  r.Register("LookupTableImport", CreateTableInit<false>);
  r.Register("LookupTableImportV2", CreateTableInit<false>);
  r.Register("InitializeTable", CreateTableInit<true>);
  r.Register("InitializeTableV2", CreateTableInit<true>);
  r.Register("LookupTableFind", CreateTableFind);
  r.Register("LookupTableFindV2", CreateTableFind);
  r.Register("LookupTableSize", CreateTableSize);
  r.Register("LookupTableSizeV2", CreateTableSize);
}

}  // namespace graphrt
