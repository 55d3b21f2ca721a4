// Const adoption (Kernel::CanAdoptConstInput, Graph::AdoptConstInputs): a
// Const every data consumer adopted keeps only a placeholder, Runs hand the
// consumers that placeholder (or a fed value), fetching it is an error, and
// a Const that any consumer does not adopt stays as it was. Then the real
// user: Conv2D / DepthwiseConv2dNative / Conv2DBackpropInput filters packed
// by oneDNN.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "converter/graph.h"
#include "converter/model_import.h"
#include "google/protobuf/text_format.h"
#include "ops/kernel.h"
#include "ops/nn/dnnl/dnnl_conv.h"
#include "ops/registry.h"
#include "runtime/executor.h"

namespace graphrt {
namespace {

// AddAdopted(x, c) = x + c for float32 vectors; adopts c.
class AddAdoptedKernel : public Kernel {
 public:
  absl::Status Run(KernelContext& ctx) const override {
    const Tensor& x = ctx.input(0);
    const Tensor& c = IsReleasedConst(ctx.input(1)) ? adopted_ : ctx.input(1);
    if (!c.valid() || c.raw_data() == nullptr) {
      return absl::InternalError("no value for input 1");
    }
    auto out = ctx.allocate_output(0, DType::kFloat32, x.shape());
    if (!out.ok()) return out.status();
    for (int64_t i = 0; i < x.num_elements(); ++i) {
      (*out)->mutable_data<float>()[i] =
          x.data<float>()[i] + c.data<float>()[i % c.num_elements()];
    }
    return absl::OkStatus();
  }
  bool CanAdoptConstInput(int index, const Tensor& value) const override {
    return index == 1 && value.dtype() == DType::kFloat32;
  }
  void AdoptConstInput(int index, Tensor value) override {
    adopted_ = std::move(value);
  }

 private:
  Tensor adopted_;
};

absl::StatusOr<std::unique_ptr<Kernel>> CreateAddAdopted(const KernelInit&) {
  return std::make_unique<AddAdoptedKernel>();
}

const OpRegistry& TestOps() {
  static const OpRegistry* ops = [] {
    auto* r = new OpRegistry;
    RegisterBuiltinOps(*r);
    r->Register("AddAdopted", CreateAddAdopted);
    return r;
  }();
  return *ops;
}

constexpr char kGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "c"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "shared"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node { name: "a" op: "AddAdopted" input: "x" input: "c" }
  node { name: "b" op: "AddAdopted" input: "x" input: "shared" }
  node { name: "peek" op: "Identity" input: "shared" }
)pb";

std::unique_ptr<Graph> Build(const std::string& text, WeightMap weights,
                             const OpRegistry& ops) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def));
  auto g = Graph::Build(def, weights, ops, "test graph");
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? std::move(*g) : nullptr;
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(),
                            t.data<float>() + t.num_elements());
}

TEST(ConstAdoptionTest, AdoptedConstKeepsOnlyAPlaceholder) {
  WeightMap w;
  w["c"] = Tensor::FromVector<float>({10.f, 20.f});
  w["shared"] = Tensor::FromVector<float>({1.f, 2.f});
  auto g = Build(kGraph, w, TestOps());
  ASSERT_NE(g, nullptr);
  const Node& c = g->node(*g->FindNode("c"));
  EXPECT_TRUE(IsReleasedConst(c.constant));
  EXPECT_EQ(c.constant.dtype(), DType::kFloat32);
  EXPECT_EQ(c.constant.num_elements(), 2);
  // Identity reads "shared" too and does not adopt: it stays.
  const Node& shared = g->node(*g->FindNode("shared"));
  EXPECT_FALSE(IsReleasedConst(shared.constant));
  EXPECT_EQ(Floats(shared.constant), (std::vector<float>{1.f, 2.f}));

  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  const Endpoint x{*g->FindNode("x"), 0}, a{*g->FindNode("a"), 0},
      b{*g->FindNode("b"), 0}, peek{*g->FindNode("peek"), 0}, c_out{c.id, 0};
  std::vector<Feed> feeds = {{x, Tensor::FromVector<float>({1.f, 1.f})}};
  auto out = exec.Run(feeds, {a, b, peek});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{11.f, 21.f}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{2.f, 3.f}));
  EXPECT_EQ(Floats((*out)[2]), (std::vector<float>{1.f, 2.f}));

  // Its value is gone: fetching it is a clear error.
  auto fetched = exec.Run(feeds, {c_out});
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(fetched.status().message().find("'c'"), std::string::npos)
      << fetched.status();
  EXPECT_NE(fetched.status().message().find("adopted"), std::string::npos);

  // A fed value replaces the adopted one, and is fetched as fed.
  feeds.push_back({c_out, Tensor::FromVector<float>({100.f, 200.f})});
  out = exec.Run(feeds, {a, c_out});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<float>{101.f, 201.f}));
  EXPECT_EQ(Floats((*out)[1]), (std::vector<float>{100.f, 200.f}));
}

// A node that uses the Const only through a control edge does not block
// adoption.
TEST(ConstAdoptionTest, ControlConsumersDoNotBlockAdoption) {
  WeightMap w;
  w["c"] = Tensor::FromVector<float>({3.f});
  w["shared"] = Tensor::FromVector<float>({1.f});
  auto g = Build(absl::StrCat(kGraph, R"pb(
                   node { name: "after" op: "NoOp" input: "^c" }
                 )pb"),
                 w, TestOps());
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(IsReleasedConst(g->node(*g->FindNode("c")).constant));
}

// x -> y = <op>(x, f) with a Const filter f; <op> goes between the two.
// (Plain raw strings: clang-format would reflow a pb-delimited fragment.)
constexpr char kConvGraphHead[] = R"(
  node {
    name: "x"
    op: "Placeholder"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node {
    name: "f"
    op: "Const"
    attr {
      key: "dtype"
      value { type: DT_FLOAT }
    }
  }
  node { name: "y" input: "x" input: "f" op: ")";
constexpr char kConvGraphTail[] = R"("
  attr {
    key: "T"
    value { type: DT_FLOAT }
  }
  attr {
    key: "strides"
    value { list { i: 1 i: 1 i: 1 i: 1 } }
  }
  attr {
    key: "padding"
    value { s: "SAME" }
  }
  }
)";

// Conv2D and DepthwiseConv2dNative adopt float32 filters when oneDNN runs;
// results equal a Run that feeds the same filter (the ordinary path).
TEST(ConstAdoptionTest, ConvolutionFiltersAreAdopted) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  for (const std::string op : {"Conv2D", "DepthwiseConv2dNative"}) {
    const bool dw = op != "Conv2D";
    // Depthwise multiplier 2 where oneDNN's AVX-512 kernels take it; on
    // AVX2 only multiplier 1 has a packing backend (XNNPACK, which runs the
    // rest, keeps the decoded filter).
    const int64_t cin = 8, cout = dw ? (nn::DnnlHasAvx512() ? 16 : 8) : 12;
    std::vector<float> fv(3 * 3 * cin * (dw ? cout / cin : cout));
    for (size_t i = 0; i < fv.size(); ++i) fv[i] = std::sin(0.37f * i);
    Tensor filter = *Tensor::FromVector<float>(fv).Reshaped(
        Shape({3, 3, cin, dw ? cout / cin : cout}));
    WeightMap w;
    w["f"] = filter;
    // The convolution node's op is filled in below.
    const std::string text = absl::StrCat(kConvGraphHead, op, kConvGraphTail);
    auto g = Build(text, w, BuiltinOps());
    ASSERT_NE(g, nullptr);
    const Node& f = g->node(*g->FindNode("f"));
    EXPECT_TRUE(IsReleasedConst(f.constant)) << op;
    std::vector<float> xv(2 * 5 * 5 * cin);
    for (size_t i = 0; i < xv.size(); ++i) xv[i] = std::cos(0.11f * i);
    Tensor x = *Tensor::FromVector<float>(xv).Reshaped(Shape({2, 5, 5, cin}));
    ResourceManager resources;
    Executor exec(g.get(), &resources, nullptr);
    const Endpoint xe{*g->FindNode("x"), 0}, ye{*g->FindNode("y"), 0};
    auto adopted = exec.Run({{xe, x}}, {ye});
    ASSERT_TRUE(adopted.ok()) << adopted.status();
    // Once packed, the kernel no longer holds the decoded filter: the
    // weight map's tensor and this test's are its only holders.
    EXPECT_EQ(w["f"].buffer(), filter.buffer());
    w.clear();
    EXPECT_TRUE(filter.HasExclusiveBuffer()) << op;
    // Feeding the filter takes the ordinary path (oneDNN, keyed on the fed
    // buffer), while this small layer's adopted filter runs on the direct
    // kernel (ops/nn/direct/direct_conv.h): equal up to summation order.
    auto fed = exec.Run({{xe, x}, {Endpoint{f.id, 0}, filter}}, {ye});
    ASSERT_TRUE(fed.ok()) << fed.status();
    const float* a = (*adopted)[0].data<float>();
    const float* b = (*fed)[0].data<float>();
    ASSERT_EQ((*adopted)[0].num_elements(), (*fed)[0].num_elements());
    for (int64_t i = 0; i < (*fed)[0].num_elements(); ++i) {
      ASSERT_NEAR(a[i], b[i], 1e-4f) << op << " at " << i;
    }
    // A different fed filter is used as fed, also once the node has packed
    // the adopted one (the direct kernel's copy is the Const's).
    std::vector<float> doubled = fv;
    for (float& v : doubled) v *= 2.0f;
    Tensor filter2 =
        *Tensor::FromVector<float>(doubled).Reshaped(filter.shape());
    auto fed2 = exec.Run({{xe, x}, {Endpoint{f.id, 0}, filter2}}, {ye});
    ASSERT_TRUE(fed2.ok()) << fed2.status();
    const float* c = (*fed2)[0].data<float>();
    for (int64_t i = 0; i < (*fed2)[0].num_elements(); ++i) {
      ASSERT_NEAR(c[i], 2.0f * a[i], 2e-4f) << op << " at " << i;
    }
    // And the adopted filter again, unchanged by what was fed.
    auto again = exec.Run({{xe, x}}, {ye});
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_TRUE((*adopted)[0].IdenticalTo((*again)[0])) << op;
  }
}

// Conv2DBackpropInput adopts its filter (input 1) too; its input_sizes
// Const (int32, input 0) stays.
TEST(ConstAdoptionTest, TransposedConvolutionFilterIsAdopted) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  const int64_t cin = 6, cout = 10;
  std::vector<float> fv(3 * 3 * cin * cout);
  for (size_t i = 0; i < fv.size(); ++i) fv[i] = std::sin(0.23f * i);
  Tensor filter =
      *Tensor::FromVector<float>(fv).Reshaped(Shape({3, 3, cin, cout}));
  WeightMap w;
  w["f"] = filter;
  w["sizes"] = Tensor::FromVector<int32_t>({1, 8, 8, 6});
  auto g = Build(R"pb(
                   node {
                     name: "dy"
                     op: "Placeholder"
                     attr {
                       key: "dtype"
                       value { type: DT_FLOAT }
                     }
                   }
                   node {
                     name: "sizes"
                     op: "Const"
                     attr {
                       key: "dtype"
                       value { type: DT_INT32 }
                     }
                   }
                   node {
                     name: "f"
                     op: "Const"
                     attr {
                       key: "dtype"
                       value { type: DT_FLOAT }
                     }
                   }
                   node {
                     name: "dx"
                     op: "Conv2DBackpropInput"
                     input: "sizes"
                     input: "f"
                     input: "dy"
                     attr {
                       key: "T"
                       value { type: DT_FLOAT }
                     }
                     attr {
                       key: "strides"
                       value { list { i: 1 i: 2 i: 2 i: 1 } }
                     }
                     attr {
                       key: "padding"
                       value { s: "SAME" }
                     }
                   }
                 )pb",
                 w, BuiltinOps());
  ASSERT_NE(g, nullptr);
  const Node& f = g->node(*g->FindNode("f"));
  EXPECT_TRUE(IsReleasedConst(f.constant));
  EXPECT_FALSE(IsReleasedConst(g->node(*g->FindNode("sizes")).constant));
  std::vector<float> dyv(4 * 4 * cout);
  for (size_t i = 0; i < dyv.size(); ++i) dyv[i] = std::cos(0.07f * i);
  Tensor dy = *Tensor::FromVector<float>(dyv).Reshaped(Shape({1, 4, 4, cout}));
  ResourceManager resources;
  Executor exec(g.get(), &resources, nullptr);
  const Endpoint dye{*g->FindNode("dy"), 0}, dxe{*g->FindNode("dx"), 0};
  auto adopted = exec.Run({{dye, dy}}, {dxe});
  ASSERT_TRUE(adopted.ok()) << adopted.status();
  w.clear();
  EXPECT_TRUE(filter.HasExclusiveBuffer());
  auto fed = exec.Run({{dye, dy}, {Endpoint{f.id, 0}, filter}}, {dxe});
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_TRUE((*adopted)[0].IdenticalTo((*fed)[0]));
}

// A Const the model's signature names stays fetchable: the importer marks
// it and no kernel adopts it (the filter is stored twice, as before).
TEST(ConstAdoptionTest, SignatureConstsAreNotAdopted) {
  if (!nn::DnnlAvailable()) GTEST_SKIP() << "oneDNN off";
  Tensor filter =
      *Tensor::FromVector<float>(std::vector<float>(3 * 3 * 4 * 5, 0.5f))
           .Reshaped(Shape({3, 3, 4, 5}));
  TfjsModel model;
  model.model_dir = model.model_json = "in-memory";
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      absl::StrCat(kConvGraphHead, "Conv2D", kConvGraphTail), &model.topology));
  model.weights["f"] = filter;
  Signature sig;
  sig.inputs.push_back({"x", "x:0"});
  sig.outputs.push_back({"y", "y:0"});
  sig.outputs.push_back({"weights", "f:0"});
  model.signature = sig;
  auto imported = ImportTfjsModel(std::move(model), BuiltinOps());
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Graph& g = *imported->graph;
  const Node& f = g.node(*g.FindNode("f"));
  EXPECT_FALSE(IsReleasedConst(f.constant));
  ResourceManager resources;
  Executor exec(&g, &resources, nullptr);
  Tensor x = *Tensor::FromVector<float>(std::vector<float>(2 * 2 * 4, 1.0f))
                  .Reshaped(Shape({1, 2, 2, 4}));
  auto out = exec.Run({{Endpoint{*g.FindNode("x"), 0}, x}},
                      {Endpoint{*g.FindNode("y"), 0}, Endpoint{f.id, 0}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)[1].IdenticalTo(filter));
}

}  // namespace
}  // namespace graphrt
