#include "ops/registry.h"

#include <algorithm>

namespace graphrt {

void OpRegistry::Register(absl::string_view op, KernelFactory factory) {
  factories_[std::string(op)] = factory;
}

KernelFactory OpRegistry::Find(absl::string_view op) const {
  auto it = factories_.find(op);
  return it == factories_.end() ? nullptr : it->second;
}

std::vector<std::string> OpRegistry::OpNames() const {
  std::vector<std::string> names;
  names.reserve(factories_.size());
  for (const auto& [name, f] : factories_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace graphrt
