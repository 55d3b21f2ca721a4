// Registration functions of the op files in ops/math/.
#ifndef GRAPHRT_OPS_MATH_MATH_OPS_H_
#define GRAPHRT_OPS_MATH_MATH_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterBinaryOps(OpRegistry& r);  // Add, AddV2, Sub, Mul, RealDiv
// activations.cc: Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh
void RegisterActivations(OpRegistry& r);
void RegisterSoftmax(OpRegistry& r);   // Softmax, LogSoftmax
void RegisterMatMul(OpRegistry& r);    // MatMul, _FusedMatMul
void RegisterAbsPrelu(OpRegistry& r);  // _AbsPrelu (graph-pass output)
void RegisterBiasAdd(OpRegistry& r);   // BiasAdd, BiasAddV1
void RegisterArgMax(OpRegistry& r);    // ArgMax, ArgMin
// arithmetic.cc: Div, DivNoNan, FloorDiv, FloorMod, Mod, TruncateMod,
// Maximum, Minimum, Pow, SquaredDifference, Atan2, Prelu, AddN
void RegisterArithmetic(OpRegistry& r);
// unary_ops.cc: Abs, Acos, Acosh, Asin, Asinh, Atan, Atanh, Ceil, Cos,
// Cosh, Erf, Exp, Expm1, Floor, IsFinite, IsInf, IsNan, Log, Log1p, Neg,
// Reciprocal, Inv, Round, Rint, Rsqrt, Selu, Sign, Sin, Sinh, Softplus,
// Sqrt, Square, Tan
void RegisterUnaryOps(OpRegistry& r);
// complex_ops.cc: Complex, Real, Imag, ComplexAbs, Angle, Conj
void RegisterComplexOps(OpRegistry& r);
// comparison_ops.cc: Equal, NotEqual, Greater, GreaterEqual, Less,
// LessEqual, LogicalAnd, LogicalOr, LogicalNot, BitwiseAnd, BitwiseOr,
// BitwiseXor
void RegisterComparisonOps(OpRegistry& r);
void RegisterSelect(OpRegistry& r);  // Select, SelectV2, ClipByValue
// reductions.cc: Sum, Prod, Max, Min, All, Any, Mean, EuclideanNorm
void RegisterReductions(OpRegistry& r);
void RegisterCumulative(OpRegistry& r);  // Cumsum, Cumprod
void RegisterBincount(OpRegistry& r);    // Bincount, DenseBincount
// bucketize_ops.cc: Bucketize, BucketizeWithInputBoundaries,
// BoostedTreesBucketize
void RegisterBucketizeOps(OpRegistry& r);
void RegisterFft(OpRegistry& r);  // FFT, IFFT, RFFT, IRFFT

}  // namespace graphrt

#endif  // GRAPHRT_OPS_MATH_MATH_OPS_H_
