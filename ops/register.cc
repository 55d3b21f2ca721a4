// The list of built-in op areas; each area lists its own ops.
#include "ops/builtin_ops.h"

namespace graphrt {

void RegisterBuiltinOps(OpRegistry& r) {
  RegisterCoreOps(r);
  RegisterControlOps(r);
  RegisterArrayOps(r);
  RegisterMathOps(r);
  RegisterNnOps(r);
  RegisterDynamicOps(r);
  RegisterStringOps(r);
  RegisterLookupOps(r);
  RegisterParsingOps(r);
  RegisterSummaryOps(r);
  RegisterStateOps(r);
  RegisterTfdfOps(r);
}

const OpRegistry& BuiltinOps() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterBuiltinOps(*r);
    return r;
  }();
  return *registry;
}

}  // namespace graphrt
