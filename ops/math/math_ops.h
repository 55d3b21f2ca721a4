// Registration functions of the op files in ops/math/.
#ifndef GRAPHRT_OPS_MATH_MATH_OPS_H_
#define GRAPHRT_OPS_MATH_MATH_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterBinaryOps(OpRegistry& r);    // Add, AddV2, Sub, Mul, RealDiv
void RegisterActivations(OpRegistry& r);  // Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh
void RegisterSoftmax(OpRegistry& r);      // Softmax
void RegisterMatMul(OpRegistry& r);       // MatMul, _FusedMatMul
void RegisterBiasAdd(OpRegistry& r);      // BiasAdd, BiasAddV1
void RegisterMean(OpRegistry& r);         // Mean
void RegisterArgMax(OpRegistry& r);       // ArgMax, ArgMin

}  // namespace graphrt

#endif  // GRAPHRT_OPS_MATH_MATH_OPS_H_
