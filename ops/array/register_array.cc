#include "ops/builtin_ops.h"
#include "ops/array/array_ops.h"

namespace graphrt {

void RegisterArrayOps(OpRegistry& r) {
  RegisterShape(r);
  RegisterReshape(r);
  RegisterCast(r);
  RegisterGather(r);
  RegisterConcat(r);
  RegisterTranspose(r);
  RegisterSlice(r);
  RegisterPack(r);
  RegisterSplit(r);
  RegisterReverse(r);
  RegisterTile(r);
  RegisterShapeOps(r);
  RegisterFill(r);
  RegisterRandom(r);
  RegisterPad(r);
  RegisterGatherNd(r);
  RegisterScatterNd(r);
  RegisterSpaceOps(r);
  RegisterFakeQuant(r);
}

}  // namespace graphrt
