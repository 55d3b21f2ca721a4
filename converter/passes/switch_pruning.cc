// PruneDeadSwitches (passes.h): v1 Switches of a constant predicate lose
// the branch they never take.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "converter/graph.h"
#include "converter/passes/pass_util.h"
#include "converter/passes/passes.h"

namespace graphrt {
namespace passes {
namespace {

using tensorflow::GraphDef;
using tensorflow::NodeDef;

// A reader of some node's output: node index and the output it reads
// (-1: a control edge).
struct Reader {
  int node;
  int port;
};

std::vector<std::vector<Reader>> ReadersOf(
    const GraphDef& g, const absl::flat_hash_map<std::string, int>& index) {
  std::vector<std::vector<Reader>> readers(g.node_size());
  for (int i = 0; i < g.node_size(); ++i) {
    for (const std::string& in : g.node(i).input()) {
      auto p = index.find(NameView(in));
      if (p == index.end()) continue;
      readers[p->second].push_back({i, IsControl(in) ? -1 : OutputIndexOf(in)});
    }
  }
  return readers;
}

// The value of a predicate input: a scalar bool Const without control
// inputs, possibly behind Identities (tf.cond's pred_id), which
// RemoveIdentities leaves in graphs with v1 control flow.
std::optional<bool> ConstantPredicate(
    const GraphDef& g, const absl::flat_hash_map<std::string, int>& index,
    const WeightMap& weights, std::string input) {
  for (int hops = 0; hops <= g.node_size(); ++hops) {
    if (IsControl(input) || OutputIndexOf(input) != 0) return std::nullopt;
    auto it = index.find(NameView(input));
    if (it == index.end()) return std::nullopt;
    const NodeDef& n = g.node(it->second);
    if (n.op() == "Identity" && n.input_size() == 1) {
      input = n.input(0);
      continue;
    }
    if (n.op() != "Const" || HasControlInputs(n)) return std::nullopt;
    absl::StatusOr<Tensor> value = ConstValue(n, weights);
    if (!value.ok() || value->dtype() != DType::kBool || value->rank() != 0) {
      return std::nullopt;
    }
    return value->data<bool>()[0];
  }
  return std::nullopt;
}

bool IsLoopOp(const std::string& op) {
  return op == "Enter" || op == "RefEnter" || op == "Exit" || op == "RefExit" ||
         op == "NextIteration" || op == "RefNextIteration" ||
         op == "LoopCond" || op == "RefSwitch" || op == "RefMerge";
}

// What pruning Switch `s`, whose output `dead_port` is never produced,
// removes: the nodes TensorFlow's executor would mark dead (a node with a
// dead data or control input; a Merge only when every data input is dead;
// a control edge from the live Switch itself is live). nullopt when the
// dead set reaches something that must stay: a kept node, loop machinery,
// or a Merge whose value_index is read (pruning renumbers its inputs).
std::optional<std::vector<bool>> DeadSet(
    const GraphDef& g, const std::vector<std::vector<Reader>>& readers, int s,
    int dead_port, const KeepSet& keep,
    const absl::flat_hash_map<std::string, int>& index) {
  std::vector<bool> dead(g.node_size(), false);
  std::vector<int> work;
  for (const Reader& r : readers[s]) {
    if (r.port == dead_port) work.push_back(r.node);
  }
  auto input_dead = [&](const std::string& in) {
    auto p = index.find(NameView(in));
    if (p == index.end()) return false;
    if (p->second == s) return !IsControl(in) && OutputIndexOf(in) == dead_port;
    return static_cast<bool>(dead[p->second]);
  };
  while (!work.empty()) {
    const int i = work.back();
    work.pop_back();
    if (dead[i]) continue;
    const NodeDef& n = g.node(i);
    bool is_dead;
    if (n.op() == "Merge") {
      is_dead = true;
      for (const std::string& in : n.input()) {
        if (!IsControl(in) && !input_dead(in)) is_dead = false;
      }
    } else {
      is_dead = false;
      for (const std::string& in : n.input()) is_dead |= input_dead(in);
    }
    if (!is_dead) continue;
    if (keep.contains(n.name()) || IsLoopOp(n.op())) return std::nullopt;
    dead[i] = true;
    for (const Reader& r : readers[i]) work.push_back(r.node);
  }
  // Live Merges that lose an input must not have their index read.
  for (int i = 0; i < g.node_size(); ++i) {
    if (dead[i] || g.node(i).op() != "Merge") continue;
    bool loses = false;
    for (const std::string& in : g.node(i).input()) {
      loses |= !IsControl(in) && input_dead(in);
    }
    if (!loses) continue;
    for (const Reader& r : readers[i]) {
      if (r.port == 1) return std::nullopt;
    }
  }
  return dead;
}

}  // namespace

int PruneDeadSwitches(GraphDef* graph, const WeightMap& weights,
                      const KeepSet& keep) {
  int pruned = 0;
  // One Switch at a time, each on the graph the previous one left (a
  // tf.cond has one Switch per input it reads, all on one predicate).
  absl::flat_hash_set<std::string> tried;
  for (bool changed = true; changed;) {
    changed = false;
    const auto index = IndexByName(*graph);
    std::optional<std::vector<std::vector<Reader>>> readers;
    for (int s = 0; s < graph->node_size() && !changed; ++s) {
      const NodeDef& sw = graph->node(s);
      if (sw.op() != "Switch" || NumDataInputs(sw) != 2 ||
          IsControl(sw.input(1)) || keep.contains(sw.name()) ||
          tried.contains(sw.name())) {
        continue;
      }
      tried.insert(sw.name());
      const std::optional<bool> pred =
          ConstantPredicate(*graph, index, weights, sw.input(1));
      if (!pred.has_value()) continue;
      if (!readers.has_value()) readers = ReadersOf(*graph, index);
      const int taken = *pred ? 1 : 0;
      std::optional<std::vector<bool>> dead =
          DeadSet(*graph, *readers, s, 1 - taken, keep, index);
      if (!dead.has_value()) continue;

      // Nodes whose every reader goes and that only fed the pruned parts
      // (the predicate's Identities and Const) would become new sinks, the
      // default outputs of signature-less graphs: they go too.
      // Whether reader r of node `o` still reads it once the Switch is an
      // Identity of its data input.
      const std::string pred_input = sw.input(1);
      const std::string data_input(NameView(sw.input(0)));
      auto still_reads = [&](const Reader& r, int o) {
        if (r.node == s) return graph->node(o).name() == data_input;
        return !(*dead)[r.node];
      };
      std::vector<int> orphans;
      {
        std::string in = pred_input;
        while (true) {
          auto it = index.find(NameView(in));
          if (it == index.end()) break;
          orphans.push_back(it->second);
          const NodeDef& n = graph->node(it->second);
          if (n.op() != "Identity") break;
          in = n.input(0);
        }
      }
      for (int o : orphans) {
        if (keep.contains(graph->node(o).name())) break;
        bool read = false;
        for (const Reader& r : (*readers)[o]) read |= still_reads(r, o);
        if (read) break;
        (*dead)[o] = true;
      }
      // Branch-local Consts (their only input a control edge from a dead
      // pivot) are dead already; Consts read only by dead nodes and by
      // nothing else would be new sinks.
      for (int i = 0; i < graph->node_size(); ++i) {
        const NodeDef& n = graph->node(i);
        if ((*dead)[i] || n.op() != "Const" || keep.contains(n.name()) ||
            (*readers)[i].empty()) {
          continue;
        }
        bool live_reader = false;
        for (const Reader& r : (*readers)[i]) live_reader |= still_reads(r, i);
        if (!live_reader) (*dead)[i] = true;
      }

      // Live Merges drop their dead inputs (before the Switch's readers
      // are rewired below, which makes its outputs alike); one left: an
      // Identity of it.
      for (int i = 0; i < graph->node_size(); ++i) {
        NodeDef* m = graph->mutable_node(i);
        if ((*dead)[i] || m->op() != "Merge") continue;
        std::vector<std::string> inputs;
        int data = 0;
        bool lost = false;
        for (const std::string& in : m->input()) {
          auto p = index.find(NameView(in));
          // Dead: a dead node's output, or the Switch's untaken one
          // (a branch that passes its input through unchanged).
          const bool gone =
              p != index.end() &&
              ((*dead)[p->second] || (p->second == s && !IsControl(in) &&
                                      OutputIndexOf(in) == 1 - taken));
          if (gone && !IsControl(in)) lost = true;
          if (gone) continue;
          if (!IsControl(in)) ++data;
          inputs.push_back(in);
        }
        if (!lost) continue;
        m->clear_input();
        for (std::string& in : inputs) m->add_input(std::move(in));
        if (data == 1) {
          m->set_op("Identity");
          m->mutable_attr()->erase("N");
        } else {
          (*m->mutable_attr())["N"].set_i(data);
        }
      }
      // The Switch forwards its data input; readers of its taken output
      // read output 0.
      const std::string sw_name = sw.name();
      for (const Reader& r : (*readers)[s]) {
        if ((*dead)[r.node] || r.port != 1) continue;
        NodeDef* reader = graph->mutable_node(r.node);
        for (std::string& in : *reader->mutable_input()) {
          if (!IsControl(in) && NameView(in) == sw_name &&
              OutputIndexOf(in) == 1) {
            in = sw_name;
          }
        }
      }
      NodeDef* sw_mut = graph->mutable_node(s);
      NodeDef identity;
      identity.set_name(sw_name);
      identity.set_op("Identity");
      identity.set_device(sw_mut->device());
      identity.add_input(sw_mut->input(0));
      for (const std::string& in : sw_mut->input()) {
        if (IsControl(in)) identity.add_input(in);
      }
      if (auto t = sw_mut->attr().find("T"); t != sw_mut->attr().end()) {
        (*identity.mutable_attr())["T"] = t->second;
      }
      *sw_mut = std::move(identity);

      DropDead(graph, *dead);
      ++pruned;
      changed = true;
    }
  }
  return pruned;
}

}  // namespace passes
}  // namespace graphrt
