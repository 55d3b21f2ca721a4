#include "ops/builtin_ops.h"
#include "ops/math/math_ops.h"

namespace graphrt {

void RegisterMathOps(OpRegistry& r) {
  RegisterBinaryOps(r);
  RegisterActivations(r);
  RegisterSoftmax(r);
  RegisterMatMul(r);
  RegisterBiasAdd(r);
  RegisterMean(r);
  RegisterArgMax(r);
}

}  // namespace graphrt
