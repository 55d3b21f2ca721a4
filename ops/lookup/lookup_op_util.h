// Helpers shared by the lookup op files: handle decoding, arity errors,
// table type attrs and the shared-name / resource-manager dance every
// table-creating op does.
#ifndef GRAPHRT_OPS_LOOKUP_LOOKUP_OP_UTIL_H_
#define GRAPHRT_OPS_LOOKUP_LOOKUP_OP_UTIL_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ops/kernel.h"
#include "ops/lookup/lookup_table.h"
#include "proto/graph.pb.h"

namespace graphrt {
namespace lookup {

// "<op> '<node>' needs N inputs, has M".
absl::Status ArityError(const KernelInit& init, int expected);

// The table behind input `i` (a scalar DT_RESOURCE handle). The pointer
// stays valid while the input tensor (which holds a reference) lives.
absl::StatusOr<LookupTable*> GetTable(const KernelContext& ctx, int i);

// Optional key/value dtype attrs of a table op (Tin/Tout, Tkey/Tval); TF
// checks them against the table at run time (MatchSignature).
struct TypeAttrs {
  DType key = DType::kInvalid;  // kInvalid: attr absent, not checked
  DType value = DType::kInvalid;

  static absl::StatusOr<TypeAttrs> Read(const tensorflow::NodeDef& node,
                                        const std::string& key_attr,
                                        const std::string& value_attr);
  absl::Status Check(const LookupTable& table) const;
};

// Common attrs of table-creating ops: container, shared_name,
// use_node_name_sharing, key_dtype, value_dtype (checked against
// IsSupportedTable{Key,Value}DType).
struct TableAttrs {
  std::string name;  // full ResourceManager name: container + "/" + name
  DType key_dtype = DType::kInvalid;
  DType value_dtype = DType::kInvalid;

  static absl::StatusOr<TableAttrs> Read(const KernelInit& init);
};

using TableFactory =
    std::function<absl::StatusOr<std::shared_ptr<LookupTable>>()>;

// Looks the table up under attrs.name or creates it with `factory`, checks
// it has the attrs' dtypes (`Conflicting key/value dtypes ...`) and is a
// `kind` (via `is_kind`), and writes its handle to output 0.
absl::Status CreateOrLookupTable(
    KernelContext& ctx, const TableAttrs& attrs, const TableFactory& factory,
    const std::function<bool(const LookupTable&)>& is_kind);

}  // namespace lookup
}  // namespace graphrt

#endif  // GRAPHRT_OPS_LOOKUP_LOOKUP_OP_UTIL_H_
