#!/usr/bin/env python3
"""Writes hash-table-heavy TF.js graph models (converter TF2 layout, as
models/text_classifier/generate.py, whose protobuf-JSON helpers it reuses):

  --model wide_deep (default): a recommender with several tables
    country   HashTableV2 string->int32  (--countries entries)
    item      HashTableV2 int64->int32   (--items entries, ids 1000, 1007, ...)
    category  HashTableV2 string->int32  (--categories entries)
    label     HashTableV2 int32->string  (class id -> label name)
    deep:  concat(emb_country[country], emb_item[item]) -> Dense+Relu -> Dense
    wide:  wide_weights[category]  (added to the deep logits)
    outputs: probabilities [N, C] (Softmax) and label [N] (string, the
             label table looked up with ArgMax(logits))
  --model pure_lookup: tokens [N, T] string -> ids [N, T] int32 through one
    string->int32 HashTableV2 of --vocab-size entries (Reshape after the
    lookup so TF's [N,T] and TF.js's flattened [N*T] agree).

Python standard library only; deterministic for given arguments.

    models/wide_deep/generate.py                       # beside this file
    models/wide_deep/generate.py --model pure_lookup --vocab-size 1000000 --out-dir DIR
"""

import argparse
import importlib.util
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "text_classifier_generate",
    os.path.join(HERE, "..", "text_classifier", "generate.py"))
tc = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tc)
tc.DT.setdefault("int64", "DT_INT64")


def add_int64(weights, name, shape, values):
    import struct
    n = 1
    for d in shape:
        n *= d
    weights.entries.append({"name": name, "shape": list(shape), "dtype": "int32"})
    # TF.js stores int64 consts as int32 weights; the node keeps DT_INT64.
    weights.chunks.append(struct.pack(f"<{n}i", *values))


def node(name, op, inputs=(), **attr):
    n = {"name": name, "op": op, "attr": attr}
    if inputs:
        n["input"] = list(inputs)
    return n


def T(dt):
    return {"type": dt}


def table(name, key_dt, value_dt):
    return node(name, "HashTableV2",
                container={"s": ""}, shared_name={"s": tc.b64(name)},
                use_node_name_sharing={"b": True},
                key_dtype=T(key_dt), value_dtype=T(value_dt))


def find(name, handle, keys, dflt, key_dt, value_dt):
    return node(name, "LookupTableFindV2", [handle, keys, dflt],
                Tin=T(key_dt), Tout=T(value_dt))


def placeholder(name, dt, dims):
    return node(name, "Placeholder", shape={"shape": tc.shape_proto(dims)}, dtype=T(dt))


class Builder:
    def __init__(self, resource_id_base):
        self.w = tc.Weights()
        self.nodes = []
        self.init_nodes = []
        self.tables = []  # (table node name, resource placeholder, resource id)
        self.rid = resource_id_base

    def const(self, name, dtype, shape, values, init=False):
        if dtype == "int64":
            add_int64(self.w, name, shape, values)
            n = {"name": name, "op": "Const", "attr": {
                "value": {"tensor": {"dtype": "DT_INT64",
                                     "tensorShape": tc.shape_proto(shape)}},
                "dtype": {"type": "DT_INT64"}}}
        else:
            n = tc.const_node(self.w, name, dtype, shape, values)
        (self.init_nodes if init else self.nodes).append(n)
        return name

    def add_table(self, name, key_dt, value_dt, kdtype, keys, vdtype, values):
        i = len(self.tables)
        kname = self.const(f"init/{name}/keys", kdtype, [len(keys)], keys, init=True)
        vname = self.const(f"init/{name}/values", vdtype, [len(values)], values, init=True)
        self.init_nodes.append(table(name, key_dt, value_dt))
        self.init_nodes.append(node(f"init/{name}/LookupTableImportV2",
                                    "LookupTableImportV2", [name, kname, vname],
                                    Tin=T(key_dt), Tout=T(value_dt)))
        ph = "unknown" if i == 0 else f"unknown_{i}"
        self.nodes.append(placeholder(ph, "DT_RESOURCE", []))
        self.tables.append((name, ph, self.rid + i))
        return ph

    def model(self, signature_inputs, signature_outputs, tag):
        noop = node("NoOp", "NoOp", [f"^init/{t[0]}/LookupTableImportV2" for t in self.tables])
        init_nodes = list(self.init_nodes) + [noop]
        init_outputs = {}
        for i, (name, ph, rid) in enumerate(self.tables):
            ident = "Identity" if i == 0 else f"Identity_{i}"
            init_nodes.append(node(ident, "Identity", [name, "^NoOp"], T=T("DT_RESOURCE")))
            init_outputs[f"{ident}:0"] = {"name": f"{ident}:0", "dtype": "DT_RESOURCE",
                                          "tensorShape": {}, "resourceId": rid}
            signature_inputs[f"{ph}:0"] = {"name": f"{ph}:0", "dtype": "DT_RESOURCE",
                                           "tensorShape": {}, "resourceId": rid}
        return {
            "format": "graph-model",
            "generatedBy": f"graphrt models/wide_deep/generate.py --model {tag}",
            "convertedBy": "graphrt generate.py (TensorFlow.js converter layout)",
            "modelTopology": {"node": self.nodes, "library": {},
                              "versions": {"producer": 1240}},
            "signature": {"inputs": signature_inputs, "outputs": signature_outputs},
            "modelInitializer": {"node": init_nodes, "versions": {"producer": 1240}},
            "initializerSignature": {"outputs": init_outputs},
            "weightsManifest": [{"paths": ["group1-shard1of1.bin"],
                                 "weights": self.w.entries}],
        }


def sig(name, dt, dims):
    return {"name": name, "dtype": dt, "tensorShape": tc.shape_proto(dims)}


def build_wide_deep(a):
    rng = random.Random(a.seed)
    b = Builder(100)
    countries = [f"c{i:03d}" for i in range(a.countries)]
    items = [1000 + 7 * i for i in range(a.items)]
    categories = [f"cat_{i}" for i in range(a.categories)]
    labels = [f"label_{i}" for i in range(a.num_classes)]
    D, H, C = a.embed_dim, a.hidden_dim, a.num_classes
    p = "StatefulPartitionedCall/wide_deep"
    # inference consts first (manifest order: inference, then initializer)
    b.const(f"{p}/oov", "int32", [], [0])
    b.const(f"{p}/axis0", "int32", [], [0])
    b.const(f"{p}/axis1", "int32", [], [1])
    b.const(f"{p}/flat", "int32", [1], [-1])
    b.const(f"{p}/unknown_label", "string", [], ["<unknown>"])
    b.const(f"{p}/emb_country", "float32", [a.countries + 1, D],
            tc.uniform(rng, 1.0, (a.countries + 1) * D))
    b.const(f"{p}/emb_item", "float32", [a.items + 1, D],
            tc.uniform(rng, 1.0, (a.items + 1) * D))
    b.const(f"{p}/wide_weights", "float32", [a.categories + 1, C],
            tc.uniform(rng, 1.0, (a.categories + 1) * C))
    b.const(f"{p}/hidden/kernel", "float32", [2 * D, H], tc.glorot(rng, 2 * D, H, 2 * D * H))
    b.const(f"{p}/hidden/bias", "float32", [H], tc.uniform(rng, 0.1, H))
    b.const(f"{p}/logits/kernel", "float32", [H, C], tc.glorot(rng, H, C, H * C))
    b.const(f"{p}/logits/bias", "float32", [C], tc.uniform(rng, 0.1, C))
    b.nodes += [placeholder("country", "DT_STRING", [-1]),
                placeholder("item_id", "DT_INT64", [-1]),
                placeholder("category", "DT_STRING", [-1])]
    t_country = b.add_table("country_table", "DT_STRING", "DT_INT32", "string",
                            countries, "int32", list(range(1, a.countries + 1)))
    t_item = b.add_table("item_table", "DT_INT64", "DT_INT32", "int64",
                         items, "int32", list(range(1, a.items + 1)))
    t_cat = b.add_table("category_table", "DT_STRING", "DT_INT32", "string",
                        categories, "int32", list(range(1, a.categories + 1)))
    t_label = b.add_table("label_table", "DT_INT32", "DT_STRING", "int32",
                          list(range(C)), "string", labels)
    f = lambda x: f"{p}/{x}"
    gather = lambda name, params, ids: node(
        f(name), "GatherV2", [f(params), ids, f("axis0")], Tparams=T("DT_FLOAT"),
        Tindices=T("DT_INT32"), Taxis=T("DT_INT32"), batch_dims={"i": "0"})
    reshape = lambda name, x: node(f(name), "Reshape", [x, f("flat")],
                                   T=T("DT_INT32"), Tshape=T("DT_INT32"))
    b.nodes += [
        find(f("country_lookup"), t_country, "country", f("oov"), "DT_STRING", "DT_INT32"),
        reshape("country_ids", f("country_lookup")),
        find(f("item_lookup"), t_item, "item_id", f("oov"), "DT_INT64", "DT_INT32"),
        reshape("item_ids", f("item_lookup")),
        find(f("category_lookup"), t_cat, "category", f("oov"), "DT_STRING", "DT_INT32"),
        reshape("category_ids", f("category_lookup")),
        gather("country_emb", "emb_country", f("country_ids")),
        gather("item_emb", "emb_item", f("item_ids")),
        gather("wide", "wide_weights", f("category_ids")),
        node(f("deep_in"), "ConcatV2", [f("country_emb"), f("item_emb"), f("axis1")],
             T=T("DT_FLOAT"), Tidx=T("DT_INT32"), N={"i": "2"}),
        node(f("hidden/Relu"), "_FusedMatMul",
             [f("deep_in"), f("hidden/kernel"), f("hidden/bias")],
             T=T("DT_FLOAT"), transpose_a={"b": False}, transpose_b={"b": False},
             fused_ops={"list": {"s": [tc.b64("BiasAdd"), tc.b64("Relu")]}},
             num_args={"i": "1"}, epsilon={"f": 0}, leakyrelu_alpha={"f": 0.2}),
        node(f("logits/MatMul"), "MatMul", [f("hidden/Relu"), f("logits/kernel")],
             T=T("DT_FLOAT"), transpose_a={"b": False}, transpose_b={"b": False}),
        node(f("logits/BiasAdd"), "BiasAdd", [f("logits/MatMul"), f("logits/bias")],
             T=T("DT_FLOAT"), data_format={"s": tc.b64("NHWC")}),
        node(f("logits/add"), "AddV2", [f("logits/BiasAdd"), f("wide")], T=T("DT_FLOAT")),
        node(f("Softmax"), "Softmax", [f("logits/add")], T=T("DT_FLOAT")),
        node(f("ArgMax"), "ArgMax", [f("logits/add"), f("axis1")], T=T("DT_FLOAT"),
             Tidx=T("DT_INT32"), output_type=T("DT_INT32")),
        find(f("label_lookup"), t_label, f("ArgMax"), f("unknown_label"),
             "DT_INT32", "DT_STRING"),
        node("Identity", "Identity", [f("Softmax")], T=T("DT_FLOAT")),
        node("Identity_1", "Identity", [f("label_lookup")], T=T("DT_STRING")),
    ]
    inputs = {"country": sig("country:0", "DT_STRING", [-1]),
              "item_id": sig("item_id:0", "DT_INT64", [-1]),
              "category": sig("category:0", "DT_STRING", [-1])}
    outputs = {"probabilities": sig("Identity:0", "DT_FLOAT", [-1, C]),
               "label": sig("Identity_1:0", "DT_STRING", [-1])}
    model = b.model(inputs, outputs, "wide_deep")
    sample = {"inputs": [
        {"name": "country", "dtype": "string", "shape": [4],
         "strings": ["c001", "c007", "zz", countries[-1]]},
        {"name": "item_id", "dtype": "int32", "shape": [4],
         "data_b64": tc.base64.b64encode(tc.struct.pack(
             "<4i", items[0], items[-1], 5, items[3 % len(items)])).decode("ascii")},
        {"name": "category", "dtype": "string", "shape": [4],
         "strings": ["cat_0", "cat_1", "nope", categories[-1]]}]}
    return model, b.w.blob(), sample


def build_pure_lookup(a):
    b = Builder(200)
    V, Tn = a.vocab_size, a.seq_len
    words = [f"w{i:07d}" for i in range(V)]
    p = "StatefulPartitionedCall/pure_lookup"
    b.const(f"{p}/oov", "int32", [], [-1])
    b.const(f"{p}/ids_shape", "int32", [2], [-1, Tn])
    b.nodes.append(placeholder("tokens", "DT_STRING", [-1, Tn]))
    t = b.add_table("vocab_table", "DT_STRING", "DT_INT32", "string", words,
                    "int32", list(range(V)))
    b.nodes += [
        find(f"{p}/lookup", t, "tokens", f"{p}/oov", "DT_STRING", "DT_INT32"),
        node(f"{p}/ids", "Reshape", [f"{p}/lookup", f"{p}/ids_shape"],
             T=T("DT_INT32"), Tshape=T("DT_INT32")),
        node("Identity", "Identity", [f"{p}/ids"], T=T("DT_INT32")),
    ]
    model = b.model({"tokens": sig("tokens:0", "DT_STRING", [-1, Tn])},
                    {"ids": sig("Identity:0", "DT_INT32", [-1, Tn])}, "pure_lookup")
    toks = [words[0], words[V - 1], "oov-token", words[V // 2]] * (2 * Tn // 4 + 1)
    sample = {"inputs": [{"name": "tokens", "dtype": "string", "shape": [2, Tn],
                          "strings": toks[:2 * Tn]}]}
    return model, b.w.blob(), sample


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", choices=["wide_deep", "pure_lookup"], default="wide_deep")
    ap.add_argument("--countries", type=int, default=50)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--categories", type=int, default=20)
    ap.add_argument("--num-classes", type=int, default=3)
    ap.add_argument("--embed-dim", type=int, default=8)
    ap.add_argument("--hidden-dim", type=int, default=8)
    ap.add_argument("--vocab-size", type=int, default=1000, help="pure_lookup vocab")
    ap.add_argument("--seq-len", type=int, default=8, help="pure_lookup T")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out-dir", default=None,
                    help="default: models/<model> beside this script's folder")
    a = ap.parse_args(argv)
    for k in ("countries", "items", "categories", "num_classes", "embed_dim",
              "hidden_dim", "vocab_size", "seq_len"):
        if getattr(a, k) < 2:
            ap.error(f"--{k.replace('_', '-')} must be at least 2")
    out = a.out_dir or os.path.join(HERE, "..", a.model)
    model, blob, sample = (build_wide_deep if a.model == "wide_deep"
                           else build_pure_lookup)(a)
    os.makedirs(out, exist_ok=True)
    files = {"model.json": json.dumps(model, indent=1).encode() + b"\n",
             "group1-shard1of1.bin": blob,
             "sample_input.json": (json.dumps(sample) + "\n").encode()}
    for name, data in files.items():
        with open(os.path.join(out, name), "wb") as fh:
            fh.write(data)
        print(f"wrote {os.path.join(out, name)} ({len(data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
