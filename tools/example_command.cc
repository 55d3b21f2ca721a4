#include "tools/example_command.h"

#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <utility>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "converter/tensor_proto.h"
#include "nlohmann/json.hpp"
#include "runtime/model.h"
#include "runtime/status_macros.h"

namespace graphrt {
namespace {

using Json = nlohmann::ordered_json;

absl::StatusOr<FeatureKind> KindOfDataType(int dtype, const std::string& key,
                                           const std::string& node) {
  switch (dtype) {
    case tensorflow::DT_STRING:
      return FeatureKind::kBytes;
    case tensorflow::DT_FLOAT:
      return FeatureKind::kFloat;
    case tensorflow::DT_INT64:
      return FeatureKind::kInt64;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "node '", node, "' parses feature '", key, "' as DataType ", dtype,
          ", which a tf.Example cannot hold"));
  }
}

std::vector<int> TypeListAttr(const tensorflow::NodeDef& def,
                              const std::string& name) {
  std::vector<int> types;
  auto it = def.attr().find(name);
  if (it == def.attr().end()) return types;
  for (int t : it->second.list().type()) types.push_back(t);
  return types;
}

std::vector<std::string> StringListAttr(const tensorflow::NodeDef& def,
                                        const std::string& name) {
  std::vector<std::string> values;
  auto it = def.attr().find(name);
  if (it == def.attr().end()) return values;
  for (const std::string& s : it->second.list().s()) values.push_back(s);
  return values;
}

absl::StatusOr<std::vector<std::string>> StringsOf(const Tensor& t,
                                                   const std::string& what) {
  if (t.dtype() != DType::kString) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " is not a string constant"));
  }
  return std::vector<std::string>(t.data<std::string>(),
                                  t.data<std::string>() + t.num_elements());
}

// Reads the string constant feeding data input `index` of a parsing node.
using ConstInputReader =
    std::function<absl::StatusOr<std::vector<std::string>>(int index)>;

// Feature name -> (type, node that declared it).
class TypeCollector {
 public:
  absl::Status Add(const std::string& key, int dtype, const std::string& node) {
    GRAPHRT_ASSIGN_OR_RETURN(FeatureKind kind,
                             KindOfDataType(dtype, key, node));
    auto [it, inserted] = found_.emplace(key, std::make_pair(kind, node));
    if (!inserted && it->second.first != kind) {
      return absl::InvalidArgumentError(absl::StrCat(
          "feature '", key, "' is parsed as ",
          FeatureKindName(it->second.first), " by node '", it->second.second,
          "' and as ", FeatureKindName(kind), " by node '", node, "'"));
    }
    return absl::OkStatus();
  }

  // Keys and types of one parsing node; `read` fetches key constants.
  absl::Status AddNode(const tensorflow::NodeDef& def,
                       const ConstInputReader& read) {
    const std::string& op = def.op();
    auto add_all = [&](const std::vector<std::string>& keys,
                       const std::vector<int>& types,
                       const char* what) -> absl::Status {
      if (keys.size() != types.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", def.name(), "' (op ", op, ") has ", keys.size(), " ",
            what, " keys but ", types.size(), " types"));
      }
      for (size_t i = 0; i < keys.size(); ++i) {
        GRAPHRT_RETURN_IF_ERROR(Add(keys[i], types[i], def.name()));
      }
      return absl::OkStatus();
    };
    if (op == "ParseSingleExample") {
      GRAPHRT_RETURN_IF_ERROR(add_all(StringListAttr(def, "sparse_keys"),
                                      TypeListAttr(def, "sparse_types"),
                                      "sparse"));
      return add_all(StringListAttr(def, "dense_keys"),
                     TypeListAttr(def, "Tdense"), "dense");
    }
    if (op == "ParseExampleV2") {
      // Inputs: serialized, names, sparse_keys, dense_keys, ragged_keys.
      const char* kinds[] = {"sparse", "dense", "ragged"};
      const char* type_attrs[] = {"sparse_types", "Tdense",
                                  "ragged_value_types"};
      for (int k = 0; k < 3; ++k) {
        GRAPHRT_ASSIGN_OR_RETURN(std::vector<std::string> keys, read(2 + k));
        GRAPHRT_RETURN_IF_ERROR(
            add_all(keys, TypeListAttr(def, type_attrs[k]), kinds[k]));
      }
      return absl::OkStatus();
    }
    // ParseExample: serialized, names, sparse_keys[Nsparse] (scalars),
    // dense_keys[Ndense], dense_defaults[Ndense].
    std::vector<int> sparse_types = TypeListAttr(def, "sparse_types");
    std::vector<int> dense_types = TypeListAttr(def, "Tdense");
    std::vector<std::string> sparse_keys, dense_keys;
    for (size_t i = 0; i < sparse_types.size() + dense_types.size(); ++i) {
      GRAPHRT_ASSIGN_OR_RETURN(std::vector<std::string> key,
                               read(2 + static_cast<int>(i)));
      if (key.size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "node '", def.name(), "' (op ParseExample): key input ", 2 + i,
            " has ", key.size(), " elements, expected 1"));
      }
      (i < sparse_types.size() ? sparse_keys : dense_keys).push_back(key[0]);
    }
    GRAPHRT_RETURN_IF_ERROR(add_all(sparse_keys, sparse_types, "sparse"));
    return add_all(dense_keys, dense_types, "dense");
  }

  ExampleFeatureTypes Result() const {
    ExampleFeatureTypes types;
    for (const auto& [key, entry] : found_) types[key] = entry.first;
    return types;
  }

 private:
  std::map<std::string, std::pair<FeatureKind, std::string>> found_;
};

bool IsParsingOp(const std::string& op) {
  return op == "ParseExample" || op == "ParseExampleV2" ||
         op == "ParseSingleExample";
}

// Follows Identity nodes of the main graph to a Const.
absl::StatusOr<std::vector<std::string>> MainGraphConstInput(const Graph& graph,
                                                             const Node& node,
                                                             int index) {
  std::string what = absl::StrCat(NodeContext(node), " input ", index);
  if (index >= static_cast<int>(node.inputs.size())) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is missing"));
  }
  const Node* src = &graph.node(node.inputs[index].node);
  for (int hops = 0;
       src->op() == "Identity" && !src->inputs.empty() && hops < 64; ++hops) {
    src = &graph.node(src->inputs[0].node);
  }
  if (src->op() != "Const") {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " comes from ", NodeContext(*src),
                     ", not a constant: cannot read the feature keys"));
  }
  return StringsOf(src->constant, what);
}

// The same inside a FunctionDef body, where inputs read "node:out:0".
absl::StatusOr<std::vector<std::string>> FunctionConstInput(
    const tensorflow::FunctionDef& fn,
    const std::map<std::string, const tensorflow::NodeDef*>& by_name,
    const tensorflow::NodeDef& node, int index) {
  std::string what =
      absl::StrCat("node '", node.name(), "' (op ", node.op(),
                   ") in function '", fn.signature().name(), "' input ", index);
  if (index >= node.input_size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " is missing"));
  }
  const tensorflow::NodeDef* src = nullptr;
  std::string input = node.input(index);
  for (int hops = 0; hops < 64; ++hops) {
    std::string name = input.substr(0, input.find(':'));
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " comes from '", input,
                       "', not a constant: cannot read the feature keys"));
    }
    src = it->second;
    if (src->op() != "Identity" || src->input_size() == 0) break;
    input = src->input(0);
  }
  auto value = src->attr().find("value");
  if (src->op() != "Const" || value == src->attr().end()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " comes from node '", src->name(), "' (op ",
                     src->op(), "), not a constant"));
  }
  GRAPHRT_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(value->second.tensor()));
  return StringsOf(t, what);
}

// Splits on unescaped commas; `\,` -> `,` and `\\` -> `\`.
absl::StatusOr<std::vector<std::string>> SplitValues(absl::string_view feature,
                                                     absl::string_view text) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  std::string current;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\\') {
      if (i + 1 >= text.size() || (text[i + 1] != ',' && text[i + 1] != '\\')) {
        return absl::InvalidArgumentError(
            absl::StrCat("feature '", feature,
                         "': a backslash must be followed by ',' or '\\'"));
      }
      current.push_back(text[++i]);
    } else if (c == ',') {
      items.push_back(std::move(current));
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  items.push_back(std::move(current));
  return items;
}

bool AllInt64(const std::vector<std::string>& items) {
  for (const std::string& s : items) {
    int64_t v;
    if (!absl::SimpleAtoi(s, &v)) return false;
  }
  return true;
}

bool AllFloat(const std::vector<std::string>& items) {
  for (const std::string& s : items) {
    float v;
    if (!absl::SimpleAtof(s, &v)) return false;
  }
  return true;
}

std::string KnownFeatures(const ExampleFeatureTypes& types) {
  std::vector<std::string> names;
  for (const auto& [name, kind] : types) names.push_back(name);
  return absl::StrJoin(names, ", ");
}

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text) {
  std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot write '", path, "'"));
    }
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return absl::DataLossError(absl::StrCat("failed writing '", path, "'"));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write '", path, "'"));
  }
  return absl::OkStatus();
}

// The string input an Example batch feeds: --input, else the model's only
// string input.
absl::StatusOr<std::string> ChooseInput(const Model& model,
                                        const std::string& requested) {
  std::vector<std::string> string_inputs;
  for (const IoSpec& spec : model.inputs()) {
    if (spec.dtype == DType::kString) string_inputs.push_back(spec.key);
    if (!requested.empty() &&
        (spec.key == requested || spec.tensor_name == requested ||
         spec.tensor_name == absl::StrCat(requested, ":0"))) {
      if (spec.dtype != DType::kString && spec.dtype != DType::kInvalid) {
        return absl::InvalidArgumentError(
            absl::StrCat("--input '", requested, "' is a ",
                         DTypeName(spec.dtype), " input, not a string one"));
      }
      return requested;
    }
  }
  if (!requested.empty()) {
    return absl::NotFoundError(absl::StrCat(
        "--input '", requested, "' is not an input of the model (string ",
        "inputs: ", absl::StrJoin(string_inputs, ", "), ")"));
  }
  if (string_inputs.size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the model has ", string_inputs.size(), " string inputs (",
        absl::StrJoin(string_inputs, ", "), "): choose one with --input"));
  }
  return string_inputs[0];
}

}  // namespace

const char* FeatureKindName(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kBytes:
      return "bytes";
    case FeatureKind::kFloat:
      return "float";
    case FeatureKind::kInt64:
      return "int64";
  }
  return "?";
}

absl::StatusOr<ExampleFeatureTypes> ExampleFeatureTypesFromGraph(
    const Graph& graph) {
  TypeCollector collector;
  bool any = false;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Node& node = graph.node(i);
    if (!IsParsingOp(node.op())) continue;
    any = true;
    GRAPHRT_RETURN_IF_ERROR(collector.AddNode(*node.def, [&](int index) {
      return MainGraphConstInput(graph, node, index);
    }));
  }
  for (const tensorflow::FunctionDef& fn : graph.library().function()) {
    std::map<std::string, const tensorflow::NodeDef*> by_name;
    for (const tensorflow::NodeDef& n : fn.node_def()) by_name[n.name()] = &n;
    for (const tensorflow::NodeDef& n : fn.node_def()) {
      if (!IsParsingOp(n.op())) continue;
      any = true;
      GRAPHRT_RETURN_IF_ERROR(collector.AddNode(n, [&](int index) {
        return FunctionConstInput(fn, by_name, n, index);
      }));
    }
  }
  if (!any) {
    return absl::NotFoundError(
        "the model has no ParseExample, ParseExampleV2 or ParseSingleExample "
        "node: it does not read tf.Examples");
  }
  return collector.Result();
}

absl::StatusOr<tensorflow::Feature> ParseFeatureValue(
    absl::string_view feature, absl::string_view value,
    std::optional<FeatureKind> declared) {
  std::optional<FeatureKind> prefixed;
  static const std::pair<const char*, FeatureKind> kPrefixes[] = {
      {"int:", FeatureKind::kInt64},
      {"float:", FeatureKind::kFloat},
      {"bytes:", FeatureKind::kBytes}};
  for (const auto& [prefix, kind] : kPrefixes) {
    if (absl::StartsWith(value, prefix)) {
      prefixed = kind;
      value.remove_prefix(absl::string_view(prefix).size());
      break;
    }
  }
  if (prefixed && declared && *prefixed != *declared) {
    return absl::InvalidArgumentError(absl::StrCat(
        "feature '", feature, "' is given as ", FeatureKindName(*prefixed),
        " but the model parses it as ", FeatureKindName(*declared)));
  }
  GRAPHRT_ASSIGN_OR_RETURN(std::vector<std::string> items,
                           SplitValues(feature, value));
  FeatureKind kind;
  if (prefixed) {
    kind = *prefixed;
  } else if (declared) {
    kind = *declared;
  } else if (!items.empty() && AllInt64(items)) {
    kind = FeatureKind::kInt64;
  } else if (!items.empty() && AllFloat(items)) {
    kind = FeatureKind::kFloat;
  } else {
    kind = FeatureKind::kBytes;
  }
  tensorflow::Feature out;
  switch (kind) {
    case FeatureKind::kBytes: {
      auto* list = out.mutable_bytes_list();
      for (std::string& s : items) list->add_value(std::move(s));
      break;
    }
    case FeatureKind::kInt64: {
      auto* list = out.mutable_int64_list();
      for (const std::string& s : items) {
        int64_t v;
        if (!absl::SimpleAtoi(s, &v)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "feature '", feature, "': '", s, "' is not an int64"));
        }
        list->add_value(v);
      }
      break;
    }
    case FeatureKind::kFloat: {
      auto* list = out.mutable_float_list();
      for (const std::string& s : items) {
        float v;
        if (!absl::SimpleAtof(s, &v)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "feature '", feature, "': '", s, "' is not a number"));
        }
        list->add_value(v);
      }
      break;
    }
  }
  return out;
}

absl::StatusOr<tensorflow::Example> BuildExample(
    const std::vector<std::string>& pairs, const ExampleFeatureTypes* types) {
  tensorflow::Example example;
  std::set<std::string> seen;
  for (const std::string& pair : pairs) {
    size_t eq = pair.find('=');
    if (eq == std::string::npos || eq == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected FEATURE=VALUE, got '", pair, "'"));
    }
    std::string name = pair.substr(0, eq);
    if (!seen.insert(name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("feature '", name, "' is given twice"));
    }
    std::optional<FeatureKind> declared;
    if (types != nullptr) {
      auto it = types->find(name);
      if (it == types->end()) {
        return absl::NotFoundError(
            absl::StrCat("the model does not parse a feature '", name,
                         "'; it parses: ", KnownFeatures(*types)));
      }
      declared = it->second;
    }
    GRAPHRT_ASSIGN_OR_RETURN(
        tensorflow::Feature feature,
        ParseFeatureValue(name, absl::string_view(pair).substr(eq + 1),
                          declared));
    tensorflow::FeatureEntry* entry = example.mutable_features()->add_feature();
    entry->set_key(name);
    *entry->mutable_value() = std::move(feature);
  }
  return example;
}

absl::Status RunExampleCommand(const std::vector<std::string>& args,
                               std::ostream& out) {
  static const char* kValueFlags[] = {"model", "tags", "signature", "input",
                                      "out"};
  std::map<std::string, std::string> flags;
  std::vector<std::vector<std::string>> examples(1);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--") {
      examples.emplace_back();
      continue;
    }
    if (a.rfind("--", 0) != 0) {
      examples.back().push_back(a);
      continue;
    }
    std::string name = a.substr(2), value;
    size_t eq = name.find('=');
    bool has_value = eq != std::string::npos;
    if (has_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    bool known = false;
    for (const char* f : kValueFlags) known = known || name == f;
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("example: unknown flag --", name));
    }
    if (!has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("example: flag --", name, " needs a value"));
      }
      value = args[++i];
    }
    flags[name] = value;
  }
  std::optional<ExampleFeatureTypes> types;
  std::string input_name = flags.count("input") ? flags["input"] : "";
  if (flags.count("model")) {
    ModelOptions options;
    options.threads = 1;
    if (flags.count("tags")) {
      options.tags = absl::StrSplit(flags["tags"], ',', absl::SkipEmpty());
    }
    if (flags.count("signature")) options.signature = flags["signature"];
    GRAPHRT_ASSIGN_OR_RETURN(std::unique_ptr<Model> model,
                             Model::Load(flags["model"], options));
    GRAPHRT_ASSIGN_OR_RETURN(
        types, ExampleFeatureTypesFromGraph(*model->imported().graph));
    GRAPHRT_ASSIGN_OR_RETURN(input_name, ChooseInput(*model, input_name));
  } else if (flags.count("tags") || flags.count("signature")) {
    return absl::InvalidArgumentError(
        "example: --tags and --signature need --model");
  }
  if (input_name.empty()) input_name = "inputs";
  Json strings = Json::array();
  for (size_t e = 0; e < examples.size(); ++e) {
    absl::StatusOr<tensorflow::Example> example =
        BuildExample(examples[e], types ? &*types : nullptr);
    if (!example.ok()) {
      return absl::Status(
          example.status().code(),
          absl::StrCat("example ", e + 1, " of ", examples.size(), ": ",
                       example.status().message()));
    }
    std::string bytes;
    if (!example->SerializeToString(&bytes)) {
      return absl::InternalError(
          absl::StrCat("example ", e + 1, ": serialization failed"));
    }
    strings.push_back(absl::Base64Escape(bytes));
  }
  Json record;
  record["name"] = input_name;
  record["dtype"] = "string";
  record["shape"] = Json::array({static_cast<int64_t>(examples.size())});
  record["strings_b64"] = std::move(strings);
  Json doc;
  doc["inputs"] = Json::array({std::move(record)});
  std::string text = doc.dump() + "\n";
  if (flags.count("out")) return WriteFileAtomically(flags["out"], text);
  out << text;
  return absl::OkStatus();
}

}  // namespace graphrt
