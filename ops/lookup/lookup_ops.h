// Registration functions of the op files in ops/lookup/.
#ifndef GRAPHRT_OPS_LOOKUP_LOOKUP_OPS_H_
#define GRAPHRT_OPS_LOOKUP_LOOKUP_OPS_H_

#include "ops/registry.h"

namespace graphrt {

void RegisterHashTableOps(OpRegistry& r);  // HashTable(V2), LookupTableImport(V2),
                                           // InitializeTable(V2), LookupTableFind(V2),
                                           // LookupTableSize(V2)
void RegisterMutableTableOps(OpRegistry& r);  // MutableHashTable(V2),
    // MutableHashTableOfTensors(V2), MutableDenseHashTable(V2),
    // LookupTableInsert(V2), LookupTableRemoveV2, LookupTableExport(V2)
void RegisterTextFileInitOps(OpRegistry& r);  // InitializeTableFromTextFile(V2)

}  // namespace graphrt

#endif  // GRAPHRT_OPS_LOOKUP_LOOKUP_OPS_H_
