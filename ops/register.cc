// The list of built-in ops. Add a line here when adding an op file.
#include "ops/builtin_ops.h"

namespace graphrt {

void RegisterBuiltinOps(OpRegistry& r) {
  RegisterConst(r);
  RegisterPlaceholder(r);
  RegisterIdentity(r);

  RegisterShape(r);
  RegisterReshape(r);
  RegisterCast(r);
  RegisterGather(r);
  RegisterConcat(r);

  RegisterBinaryOps(r);
  RegisterActivations(r);
  RegisterSoftmax(r);
  RegisterMatMul(r);
  RegisterBiasAdd(r);
  RegisterMean(r);
  RegisterArgMax(r);

  RegisterHashTableOps(r);
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
