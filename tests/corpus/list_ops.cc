// Prints every op name in graphrt's built-in registry, sorted, one a line.
// Used by tools/corpus/op_coverage.sh.
#include <iostream>

#include "ops/registry.h"

int main() {
  for (const auto& name : graphrt::BuiltinOps().OpNames()) {
    std::cout << name << "\n";
  }
  return 0;
}
