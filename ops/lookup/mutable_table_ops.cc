// Mutable lookup tables and the ops that change tables, with TensorFlow's
// semantics (see mutable_hash_table.h, mutable_dense_hash_table.h and
// /work/shared/notes/tfjs.md section 4.2):
//
//   MutableHashTable(V2)                 -> handle; scalar values
//   MutableHashTableOfTensors(V2)        -> handle; attr value_shape
//   MutableDenseHashTable(V2) (empty_key, deleted_key) -> handle; attrs
//       value_shape, initial_num_buckets (131072), max_load_factor (0.8)
//   LookupTableInsert(V2)  (handle, keys, values)      upsert
//   LookupTableRemoveV2    (handle, keys)              erase
//   LookupTableExport(V2)  (handle) -> (keys, values)  any table kind
//
// Table creation shares HashTable(V2)'s naming (container / shared_name /
// use_node_name_sharing, see lookup_op_util.h). The dense table is created
// on the node's first run, from that run's empty_key / deleted_key.
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "ops/attrs.h"
#include "ops/lookup/lookup_op_util.h"
#include "ops/lookup/lookup_ops.h"
#include "ops/lookup/mutable_dense_hash_table.h"
#include "ops/lookup/mutable_hash_table.h"

namespace graphrt {
namespace {

using lookup::ArityError;
using lookup::GetTable;
using lookup::TableAttrs;
using lookup::TypeAttrs;

absl::StatusOr<Shape> ReadValueShape(const KernelInit& init) {
  AttrReader attrs(init.node);
  if (!attrs.Has("value_shape")) return Shape();
  auto partial = attrs.GetShape("value_shape");
  if (!partial.ok()) return partial.status();
  if (partial->unknown_rank()) {
    return attrs.Error("value_shape", "must have a known rank");
  }
  for (int64_t d : partial->dims()) {
    if (d < 0) return attrs.Error("value_shape", "must be fully defined");
  }
  if (partial->dims().size() > 1) {
    return attrs.Error(
        "value_shape",
        absl::StrCat("Default value must be a vector, got shape ",
                     partial->ToString()));
  }
  return Shape(absl::MakeConstSpan(partial->dims()));
}

// ---------------------------------------------------------------------------
// MutableHashTable(V2), MutableHashTableOfTensors(V2)

class MutableHashTableOp : public Kernel {
 public:
  MutableHashTableOp(TableAttrs attrs, Shape value_shape)
      : attrs_(std::move(attrs)), value_shape_(std::move(value_shape)) {}

  absl::Status Run(KernelContext& ctx) const override {
    const DType k = attrs_.key_dtype;
    const DType v = attrs_.value_dtype;
    const Shape vs = value_shape_;
    return lookup::CreateOrLookupTable(
        ctx, attrs_,
        [k, v, vs]() -> absl::StatusOr<std::shared_ptr<LookupTable>> {
          auto table = MutableHashTable::Create(k, v, vs);
          if (!table.ok()) return table.status();
          return std::shared_ptr<LookupTable>(std::move(*table));
        },
        [&vs](const LookupTable& t) {
          return dynamic_cast<const MutableHashTable*>(&t) != nullptr &&
                 t.value_shape() == vs;
        });
  }

 private:
  const TableAttrs attrs_;
  const Shape value_shape_;
};

template <bool kOfTensors>
absl::StatusOr<std::unique_ptr<Kernel>> CreateMutableHashTable(
    const KernelInit& init) {
  if (init.num_inputs != 0) return ArityError(init, 0);
  auto attrs = TableAttrs::Read(init);
  if (!attrs.ok()) return attrs.status();
  Shape value_shape;
  if (kOfTensors) {
    auto vs = ReadValueShape(init);
    if (!vs.ok()) return vs.status();
    value_shape = *vs;
  }
  return std::make_unique<MutableHashTableOp>(std::move(*attrs), value_shape);
}

// ---------------------------------------------------------------------------
// MutableDenseHashTable(V2)

class DenseHashTableOp : public Kernel {
 public:
  DenseHashTableOp(TableAttrs attrs, Shape value_shape, int64_t buckets,
                   float max_load_factor)
      : attrs_(std::move(attrs)),
        value_shape_(std::move(value_shape)),
        buckets_(buckets),
        max_load_factor_(max_load_factor) {}

  absl::Status Run(KernelContext& ctx) const override {
    if (ctx.num_inputs() != 2) {
      return absl::InvalidArgumentError(
          "MutableDenseHashTable needs the empty_key and deleted_key inputs");
    }
    const Tensor& empty_key = ctx.input(0);
    const Tensor& deleted_key = ctx.input(1);
    return lookup::CreateOrLookupTable(
        ctx, attrs_,
        [&]() -> absl::StatusOr<std::shared_ptr<LookupTable>> {
          auto table = MutableDenseHashTable::Create(
              attrs_.key_dtype, attrs_.value_dtype, empty_key, deleted_key,
              value_shape_, buckets_, max_load_factor_);
          if (!table.ok()) return table.status();
          return std::shared_ptr<LookupTable>(std::move(*table));
        },
        [](const LookupTable& t) {
          return dynamic_cast<const MutableDenseHashTable*>(&t) != nullptr;
        });
  }

 private:
  const TableAttrs attrs_;
  const Shape value_shape_;
  const int64_t buckets_;
  const float max_load_factor_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateDenseHashTable(
    const KernelInit& init) {
  if (init.num_inputs != 2) return ArityError(init, 2);
  auto attrs = TableAttrs::Read(init);
  if (!attrs.ok()) return attrs.status();
  auto vs = ReadValueShape(init);
  if (!vs.ok()) return vs.status();
  AttrReader reader(init.node);
  auto buckets = reader.GetInt("initial_num_buckets", 131072);
  if (!buckets.ok()) return buckets.status();
  auto f = reader.GetFloat("max_load_factor", 0.8f);
  if (!f.ok()) return f.status();
  if (!(*f > 0 && *f < 1)) {
    return reader.Error("max_load_factor",
                        absl::StrCat("max_load_factor must be between 0 and 1, "
                                     "got: ", *f));
  }
  if (*buckets < 4 || (*buckets & (*buckets - 1)) != 0) {
    return reader.Error(
        "initial_num_buckets",
        absl::StrCat("Number of buckets must be at least 4 and a power of 2, "
                     "got: ", *buckets));
  }
  return std::make_unique<DenseHashTableOp>(std::move(*attrs), *vs, *buckets,
                                            *f);
}

// ---------------------------------------------------------------------------
// LookupTableInsert(V2), LookupTableRemoveV2

class TableInsertOp : public Kernel {
 public:
  explicit TableInsertOp(TypeAttrs types) : types_(types) {}
  absl::Status Run(KernelContext& ctx) const override {
    auto table = GetTable(ctx, 0);
    if (!table.ok()) return table.status();
    absl::Status s = types_.Check(**table);
    if (!s.ok()) return s;
    return (*table)->Insert(ctx.input(1), ctx.input(2));
  }

 private:
  const TypeAttrs types_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateTableInsert(
    const KernelInit& init) {
  if (init.num_inputs != 3) return ArityError(init, 3);
  auto types = TypeAttrs::Read(init.node, "Tin", "Tout");
  if (!types.ok()) return types.status();
  return std::make_unique<TableInsertOp>(*types);
}

class TableRemoveOp : public Kernel {
 public:
  explicit TableRemoveOp(TypeAttrs types) : types_(types) {}
  absl::Status Run(KernelContext& ctx) const override {
    auto table = GetTable(ctx, 0);
    if (!table.ok()) return table.status();
    absl::Status s = types_.Check(**table);
    if (!s.ok()) return s;
    return (*table)->Remove(ctx.input(1));
  }

 private:
  const TypeAttrs types_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateTableRemove(
    const KernelInit& init) {
  if (init.num_inputs != 2) return ArityError(init, 2);
  auto types = TypeAttrs::Read(init.node, "Tin", "Tout_unused");
  if (!types.ok()) return types.status();
  return std::make_unique<TableRemoveOp>(*types);
}

// ---------------------------------------------------------------------------
// LookupTableExport(V2)

class TableExportOp : public Kernel {
 public:
  explicit TableExportOp(TypeAttrs types) : types_(types) {}
  absl::Status Run(KernelContext& ctx) const override {
    auto table = GetTable(ctx, 0);
    if (!table.ok()) return table.status();
    absl::Status s = types_.Check(**table);
    if (!s.ok()) return s;
    auto exported = (*table)->Export();
    if (!exported.ok()) return exported.status();
    ctx.set_output(0, std::move(exported->first));
    ctx.set_output(1, std::move(exported->second));
    return absl::OkStatus();
  }

 private:
  const TypeAttrs types_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateTableExport(
    const KernelInit& init) {
  if (init.num_inputs != 1) return ArityError(init, 1);
  auto types = TypeAttrs::Read(init.node, "Tkeys", "Tvalues");
  if (!types.ok()) return types.status();
  return std::make_unique<TableExportOp>(*types);
}

}  // namespace

void RegisterMutableTableOps(OpRegistry& r) {
  r.Register("MutableHashTable", CreateMutableHashTable<false>);
  r.Register("MutableHashTableV2", CreateMutableHashTable<false>);
  r.Register("MutableHashTableOfTensors", CreateMutableHashTable<true>);
  r.Register("MutableHashTableOfTensorsV2", CreateMutableHashTable<true>);
  r.Register("MutableDenseHashTable", CreateDenseHashTable);
  r.Register("MutableDenseHashTableV2", CreateDenseHashTable);
  r.Register("LookupTableInsert", CreateTableInsert);
  r.Register("LookupTableInsertV2", CreateTableInsert);
  r.Register("LookupTableRemoveV2", CreateTableRemove);
  r.Register("LookupTableExport", CreateTableExport);
  r.Register("LookupTableExportV2", CreateTableExport);
}

}  // namespace graphrt
