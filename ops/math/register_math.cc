#include "ops/builtin_ops.h"
#include "ops/math/math_ops.h"

namespace graphrt {

void RegisterMathOps(OpRegistry& r) {
  RegisterBinaryOps(r);
  RegisterActivations(r);
  RegisterSoftmax(r);
  RegisterMatMul(r);
  RegisterBiasAdd(r);
  RegisterAbsPrelu(r);
  RegisterArgMax(r);
  RegisterArithmetic(r);
  RegisterUnaryOps(r);
  RegisterComplexOps(r);
  RegisterComparisonOps(r);
  RegisterSelect(r);
  RegisterReductions(r);
  RegisterCumulative(r);
  RegisterBincount(r);
  RegisterBucketizeOps(r);
  RegisterFft(r);
}

}  // namespace graphrt
