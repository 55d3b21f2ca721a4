// Registration functions of the op files in ops/nn/.
#ifndef GRAPHRT_OPS_NN_NN_OPS_H_
#define GRAPHRT_OPS_NN_NN_OPS_H_

#include "ops/registry.h"

namespace graphrt {

}  // namespace graphrt

#endif  // GRAPHRT_OPS_NN_NN_OPS_H_
