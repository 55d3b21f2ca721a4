// Static hash tables with TensorFlow's semantics (see ops/lookup/hash_table.h
// and /work/shared/notes/tfjs.md section 4.2; where TF.js differs, TF wins):
//
//   HashTable, HashTableV2       -> scalar DT_RESOURCE handle to the table
//   LookupTableImport(V2)        (handle, keys, values)    any table kind
//   InitializeTable(V2)          (handle, keys, values)    vectors of equal length
//   LookupTableFind(V2)          (handle, keys, default) -> values (any kind)
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
#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/attrs.h"
#include "ops/lookup/lookup_ops.h"
#include "ops/lookup/hash_table.h"
#include "ops/lookup/lookup_op_util.h"

namespace graphrt {
namespace {

using lookup::ArityError;
using lookup::GetTable;
using lookup::TableAttrs;
using lookup::TypeAttrs;

// ---------------------------------------------------------------------------
// HashTable, HashTableV2

class HashTableOp : public Kernel {
 public:
  explicit HashTableOp(TableAttrs attrs) : attrs_(std::move(attrs)) {}

  absl::Status Run(KernelContext& ctx) const override {
    const DType key_dtype = attrs_.key_dtype;
    const DType value_dtype = attrs_.value_dtype;
    return lookup::CreateOrLookupTable(
        ctx, attrs_,
        [key_dtype,
         value_dtype]() -> absl::StatusOr<std::shared_ptr<LookupTable>> {
          auto table = HashTable::Create(key_dtype, value_dtype);
          if (!table.ok()) return table.status();
          return std::shared_ptr<LookupTable>(std::move(*table));
        },
        [](const LookupTable& t) {
          return dynamic_cast<const HashTable*>(&t) != nullptr;
        });
  }

 private:
  const TableAttrs attrs_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateHashTable(
    const KernelInit& init) {
  if (init.num_inputs != 0) return ArityError(init, 0);
  auto attrs = TableAttrs::Read(init);
  if (!attrs.ok()) return attrs.status();
  return std::make_unique<HashTableOp>(std::move(*attrs));
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
      if (dynamic_cast<HashTable*>(*table) == nullptr) {
        return absl::InvalidArgumentError(absl::StrCat(
            "InitializeTable needs an initializable table (HashTable), got ",
            (*table)->DebugString()));
      }
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
    return (*table)->Import(keys, values);
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
