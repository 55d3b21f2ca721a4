// Registration functions of the built-in ops, one per op file (or per
// family of ops sharing one kernel). ops/register.cc calls them all.
#ifndef GRAPHRT_OPS_BUILTIN_OPS_H_
#define GRAPHRT_OPS_BUILTIN_OPS_H_

#include "ops/registry.h"

namespace graphrt {

// ops/core/
void RegisterConst(OpRegistry& r);         // Const
void RegisterPlaceholder(OpRegistry& r);   // Placeholder, PlaceholderWithDefault
void RegisterIdentity(OpRegistry& r);      // Identity, IdentityN, StopGradient, NoOp

// ops/array/
void RegisterShape(OpRegistry& r);         // Shape
void RegisterReshape(OpRegistry& r);       // Reshape
void RegisterCast(OpRegistry& r);          // Cast
void RegisterGather(OpRegistry& r);        // Gather, GatherV2
void RegisterConcat(OpRegistry& r);        // Concat, ConcatV2

// ops/math/
void RegisterBinaryOps(OpRegistry& r);     // Add, AddV2, Sub, Mul, RealDiv
void RegisterActivations(OpRegistry& r);   // Relu, Relu6, Elu, LeakyRelu, Sigmoid, Tanh
void RegisterSoftmax(OpRegistry& r);       // Softmax
void RegisterMatMul(OpRegistry& r);        // MatMul, _FusedMatMul
void RegisterBiasAdd(OpRegistry& r);       // BiasAdd, BiasAddV1
void RegisterMean(OpRegistry& r);          // Mean
void RegisterArgMax(OpRegistry& r);        // ArgMax, ArgMin

// ops/lookup/
void RegisterHashTableOps(OpRegistry& r);  // HashTable(V2), LookupTableImport(V2),
                                           // InitializeTable(V2), LookupTableFind(V2),
                                           // LookupTableSize(V2)

}  // namespace graphrt

#endif  // GRAPHRT_OPS_BUILTIN_OPS_H_
