// The op registry: op name -> KernelFactory. Explicit, like TFLite's
// BuiltinOpResolver: ops/register.cc lists every built-in op; nothing
// registers itself through static initialisers, so linking never drops an
// op silently. Hosts may add custom ops to their own registry copy.
#ifndef GRAPHRT_OPS_REGISTRY_H_
#define GRAPHRT_OPS_REGISTRY_H_

#include <string>
#include "absl/strings/string_view.h"
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ops/kernel.h"

namespace graphrt {

class OpRegistry {
 public:
  // Adds (or replaces) the factory for `op`.
  void Register(absl::string_view op, KernelFactory factory);
  // nullptr when the op is unknown.
  KernelFactory Find(absl::string_view op) const;
  std::vector<std::string> OpNames() const;  // sorted

 private:
  absl::flat_hash_map<std::string, KernelFactory> factories_;
};

// The registry with every built-in op (built once, then read-only).
// Defined in ops/register.cc (target //ops:builtin).
const OpRegistry& BuiltinOps();

// Defined in ops/register.cc: adds every built-in op to `registry`.
void RegisterBuiltinOps(OpRegistry& registry);

}  // namespace graphrt

#endif  // GRAPHRT_OPS_REGISTRY_H_
