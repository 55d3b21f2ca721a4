// Helpers shared by the graph passes (passes.cc, transpose_sinking.cc):
// reading GraphDef inputs, counting uses, reading constant operands and
// dropping nodes. Internal to converter/passes; not part of the passes API.
#ifndef GRAPHRT_CONVERTER_PASSES_PASS_UTIL_H_
#define GRAPHRT_CONVERTER_PASSES_PASS_UTIL_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/string_view.h"
#include "converter/graph.h"
#include "proto/graph.pb.h"

namespace graphrt {
namespace passes {

// "^x" is a control input.
bool IsControl(const std::string& input);

// Output index of a data input ("x" -> 0, "x:2" -> 2; -1 if malformed).
int OutputIndexOf(const std::string& input);

// The node name of an input ("^x" / "x:1" -> "x"), as a view into `input`.
absl::string_view NameView(absl::string_view input);

struct Uses {
  int data = 0;
  int control = 0;
  // Node indices, one per data use (inline: most tensors have one or two
  // readers, and every pass recounts the whole graph).
  absl::InlinedVector<int, 2> consumers;
};

// Uses of every node that something reads, by node name.
absl::flat_hash_map<std::string, Uses> CountUses(const tensorflow::GraphDef& g);

// Whether a node whose op is one of `consumers` reads (through any data
// input, or only input 0 with `first_input_only`) a node whose op is one of
// `producers`. A pass's anchor is such an edge; this one scan, which hashes
// only the producers' names, lets OptimizeInferenceGraph skip a pass that
// cannot match before it indexes and counts the whole graph (half of all
// pass time over the corpus went to passes that changed nothing).
bool HasEdge(const tensorflow::GraphDef& g,
             std::initializer_list<absl::string_view> producers,
             std::initializer_list<absl::string_view> consumers,
             bool first_input_only = false);

int NumDataInputs(const tensorflow::NodeDef& n);

// Switch / Merge / Enter / Exit / NextIteration / LoopCond anywhere.
bool HasV1ControlFlow(const tensorflow::GraphDef& g);

// attr `name` is absent or equals `dtype`.
bool TypeIsOrAbsent(const tensorflow::NodeDef& n, const char* name,
                    tensorflow::DataType dtype);

// data_format absent or "NHWC".
bool IsNhwc(const tensorflow::NodeDef& n);

// Dims of a float32 Const node's value (weights first, then its `value`
// attr); nullopt for anything else.
std::optional<std::vector<int64_t>> FloatConstDims(const tensorflow::NodeDef& n,
                                                   const WeightMap& weights);

// The values of an int32 / int64 Const node (weights first, then its
// `value` attr) and its dims; nullopt for anything else or above
// `max_elements` values.
struct IntConst {
  std::vector<int64_t> values;
  std::vector<int64_t> dims;
};
std::optional<IntConst> IntConstValue(const tensorflow::NodeDef& n,
                                      const WeightMap& weights,
                                      int64_t max_elements = 64);

// The value of a float32 Const node of rank 0 (weights first, then its
// `value` attr); nullopt for anything else.
std::optional<float> FloatScalarConstValue(const tensorflow::NodeDef& n,
                                           const WeightMap& weights);

// A _FusedConv2D (or, with `depthwise_too`, FusedDepthwiseConv2dNative)
// with fused_ops exactly [BiasAdd] and num_args 1, NHWC, float32.
bool IsBiasedConv(const tensorflow::NodeDef& n, bool depthwise_too);

// Index of every node by name. Owned strings, not views: the passes replace
// NodeDefs (and so free their names) while they still look names up.
absl::flat_hash_map<std::string, int> IndexByName(
    const tensorflow::GraphDef& g);

// The control inputs ("^x") of `n`.
absl::flat_hash_set<std::string> ControlInputsOf(const tensorflow::NodeDef& n);

// Appends the control inputs of `from` that are not in `seen` to `to` (and
// to `seen`): a fused node keeps every control edge of the nodes it
// replaces, once.
void CopyControlInputs(const tensorflow::NodeDef& from, tensorflow::NodeDef* to,
                       absl::flat_hash_set<std::string>* seen);

// Whether `n` has a control input ("^x").
bool HasControlInputs(const tensorflow::NodeDef& n);

// Element-wise ops of one input whose output does not depend on the
// layout: op(Transpose(x)) == Transpose(op(x)), and the rank is x's.
bool IsLayoutFreeUnary(const std::string& op);

// Drops the Consts (not in `keep`) that something read in `uses_before`
// and nothing reads now: left in, a rewrite's old inputs would be new
// sinks, i.e. new default outputs of a graph without a signature. Their
// weights go from `weights` when it is not null. Returns how many went.
int DropConstsNoLongerRead(
    tensorflow::GraphDef* g,
    const absl::flat_hash_map<std::string, Uses>& uses_before,
    const absl::flat_hash_set<std::string>& keep, WeightMap* weights);

// The one node reading `name` (a single data use, no control readers),
// or -1; -1 also when `name` is in `keep` (a fused chain must not swallow a
// node fetched by name).
int OnlyReader(const absl::flat_hash_map<std::string, Uses>& uses,
               const std::string& name,
               const absl::flat_hash_set<std::string>& keep);

// A fused chain's node: op `op` named `name` on `device`, reading
// `inputs`, with the control inputs of `g`'s nodes `chain` (each once).
tensorflow::NodeDef FusedChainNode(const tensorflow::GraphDef& g,
                                   const std::string& name,
                                   const std::string& op,
                                   const std::string& device,
                                   std::initializer_list<std::string> inputs,
                                   std::initializer_list<int> chain);

// An int32 Const node `name` of shape `dims` holding `values` (its value
// attr): the small index constants (perms, paddings, axes) passes add.
tensorflow::NodeDef Int32ConstNode(const std::string& name,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& values);

// The float32 weight of Const node `n` (weights only, not a `value`
// attr: filters and the passes' own constants always are), or null.
const Tensor* FloatWeight(const tensorflow::NodeDef& n,
                          const WeightMap& weights);

// A float32 Const of one value (rank 0, or rank 1 of one element).
std::optional<float> OneFloat(const tensorflow::NodeDef& n,
                              const WeightMap& weights);

// Output channels of a rank-4 convolution filter: HWIO's O, or a depthwise
// HWCM filter's C * M.
inline int64_t ConvOutputChannels(const Tensor& filter, bool depthwise) {
  return depthwise ? filter.dim(2) * filter.dim(3) : filter.dim(3);
}

// A new float32 Const holding `value` (a weight), named `name` or, when
// that is taken, `name` with "_"s appended; appended to `added` (the
// caller adds those to the graph after its scan) and to `index` as -1.
// Returns the name.
std::string AddWeightConst(std::string name, const std::string& device,
                           Tensor value,
                           absl::flat_hash_map<std::string, int>* index,
                           WeightMap* weights,
                           std::vector<tensorflow::NodeDef>* added);

// Rebuilds `g` without the nodes marked dead.
void DropDead(tensorflow::GraphDef* g, const std::vector<bool>& dead);

}  // namespace passes
}  // namespace graphrt

#endif  // GRAPHRT_CONVERTER_PASSES_PASS_UTIL_H_
