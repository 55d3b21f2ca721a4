#include <string>
#include <vector>

#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

int FuseResizeAdd(GraphDef* graph, const KeepSet& keep) {
  const auto uses = CountUses(*graph);
  const auto index = IndexByName(*graph);
  std::vector<bool> dead(graph->node_size(), false);
  int fused = 0;
  for (int ai = 0; ai < graph->node_size(); ++ai) {
    const NodeDef& a = graph->node(ai);
    if ((a.op() != "Add" && a.op() != "AddV2") || NumDataInputs(a) != 2 ||
        !TypeIsOrAbsent(a, "T", tensorflow::DT_FLOAT) ||
        a.input(0) == a.input(1)) {
      continue;
    }
    for (int pos = 0; pos < 2; ++pos) {
      const std::string& in = a.input(pos);
      if (IsControl(in) || OutputIndexOf(in) != 0) continue;
      auto it = index.find(NameView(in));
      if (it == index.end() || dead[it->second]) continue;
      const int ri = it->second;
      const NodeDef& r = graph->node(ri);
      if (r.op() != "ResizeBilinear" || NumDataInputs(r) != 2 ||
          OnlyReader(uses, r.name(), keep) != ai) {
        continue;
      }
      NodeDef node =
          FusedChainNode(*graph, a.name(), "_ResizeBilinearAdd", a.device(),
                         {r.input(0), r.input(1), a.input(1 - pos)}, {ri, ai});
      auto& attrs = *node.mutable_attr();
      for (const char* name : {"T", "align_corners", "half_pixel_centers"}) {
        auto found = r.attr().find(name);
        if (found != r.attr().end()) attrs[name] = found->second;
      }
      dead[ri] = true;
      *graph->mutable_node(ai) = std::move(node);
      ++fused;
      break;
    }
  }
  if (fused > 0) DropDead(graph, dead);
  return fused;
}

}  // namespace passes
}  // namespace graphrt
