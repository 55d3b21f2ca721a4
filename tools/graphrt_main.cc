// The `graphrt` command-line tool: run, info and bench on a model.
// Every error ends in one line on stderr and exit status 1.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "ops/registry.h"
#include "runtime/model.h"
#include "runtime/profiler.h"
#include "runtime/status_macros.h"
#include "tools/checkpoint_command.h"
#include "tools/convert_command.h"
#include "tools/example_command.h"
#include "tools/model_inputs.h"
#include "tools/tensor_json.h"

namespace graphrt {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

constexpr char kUsage[] =
    "usage:\n"
    "  graphrt run MODEL [--inputs FILE] [--output FILE] [--expect GOLDEN]"
    " [--threads N]\n"
    "      [--restore PREFIX] [--save PREFIX [--shards N]]  (model state)\n"
    "  graphrt info MODEL [--json]\n"
    "  graphrt bench MODEL [--inputs FILE] [--iters N] [--warmup N]"
    " [--loads N] [--threads N]\n"
    "      [--profile [--profile-nodes N] [--peak-gflops X]]  (time per op"
    " and node, on stderr)\n"
    "  graphrt ops          (lists the ops graphrt has kernels for)\n"
    "  graphrt convert SRC DST [--compression none|brotli|zstd|snappy]"
    " [--split_limit BYTES] [--quiet]\n"
    "      (DST: .pb, .cpb or .../model.json)\n"
    "  graphrt checkpoint inspect PREFIX [--json] [--values]\n"
    "  graphrt example [--model MODEL] [--input NAME] [--out FILE]"
    " FEATURE=VALUE... [-- FEATURE=VALUE...]\n"
    "      (serialized tf.Examples as an inputs JSON; VALUE: a,b,c with\n"
    "      optional int:/float:/bytes: prefix, types from MODEL if given)\n"
    "run and bench take --ieee-denormals (keep denormal floats; default:\n"
    "flushed to zero, as TensorFlow).\n"
    "MODEL is a TF.js model.json or the folder holding it, a SavedModel\n"
    "directory, or a GraphDef .pb/.pbtxt file. SavedModels take\n"
    "[--tags serve,gpu] [--signature KEY] (defaults: serve, "
    "serving_default).\n";

struct Args {
  std::string command;
  std::string model;
  std::map<std::string, std::string> flags;  // --name -> value ("" for bools)
};

absl::StatusOr<Args> ParseArgs(int argc, char** argv) {
  static const char* kValueFlags[] = {
      "inputs", "output",        "expect",      "threads", "iters",
      "warmup", "tags",          "signature",   "restore", "save",
      "shards", "profile-nodes", "peak-gflops", "loads"};
  static const char* kBoolFlags[] = {"json", "profile", "ieee-denormals"};
  Args args;
  if (argc < 2) return absl::InvalidArgumentError("missing command");
  args.command = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("--", 0) == 0) {
      std::string name = a.substr(2), value;
      size_t eq = name.find('=');
      bool has_value = eq != std::string::npos;
      if (has_value) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      bool is_value = std::find_if(std::begin(kValueFlags),
                                   std::end(kValueFlags), [&](const char* f) {
                                     return name == f;
                                   }) != std::end(kValueFlags);
      bool is_bool = std::find_if(std::begin(kBoolFlags), std::end(kBoolFlags),
                                  [&](const char* f) { return name == f; }) !=
                     std::end(kBoolFlags);
      if (!is_value && !is_bool) {
        return absl::InvalidArgumentError(
            absl::StrCat("unknown flag --", name));
      }
      if (is_value && !has_value) {
        if (i + 1 >= argc) {
          return absl::InvalidArgumentError(
              absl::StrCat("flag --", name, " needs a value"));
        }
        value = argv[++i];
      }
      args.flags[name] = value;
    } else if (args.model.empty()) {
      args.model = a;
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", a, "'"));
    }
  }
  if (args.model.empty()) return absl::InvalidArgumentError("missing MODEL");
  return args;
}

absl::StatusOr<int> IntFlag(const Args& args, const std::string& name,
                            int default_value, int min_value) {
  auto it = args.flags.find(name);
  if (it == args.flags.end()) return default_value;
  int v;
  if (!absl::SimpleAtoi(it->second, &v) || v < min_value) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", name, " must be an integer >= ", min_value,
                     ", got '", it->second, "'"));
  }
  return v;
}

absl::StatusOr<std::unique_ptr<Model>> LoadModel(const Args& args,
                                                 Profiler* profiler = nullptr) {
  ModelOptions options;
  options.profiler = profiler;
  GRAPHRT_ASSIGN_OR_RETURN(options.threads, IntFlag(args, "threads", 0, 0));
  options.flush_denormals = !args.flags.contains("ieee-denormals");
  if (auto it = args.flags.find("tags"); it != args.flags.end()) {
    options.tags = absl::StrSplit(it->second, ',', absl::SkipEmpty());
  }
  if (auto it = args.flags.find("signature"); it != args.flags.end()) {
    options.signature = it->second;
  }
  return Model::Load(args.model, options);
}

// Inputs from --inputs (converted to the declared dtypes), or zeros/empty
// strings of the declared shapes (unknown dims = 1) without it.
absl::StatusOr<std::vector<NamedTensor>> MakeInputs(const Args& args,
                                                    const Model& model) {
  auto it = args.flags.find("inputs");
  if (it != args.flags.end()) return ReadModelInputs(it->second, model);
  std::vector<NamedTensor> inputs;
  for (const IoSpec& spec : model.inputs()) {
    std::vector<int64_t> dims;
    if (!spec.shape.unknown_rank()) {
      for (int64_t d : spec.shape.dims()) dims.push_back(d < 0 ? 1 : d);
    }
    DType dtype = spec.dtype == DType::kInvalid ? DType::kFloat32 : spec.dtype;
    GRAPHRT_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, Shape(dims)));
    inputs.push_back({spec.key, std::move(t)});
  }
  return inputs;
}

absl::Status WriteFileAtomically(const std::string& path,
                                 const std::string& text) {
  std::string tmp = absl::StrCat(path, ".tmp");
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      return absl::PermissionDeniedError(
          absl::StrCat("cannot write '", path, "'"));
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

std::string Preview(const Tensor& t) {
  std::vector<std::string> items;
  int64_t n = std::min<int64_t>(t.num_elements(), 8);
  for (int64_t i = 0; i < n; ++i) {
    switch (t.dtype()) {
      case DType::kFloat32:
        items.push_back(absl::StrCat(t.data<float>()[i]));
        break;
      case DType::kFloat64:
        items.push_back(absl::StrCat(t.data<double>()[i]));
        break;
      case DType::kInt32:
        items.push_back(absl::StrCat(t.data<int32_t>()[i]));
        break;
      case DType::kInt64:
        items.push_back(absl::StrCat(t.data<int64_t>()[i]));
        break;
      case DType::kUInt8:
        items.push_back(absl::StrCat(t.data<uint8_t>()[i]));
        break;
      case DType::kBool:
        items.push_back(t.data<bool>()[i] ? "true" : "false");
        break;
      case DType::kString:
        items.push_back(absl::StrCat("\"", t.data<std::string>()[i], "\""));
        break;
      default:
        items.push_back("?");
    }
  }
  if (t.num_elements() > n) items.push_back("...");
  return absl::StrCat("[", absl::StrJoin(items, ", "), "]");
}

absl::Status CmdRun(const Args& args) {
  GRAPHRT_ASSIGN_OR_RETURN(auto model, LoadModel(args));
  if (auto it = args.flags.find("restore"); it != args.flags.end()) {
    GRAPHRT_RETURN_IF_ERROR(model->RestoreState(it->second));
  }
  GRAPHRT_ASSIGN_OR_RETURN(auto inputs, MakeInputs(args, *model));
  GRAPHRT_ASSIGN_OR_RETURN(auto outputs, model->Run(inputs));
  if (auto it = args.flags.find("save"); it != args.flags.end()) {
    SaveStateOptions save_options;
    GRAPHRT_ASSIGN_OR_RETURN(save_options.num_shards,
                             IntFlag(args, "shards", 1, 1));
    GRAPHRT_RETURN_IF_ERROR(model->SaveState(it->second, save_options));
  }
  std::vector<TensorRecord> records;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const IoSpec& spec = model->outputs()[i];
    records.push_back({spec.key, spec.tensor_name, outputs[i]});
  }
  auto out_it = args.flags.find("output");
  if (out_it != args.flags.end()) {
    Json doc;
    doc["model"] = args.model;
    Json arr = Json::array();
    for (const auto& r : records) arr.push_back(TensorToJson(r));
    doc["outputs"] = arr;
    GRAPHRT_RETURN_IF_ERROR(
        WriteFileAtomically(out_it->second, doc.dump() + "\n"));
  } else {
    for (const auto& r : records) {
      std::cout << r.name << " (" << r.tensor << "): " << r.value.DebugString()
                << " " << Preview(r.value) << "\n";
    }
  }
  auto expect_it = args.flags.find("expect");
  if (expect_it != args.flags.end()) {
    GRAPHRT_ASSIGN_OR_RETURN(auto golden,
                             ReadTensorRecords(expect_it->second, "outputs"));
    int checked = 0;
    for (const auto& g : golden) {
      const TensorRecord* mine = nullptr;
      for (const auto& r : records) {
        if (r.name == g.name || r.tensor == g.name ||
            (!g.tensor.empty() && r.tensor == g.tensor) ||
            r.tensor == absl::StrCat(g.name, ":0")) {
          mine = &r;
          break;
        }
      }
      if (mine == nullptr) {
        return absl::NotFoundError(absl::StrCat(
            "golden output '", g.name, "' is not among the model's outputs"));
      }
      std::string diff = CompareTensors(mine->value, g.value);
      if (!diff.empty()) {
        return absl::FailedPreconditionError(
            absl::StrCat("output '", g.name, "' differs from ",
                         expect_it->second, ": ", diff));
      }
      ++checked;
    }
    std::cout << "matches " << expect_it->second << " (" << checked
              << " outputs, rtol 1e-3, atol 1e-4)\n";
  }
  return absl::OkStatus();
}

Json SpecJson(const IoSpec& spec) {
  Json j;
  j["name"] = spec.key;
  j["tensor"] = spec.tensor_name;
  j["dtype"] = spec.dtype == DType::kInvalid
                   ? std::string("unknown")
                   : std::string(DTypeName(spec.dtype));
  j["shape"] =
      spec.shape.unknown_rank() ? Json(nullptr) : Json(spec.shape.dims());
  return j;
}

absl::Status CmdInfo(const Args& args) {
  GRAPHRT_ASSIGN_OR_RETURN(auto model, LoadModel(args));
  const ImportedModel& im = model->imported();
  Json doc;
  doc["model"] = im.source;
  const ModelSourceInfo& source = model->source_info();
  doc["format"] = source.format;
  if (source.format == "saved_model") {
    doc["tags"] = source.tags;
    doc["signature"] = source.signature;
    doc["signatures"] = source.signatures;
  }
  Json inputs = Json::array(), outputs = Json::array();
  for (const auto& s : model->inputs()) inputs.push_back(SpecJson(s));
  for (const auto& s : model->outputs()) outputs.push_back(SpecJson(s));
  doc["inputs"] = inputs;
  doc["outputs"] = outputs;
  std::map<std::string, int> ops;
  for (int i = 0; i < im.graph->num_nodes(); ++i) ops[im.graph->node(i).op()]++;
  doc["nodes"] = im.graph->num_nodes();
  doc["ops"] = ops;
  Json init;
  init["nodes"] = im.initializer ? im.initializer->num_nodes() : 0;
  Json resources = Json::array();
  for (const auto& [name, res] : model->resources().List()) {
    resources.push_back({{"name", name}, {"resource", res->DebugString()}});
  }
  init["resources"] = resources;
  Json bindings = Json::array();
  for (const auto& b : im.bindings) {
    bindings.push_back({{"input", b.input_key}, {"resourceId", b.resource_id}});
  }
  init["bindings"] = bindings;
  doc["initializer"] = init;
  Json weights;
  for (const auto& [dtype, e] : im.weight_stats.by_dtype) {
    weights[dtype] = {{"count", e.count}, {"bytes", e.bytes_stored}};
  }
  doc["weights"] = weights;
  doc["weight_bytes"] = im.weight_stats.total_bytes;
  Json rewrites = Json::object();
  for (const auto& [what, count] : im.graph_rewrites) rewrites[what] = count;
  doc["graph_passes"] = rewrites;
  if (args.flags.count("json")) {
    std::cout << doc.dump(2) << "\n";
    return absl::OkStatus();
  }
  std::cout << "model: " << im.source << "\n";
  std::cout << "format: " << source.format << "\n";
  if (source.format == "saved_model") {
    std::cout << "tags: " << absl::StrJoin(source.tags, ",") << "\n";
    std::cout << "signature: " << source.signature << " (of "
              << absl::StrJoin(source.signatures, ", ") << ")\n";
  }
  auto print_specs = [](const char* title, const std::vector<IoSpec>& specs) {
    std::cout << title << ":\n";
    for (const auto& s : specs) {
      std::cout << "  " << s.key << " (" << s.tensor_name << ") "
                << (s.dtype == DType::kInvalid ? "?" : DTypeName(s.dtype))
                << " " << s.shape.ToString() << "\n";
    }
  };
  print_specs("inputs", model->inputs());
  print_specs("outputs", model->outputs());
  std::cout << "ops (" << im.graph->num_nodes() << " nodes):\n";
  for (const auto& [op, n] : ops) std::cout << "  " << op << " " << n << "\n";
  std::cout << "graph passes at load:"
            << (im.graph_rewrites.empty() ? " nothing rewritten" : "") << "\n";
  for (const auto& [what, count] : im.graph_rewrites) {
    std::cout << "  " << what << ": " << count << "\n";
  }
  std::cout << "initializer: " << init["nodes"].get<int>() << " nodes\n";
  for (const auto& [name, res] : model->resources().List()) {
    std::cout << "  " << name << ": " << res->DebugString() << "\n";
  }
  for (const auto& b : im.bindings) {
    std::cout << "  resourceId " << b.resource_id << " -> input " << b.input_key
              << "\n";
  }
  std::cout << "weights (" << im.weight_stats.total_bytes << " bytes):\n";
  for (const auto& [dtype, e] : im.weight_stats.by_dtype) {
    std::cout << "  " << dtype << ": " << e.count << " tensors, "
              << e.bytes_stored << " bytes\n";
  }
  return absl::OkStatus();
}

double Ms(Clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

// The --profile tables: per op, then the slowest nodes.
void PrintProfile(const Profiler& profiler, int runs, int top_nodes,
                  double peak_gflops, std::ostream& out) {
  const double total = profiler.TotalSeconds();
  auto gflops = [](double flops, double seconds) {
    return seconds > 0 && flops > 0 ? flops / seconds / 1e9 : 0.0;
  };
  // A long node name keeps its tail, the part that tells nodes apart
  // (converted graphs share long scope prefixes).
  auto fit = [](absl::string_view name) -> std::string {
    constexpr size_t kWidth = 40;
    if (name.size() <= kWidth) return std::string(name);
    return absl::StrCat("..", name.substr(name.size() - (kWidth - 2)));
  };
  auto line = [&](absl::string_view name, absl::string_view op, int64_t nodes,
                  int64_t calls, double seconds, double flops) {
    out << absl::StrFormat(
        "%-40s %-28s %5d %8.2f %9.3f %6.1f%%", fit(name), op.substr(0, 28),
        nodes, static_cast<double>(calls) / runs, seconds * 1e3 / runs,
        total > 0 ? 100 * seconds / total : 0.0);
    const double g = gflops(flops, seconds);
    if (g > 0) {
      out << absl::StrFormat(" %8.1f", g);
      if (peak_gflops > 0)
        out << absl::StrFormat(" %5.1f%%", 100 * g / peak_gflops);
    }
    out << "\n";
  };
  out << absl::StrFormat(
      "profile: %d Runs, %.3f ms per Run in kernels (clock around each "
      "Kernel::Run)\n",
      runs, total * 1e3 / runs);
  out << absl::StrFormat("%-40s %-28s %5s %8s %9s %7s %8s%s\n", "op", "",
                         "nodes", "calls/Run", "ms/Run", "share", "GFLOP/s",
                         peak_gflops > 0 ? "  peak" : "");
  double flops = 0;
  for (const Profiler::OpStats& s : profiler.ByOp()) {
    line(s.op, "", s.nodes, s.calls, s.seconds, s.flops);
    flops += s.flops;
  }
  if (flops > 0) {
    const double g = gflops(flops, total);
    out << absl::StrFormat("all counted FLOPs over the whole Run: %.1f GFLOP/s",
                           g);
    if (peak_gflops > 0) {
      out << absl::StrFormat(" (%.1f%% of %.0f)", 100 * g / peak_gflops,
                             peak_gflops);
    }
    out << "\n";
  }
  if (top_nodes > 0) {
    out << absl::StrFormat("%-40s %-28s %5s %8s %9s %7s %8s%s\n", "node", "op",
                           "", "calls/Run", "ms/Run", "share", "GFLOP/s",
                           peak_gflops > 0 ? "  peak" : "");
    for (const Profiler::NodeStats& s : profiler.TopNodes(top_nodes)) {
      line(s.name, s.op, 1, s.calls, s.seconds, s.flops);
    }
  }
}

// The current resident memory by kind from /proc/self/status, in MB:
// "RssAnon" (heap, tensors, decoded weights, JIT code) and "RssFile"
// (mapped files: the binary's and libraries' code pages, weight shards),
// and the peak-RSS mark "VmHWM".
// Empty where the file is missing (not Linux).
// The kB of a "/proc" line "<key>: <n> kB" whose key is `key`; nullopt for
// other lines.
std::optional<int64_t> ProcKb(const std::string& line, absl::string_view key) {
  if (!absl::StartsWith(line, key) || line.size() <= key.size() ||
      line[key.size()] != ':') {
    return std::nullopt;
  }
  std::vector<std::string> parts = absl::StrSplit(
      line.substr(key.size() + 1), absl::ByAnyChar(" \t"), absl::SkipEmpty());
  int64_t kb = 0;
  if (parts.empty() || !absl::SimpleAtoi(parts[0], &kb)) return std::nullopt;
  return kb;
}

std::map<std::string, double> ResidentMemoryMb() {
  std::map<std::string, double> out;
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    for (const char* key : {"RssAnon", "RssFile", "VmHWM"}) {
      if (std::optional<int64_t> kb = ProcKb(line, key)) {
        out[key] = static_cast<double>(*kb) / 1024.0;
      }
    }
  }
  return out;
}

// Resident MB of the process's mappings of files under `dir` (the model's
// own files: mapped weight shards), from /proc/self/smaps; 0 where the file
// is missing.
double ResidentFilesUnderMb(const std::string& dir) {
  std::ifstream smaps("/proc/self/smaps");
  const std::string prefix = dir.empty() || dir.back() == '/' ? dir : dir + "/";
  std::string line;
  bool inside = false;
  int64_t kb_total = 0;
  while (std::getline(smaps, line)) {
    if (std::optional<int64_t> kb = ProcKb(line, "Rss")) {
      if (inside) kb_total += *kb;
      continue;
    }
    // A mapping's header: "start-end perms offset dev inode [path]"; the
    // other lines are "Key: value".
    const size_t dash = line.find('-');
    const size_t space = line.find(' ');
    if (dash == std::string::npos || space == std::string::npos ||
        dash > space) {
      continue;
    }
    const size_t path = line.find('/');
    inside = !prefix.empty() && path != std::string::npos &&
             line.compare(path, prefix.size(), prefix) == 0;
  }
  return static_cast<double>(kb_total) / 1024.0;
}

// The directory holding the model's files: the path itself for a
// SavedModel directory (any of its forms), else the file's folder.
std::string ModelDirectory(const std::string& model) {
  std::error_code error;
  if (std::filesystem::is_directory(model, error)) return model;
  const std::filesystem::path parent =
      std::filesystem::path(model).parent_path();
  return parent.empty() ? "." : parent.string();
}

absl::Status CmdBench(const Args& args) {
  GRAPHRT_ASSIGN_OR_RETURN(int iters, IntFlag(args, "iters", 20, 1));
  GRAPHRT_ASSIGN_OR_RETURN(int warmup, IntFlag(args, "warmup", 3, 0));
  GRAPHRT_ASSIGN_OR_RETURN(int loads, IntFlag(args, "loads", 1, 1));
#ifdef __GLIBC__
  // Pin glibc's mmap threshold at its initial 128 KiB. glibc raises it to
  // the size of every mapped block freed (up to 32 MiB), after which large
  // blocks come from the heap, whose freed memory stays resident. Parsing
  // --inputs (a 15 MB JSON for a 256x256 image) frees such blocks, so the
  // model's memory then landed in the heap and peak_rss_mb measured this
  // tool's input parsing too (efficientpose: 84 MB over the base, 69 MB
  // pinned; which models it hit moved with unrelated allocation changes).
  ::mallopt(M_MMAP_THRESHOLD, 128 * 1024);
#endif
  // Process-wide set-up first (Model::InitRuntime), timed on its own:
  // load_ms is then the model's own load, as TF.js's is after tf.ready().
  auto t_init = Clock::now();
  Model::InitRuntime();
  const double init_ms = Ms(Clock::now() - t_init);
  // Peak RSS so far (binary, shared libraries, runtime set-up): the part of
  // peak_rss_mb that is not the model's.
  struct rusage usage;
  const double base_rss_mb = ::getrusage(RUSAGE_SELF, &usage) == 0
                                 ? static_cast<double>(usage.ru_maxrss) / 1024.0
                                 : 0.0;
  const std::map<std::string, double> base_resident = ResidentMemoryMb();
  // --profile: a profiler attached but off while timing; it records only
  // the extra profiled Runs after the timed ones.
  const bool profile = args.flags.count("profile") > 0;
  GRAPHRT_ASSIGN_OR_RETURN(int profile_nodes,
                           IntFlag(args, "profile-nodes", 10, 0));
  double peak_gflops = 0;
  if (auto it = args.flags.find("peak-gflops"); it != args.flags.end()) {
    if (!absl::SimpleAtod(it->second, &peak_gflops) || !(peak_gflops > 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--peak-gflops must be a number > 0, got '", it->second, "'"));
    }
  }
  Profiler profiler;
  profiler.set_enabled(false);
  // --loads N: the model is loaded N times (each freed before the next)
  // and load_ms is their median. The first load of a process also pays for
  // reading the model's files when they are not in the page cache and for
  // first-touch page faults of the allocator: one cold load is noisy.
  std::vector<double> load_times;
  std::unique_ptr<Model> model;
  for (int i = 0; i < loads; ++i) {
    model.reset();
    auto t0 = Clock::now();
    GRAPHRT_ASSIGN_OR_RETURN(model,
                             LoadModel(args, profile ? &profiler : nullptr));
    load_times.push_back(Ms(Clock::now() - t0));
  }
  std::sort(load_times.begin(), load_times.end());
  const double load_ms = load_times[load_times.size() / 2];
  GRAPHRT_ASSIGN_OR_RETURN(auto inputs, MakeInputs(args, *model));
  // The Runs' own peak: the kernel's peak-RSS mark (VmHWM) reset to the
  // current RSS once the model is loaded and the inputs parsed (what was
  // freed by then, such as a large --inputs JSON's parse tree, no longer
  // counts). The reset also lowers getrusage's ru_maxrss, so the peak so
  // far is read first and peak_rss_mb takes the larger. Linux >= 4.0;
  // without it run_peak_rss_mb is left out.
  const std::map<std::string, double> loaded = ResidentMemoryMb();
  const double load_peak_mb = loaded.count("VmHWM") ? loaded.at("VmHWM") : 0;
  bool run_peak = false;
  {
    std::ofstream clear("/proc/self/clear_refs");
    run_peak = static_cast<bool>(clear << "5" << std::flush);
  }
  auto t1 = Clock::now();
  GRAPHRT_RETURN_IF_ERROR(model->Run(inputs).status());
  double first_ms = Ms(Clock::now() - t1);
  for (int i = 0; i < warmup; ++i) {
    GRAPHRT_RETURN_IF_ERROR(model->Run(inputs).status());
  }
  std::vector<double> times;
  for (int i = 0; i < iters; ++i) {
    auto s = Clock::now();
    GRAPHRT_RETURN_IF_ERROR(model->Run(inputs).status());
    times.push_back(Ms(Clock::now() - s));
  }
  if (profile) {
    profiler.set_enabled(true);
    for (int i = 0; i < iters; ++i) {
      GRAPHRT_RETURN_IF_ERROR(model->Run(inputs).status());
    }
    profiler.set_enabled(false);
    PrintProfile(profiler, iters, profile_nodes, peak_gflops, std::cerr);
  }
  std::sort(times.begin(), times.end());
  auto pct = [&](double p) {
    size_t i = static_cast<size_t>(p * (times.size() - 1) + 0.5);
    return times[std::min(i, times.size() - 1)];
  };
  Json j;
  j["model"] = args.model;
  j["threads"] = model->threads();
  j["iters"] = iters;
  j["init_ms"] = init_ms;
  j["loads"] = loads;
  j["load_ms"] = load_ms;
  j["first_ms"] = first_ms;
  j["median_ms"] = pct(0.5);
  j["p10_ms"] = pct(0.1);
  j["p90_ms"] = pct(0.9);
  // Memory: the process's peak RSS (getrusage) and its part before the
  // model loaded, the model's constant tensors (decoded weights, also where
  // a kernel adopted one and its decoded copy is gone; packed copies are not
  // counted again), the executor pool's tensor storage (activations,
  // power-of-two rounded) and the resident memory by kind.
  const std::map<std::string, double> resident = ResidentMemoryMb();
  const double run_peak_mb =
      run_peak && resident.count("VmHWM") ? resident.at("VmHWM") : 0;
  if (::getrusage(RUSAGE_SELF, &usage) == 0) {
    j["peak_rss_mb"] =
        std::max({load_peak_mb, run_peak_mb,
                  static_cast<double>(usage.ru_maxrss) / 1024.0});
    j["base_rss_mb"] = base_rss_mb;
  }
  int64_t weight_bytes = 0;
  const Graph& graph = *model->imported().graph;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const Tensor& c = graph.node(i).constant;
    if (c.buffer() != nullptr) {
      weight_bytes += static_cast<int64_t>(c.buffer()->size());
    }
  }
  j["weights_mb"] = static_cast<double>(weight_bytes) / (1 << 20);
  if (run_peak_mb > 0) j["run_peak_rss_mb"] = run_peak_mb;
  if (resident.count("RssAnon")) j["rss_anon_mb"] = resident.at("RssAnon");
  if (resident.count("RssFile")) j["rss_file_mb"] = resident.at("RssFile");
  // What of the growth in mapped files is code: pages of the binary and
  // its libraries that the model's first Run touched (file-backed, shared
  // with every other model and process), as opposed to the model's own
  // mapped files (weight shards viewed zero-copy).
  if (base_resident.count("RssAnon")) {
    j["base_rss_anon_mb"] = base_resident.at("RssAnon");
  }
  if (base_resident.count("RssFile")) {
    j["base_rss_file_mb"] = base_resident.at("RssFile");
  }
  const double model_files_mb =
      ResidentFilesUnderMb(ModelDirectory(args.model));
  j["model_files_rss_mb"] = model_files_mb;
  if (resident.count("RssFile") && base_resident.count("RssFile")) {
    j["code_pages_mb"] =
        std::max(0.0, resident.at("RssFile") - base_resident.at("RssFile") -
                          model_files_mb);
  }
  j["activation_pool_mb"] =
      static_cast<double>(model->activation_pool_bytes()) / (1 << 20);
  std::cout << j.dump() << "\n";
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  absl::StatusOr<Args> args = ParseArgs(argc, argv);
  absl::Status status;
  if (argc == 2 &&
      (std::string(argv[1]) == "help" || std::string(argv[1]) == "--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (argc >= 2 && std::string(argv[1]) == "checkpoint") {
    status = RunCheckpointCommand(
        std::vector<std::string>(argv + 2, argv + argc), std::cout);
    if (!status.ok())
      std::cerr << "graphrt: error: " << status.message() << "\n";
    return status.ok() ? 0 : 1;
  }
  if (argc >= 2 && std::string(argv[1]) == "example") {
    status = RunExampleCommand(std::vector<std::string>(argv + 2, argv + argc),
                               std::cout);
    if (!status.ok()) {
      std::string msg(status.message());
      std::replace(msg.begin(), msg.end(), '\n', ' ');
      std::cerr << "graphrt: error: " << msg << "\n";
    }
    return status.ok() ? 0 : 1;
  }
  if (argc >= 2 && std::string(argv[1]) == "convert") {
    return RunConvertCommand(argc, argv);
  }
  if (argc == 2 && std::string(argv[1]) == "ops") {
    for (const std::string& op : BuiltinOps().OpNames())
      std::cout << op << "\n";
    return 0;
  }
  if (!args.ok()) {
    status = args.status();
  } else if (args->command == "run") {
    status = CmdRun(*args);
  } else if (args->command == "info") {
    status = CmdInfo(*args);
  } else if (args->command == "bench") {
    status = CmdBench(*args);
  } else {
    status = absl::InvalidArgumentError(
        absl::StrCat("unknown command '", args->command, "'"));
  }
  if (!status.ok()) {
    std::string msg(status.message());
    std::replace(msg.begin(), msg.end(), '\n', ' ');
    std::cerr << "graphrt: error: " << msg;
    if (!args.ok()) std::cerr << " (see 'graphrt help')";
    std::cerr << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace graphrt

int main(int argc, char** argv) {
  try {
    return graphrt::Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "graphrt: error: internal: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "graphrt: error: internal error\n";
    return 1;
  }
}
