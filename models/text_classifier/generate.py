#!/usr/bin/env python3
"""Writes graphrt's default model: a small hash-table text classifier laid out
exactly like the TensorFlow.js converter's output for a TF2 SavedModel that
owns a lookup table (compare /work/shared/fixtures/tfjs/hash_table_v2).

Python standard library only (no TensorFlow needed); the output is
deterministic for given arguments.

    models/text_classifier/generate.py            # defaults, writes beside this file
    models/text_classifier/generate.py --vocab-size 5000 --embed-dim 32 --out-dir /tmp/tc

Files written:
    model.json              graph-model JSON: modelTopology (inference graph),
                            modelInitializer (table graph), signature,
                            initializerSignature, weightsManifest
    group1-shard1of1.bin    all Const values, back to back, no padding
    sample_input.json       {"inputs":[{"name":"tokens","dtype":"string",
                            "shape":[2,T],"strings":[...]}]}, with OOV tokens

Model (N = batch, T = --seq-len, V = --vocab-size, D, H, C = dims):

  modelInitializer:
    hash_table (HashTableV2 string->int32, shared_name, use_node_name_sharing)
    key_value_init/LookupTableImportV2(hash_table, vocab_keys, vocab_values)
    Identity(hash_table, ^NoOp)  ->  initializerSignature "Identity:0", resourceId
  inference graph:
    tokens   Placeholder string [-1, T]
    unknown  Placeholder resource [] (signature input "unknown:0", same resourceId)
    ids      = LookupTableFindV2(unknown, tokens, oov_id)   TF: [N,T], TF.js: [N*T]
    ids2d    = Reshape(ids, [-1, T])                        same [N,T] for both
    emb      = GatherV2(embedding [V,D], ids2d, axis 0)     [N,T,D]
    pooled   = Mean(emb, [1])                               [N,D]
    hidden   = _FusedMatMul(pooled, w1, b1; BiasAdd, Relu)  [N,H]
    logits   = BiasAdd(MatMul(hidden, w2), b2)              [N,C]
    Identity = Identity(Softmax(logits))    signature output "probabilities"

Vocabulary: id 0 "<pad>", id 1 "<unk>" (also the OOV default), a few real
English words, then synthetic words "w0001", "w0002", ... up to V entries.
"""

import argparse
import base64
import json
import math
import os
import random
import struct
import sys

REAL_WORDS = [
    "the", "a", "and", "but", "not", "very", "is", "was", "this", "that",
    "movie", "film", "book", "music", "story", "acting", "plot", "food",
    "service", "place", "good", "great", "excellent", "love", "loved", "fun",
    "bad", "terrible", "awful", "boring", "hate", "hated", "slow", "okay",
    "fine", "average", "why", "how", "what", "when", "who", "question",
]


def parse_args(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--vocab-size", type=int, default=1000,
                   help="table entries incl. <pad>, <unk> (default 1000)")
    p.add_argument("--embed-dim", type=int, default=16, help="D (default 16)")
    p.add_argument("--hidden-dim", type=int, default=16, help="H (default 16)")
    p.add_argument("--num-classes", type=int, default=4, help="C (default 4)")
    p.add_argument("--seq-len", type=int, default=8,
                   help="T, tokens per example (default 8)")
    p.add_argument("--seed", type=int, default=20240601,
                   help="weight seed (default 20240601)")
    p.add_argument("--resource-id", type=int, default=42,
                   help="resourceId binding initializer -> inference (default 42)")
    p.add_argument("--out-dir", default=here,
                   help="output directory (default: this script's directory)")
    a = p.parse_args(argv)
    if a.vocab_size < 2 + len(REAL_WORDS):
        p.error(f"--vocab-size must be at least {2 + len(REAL_WORDS)}")
    for name in ("embed_dim", "hidden_dim", "num_classes", "seq_len"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be positive")
    return a


def vocabulary(size):
    words = ["<pad>", "<unk>"] + REAL_WORDS
    i = 1
    while len(words) < size:
        words.append(f"w{i:04d}")
        i += 1
    return words


# --- protobuf-JSON helpers (proto3 JSON as the converter writes it) ---------

def shape_proto(dims):
    """TensorShapeProto JSON: int64 sizes are strings; {} is a scalar."""
    return {"dim": [{"size": str(d)} for d in dims]} if dims else {}


def b64(s):
    return base64.b64encode(s.encode("utf-8")).decode("ascii")


DT = {"float32": "DT_FLOAT", "int32": "DT_INT32", "string": "DT_STRING"}


class Weights:
    """Collects Const values in manifest order; serializes them back to back."""

    def __init__(self):
        self.entries = []   # manifest entries
        self.chunks = []    # bytes per entry

    def add(self, name, dtype, shape, values):
        n = 1
        for d in shape:
            n *= d
        assert len(values) == n, (name, len(values), n)
        if dtype == "float32":
            data = struct.pack(f"<{n}f", *values)
        elif dtype == "int32":
            data = struct.pack(f"<{n}i", *values)
        elif dtype == "string":
            # Each element: uint32 little-endian byte length, then the bytes.
            parts = []
            for s in values:
                raw = s.encode("utf-8")
                parts.append(struct.pack("<I", len(raw)) + raw)
            data = b"".join(parts)
        else:
            raise ValueError(dtype)
        self.entries.append({"name": name, "shape": list(shape), "dtype": dtype})
        self.chunks.append(data)

    def blob(self):
        return b"".join(self.chunks)


def const_node(weights, name, dtype, shape, values):
    weights.add(name, dtype, shape, values)
    return {
        "name": name,
        "op": "Const",
        "attr": {
            "value": {"tensor": {"dtype": DT[dtype], "tensorShape": shape_proto(shape)}},
            "dtype": {"type": DT[dtype]},
        },
    }


def glorot(rng, fan_in, fan_out, count):
    limit = math.sqrt(6.0 / (fan_in + fan_out))
    return [(2.0 * rng.random() - 1.0) * limit for _ in range(count)]


def uniform(rng, scale, count):
    return [(2.0 * rng.random() - 1.0) * scale for _ in range(count)]


def build(args):
    V, D, H, C, T = (args.vocab_size, args.embed_dim, args.hidden_dim,
                     args.num_classes, args.seq_len)
    rng = random.Random(args.seed)
    words = vocabulary(V)
    oov_id = 1
    w = Weights()
    prefix = "StatefulPartitionedCall/text_classifier"

    # ---- inference graph (its Consts come first in the manifest) ----------
    nodes = [
        const_node(w, f"{prefix}/oov_id", "int32", [], [oov_id]),
        const_node(w, f"{prefix}/ids_shape", "int32", [2], [-1, T]),
        const_node(w, f"{prefix}/embedding/embeddings", "float32", [V, D],
                   uniform(rng, 1.0, V * D)),
        const_node(w, f"{prefix}/embedding/axis", "int32", [], [0]),
        const_node(w, f"{prefix}/pooling/reduction_indices", "int32", [1], [1]),
        const_node(w, f"{prefix}/hidden/kernel", "float32", [D, H],
                   glorot(rng, D, H, D * H)),
        const_node(w, f"{prefix}/hidden/bias", "float32", [H],
                   uniform(rng, 0.1, H)),
        const_node(w, f"{prefix}/logits/kernel", "float32", [H, C],
                   [4.0 * x for x in glorot(rng, H, C, H * C)]),
        const_node(w, f"{prefix}/logits/bias", "float32", [C],
                   uniform(rng, 0.1, C)),
        {
            "name": "tokens",
            "op": "Placeholder",
            "attr": {
                "shape": {"shape": shape_proto([-1, T])},
                "dtype": {"type": "DT_STRING"},
            },
        },
        {
            "name": "unknown",
            "op": "Placeholder",
            "attr": {"shape": {"shape": {}}, "dtype": {"type": "DT_RESOURCE"}},
        },
        {
            "name": f"{prefix}/vocab_lookup/LookupTableFindV2",
            "op": "LookupTableFindV2",
            "input": ["unknown", "tokens", f"{prefix}/oov_id"],
            "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_INT32"}},
        },
        {
            # TF keeps [N,T]; TF.js flattens the lookup to [N*T]: pin [-1,T].
            "name": f"{prefix}/ids",
            "op": "Reshape",
            "input": [f"{prefix}/vocab_lookup/LookupTableFindV2",
                      f"{prefix}/ids_shape"],
            "attr": {"T": {"type": "DT_INT32"}, "Tshape": {"type": "DT_INT32"}},
        },
        {
            "name": f"{prefix}/embedding/embedding_lookup",
            "op": "GatherV2",
            "input": [f"{prefix}/embedding/embeddings", f"{prefix}/ids",
                      f"{prefix}/embedding/axis"],
            "attr": {
                "Tparams": {"type": "DT_FLOAT"},
                "Tindices": {"type": "DT_INT32"},
                "Taxis": {"type": "DT_INT32"},
                "batch_dims": {"i": "0"},
            },
        },
        {
            "name": f"{prefix}/pooling/Mean",
            "op": "Mean",
            "input": [f"{prefix}/embedding/embedding_lookup",
                      f"{prefix}/pooling/reduction_indices"],
            "attr": {
                "T": {"type": "DT_FLOAT"},
                "Tidx": {"type": "DT_INT32"},
                "keep_dims": {"b": False},
            },
        },
        {
            "name": f"{prefix}/hidden/Relu",
            "op": "_FusedMatMul",
            "input": [f"{prefix}/pooling/Mean", f"{prefix}/hidden/kernel",
                      f"{prefix}/hidden/bias"],
            "device": "/device:CPU:0",
            "attr": {
                "T": {"type": "DT_FLOAT"},
                "transpose_a": {"b": False},
                "transpose_b": {"b": False},
                "fused_ops": {"list": {"s": [b64("BiasAdd"), b64("Relu")]}},
                "num_args": {"i": "1"},
                "epsilon": {"f": 0},
                "leakyrelu_alpha": {"f": 0.2},
            },
        },
        {
            "name": f"{prefix}/logits/MatMul",
            "op": "MatMul",
            "input": [f"{prefix}/hidden/Relu", f"{prefix}/logits/kernel"],
            "device": "/device:CPU:0",
            "attr": {
                "T": {"type": "DT_FLOAT"},
                "transpose_a": {"b": False},
                "transpose_b": {"b": False},
            },
        },
        {
            "name": f"{prefix}/logits/BiasAdd",
            "op": "BiasAdd",
            "input": [f"{prefix}/logits/MatMul", f"{prefix}/logits/bias"],
            "attr": {"T": {"type": "DT_FLOAT"}, "data_format": {"s": b64("NHWC")}},
        },
        {
            "name": f"{prefix}/probabilities/Softmax",
            "op": "Softmax",
            "input": [f"{prefix}/logits/BiasAdd"],
            "attr": {"T": {"type": "DT_FLOAT"}},
        },
        {
            "name": "Identity",
            "op": "Identity",
            "input": [f"{prefix}/probabilities/Softmax"],
            "attr": {"T": {"type": "DT_FLOAT"}},
        },
    ]

    # ---- initializer graph (its Consts follow in the manifest) -------------
    init_prefix = "StatefulPartitionedCall_1/text_classifier"
    init_nodes = [
        const_node(w, f"{init_prefix}/vocab_keys", "string", [V], words),
        const_node(w, f"{init_prefix}/vocab_values", "int32", [V], list(range(V))),
        {
            "name": "hash_table",
            "op": "HashTableV2",
            "attr": {
                "container": {"s": ""},
                "shared_name": {"s": b64(f"text_classifier_vocab_{V}")},
                "use_node_name_sharing": {"b": True},
                "key_dtype": {"type": "DT_STRING"},
                "value_dtype": {"type": "DT_INT32"},
            },
        },
        {
            "name": f"{init_prefix}/key_value_init/LookupTableImportV2",
            "op": "LookupTableImportV2",
            "input": ["hash_table", f"{init_prefix}/vocab_keys",
                      f"{init_prefix}/vocab_values"],
            "attr": {"Tin": {"type": "DT_STRING"}, "Tout": {"type": "DT_INT32"}},
        },
        {
            "name": "NoOp",
            "op": "NoOp",
            "input": [f"^{init_prefix}/key_value_init/LookupTableImportV2"],
        },
        {
            "name": "Identity",
            "op": "Identity",
            "input": ["hash_table", "^NoOp"],
            "attr": {"T": {"type": "DT_RESOURCE"}},
        },
    ]

    model = {
        "format": "graph-model",
        "generatedBy": "graphrt models/text_classifier/generate.py",
        "convertedBy": "graphrt generate.py (TensorFlow.js converter layout)",
        "modelTopology": {
            "node": nodes,
            "library": {},
            "versions": {"producer": 1240},
        },
        "signature": {
            "inputs": {
                "tokens": {
                    "name": "tokens:0",
                    "dtype": "DT_STRING",
                    "tensorShape": shape_proto([-1, T]),
                },
                "unknown:0": {
                    "name": "unknown:0",
                    "dtype": "DT_RESOURCE",
                    "tensorShape": {},
                    "resourceId": args.resource_id,
                },
            },
            "outputs": {
                "probabilities": {
                    "name": "Identity:0",
                    "dtype": "DT_FLOAT",
                    "tensorShape": shape_proto([-1, C]),
                },
            },
        },
        "modelInitializer": {
            "node": init_nodes,
            "versions": {"producer": 1240},
        },
        "initializerSignature": {
            "outputs": {
                "Identity:0": {
                    "name": "Identity:0",
                    "dtype": "DT_RESOURCE",
                    "tensorShape": {},
                    "resourceId": args.resource_id,
                },
            },
        },
        "userDefinedMetadata": {
            "text_classifier": {
                "seq_len": T,
                "vocab_size": V,
                "pad_token": "<pad>",
                "oov_token": "<unk>",
                "oov_id": oov_id,
                "num_classes": C,
            },
        },
        "weightsManifest": [
            {"paths": ["group1-shard1of1.bin"], "weights": w.entries},
        ],
    }
    return model, w.blob(), words


def sample_input(words, T):
    # Two examples; "zzz-not-a-word" and "w9999" (beyond the default vocab)
    # are out of vocabulary, "<pad>" fills short sequences.
    rows = [
        ["the", "movie", "was", "great", "zzz-not-a-word", "<pad>", "<pad>", "<pad>"],
        ["w0123", "terrible", "acting", "but", "good", "music", "w9999", "Good"],
    ]
    strings = []
    for row in rows:
        row = (row + ["<pad>"] * T)[:T]
        strings.extend(row)
    return {"inputs": [{"name": "tokens", "dtype": "string", "shape": [len(rows), T],
                        "strings": strings}]}


def main(argv):
    args = parse_args(argv)
    model, blob, words = build(args)
    os.makedirs(args.out_dir, exist_ok=True)
    paths = {
        "model.json": json.dumps(model, indent=1).encode("utf-8") + b"\n",
        "group1-shard1of1.bin": blob,
        "sample_input.json": (json.dumps(sample_input(words, args.seq_len))
                              + "\n").encode("utf-8"),
    }
    total = 0
    for name, data in paths.items():
        with open(os.path.join(args.out_dir, name), "wb") as f:
            f.write(data)
        total += len(data)
        print(f"wrote {os.path.join(args.out_dir, name)} ({len(data)} bytes)")
    print(f"total {total} bytes; vocab {args.vocab_size}, D={args.embed_dim}, "
          f"H={args.hidden_dim}, C={args.num_classes}, T={args.seq_len}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
