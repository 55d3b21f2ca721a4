#!/usr/bin/env python3
"""Writes a small TF.js graph model with v2 control flow: a StatelessWhile
and a StatelessIf over library functions, laid out as the TF.js converter
writes models converted with --control_flow_v2 (function Consts are weights
named "<function>/<const>", function node inputs "node:out_arg:index").

    models/control_flow_v2/generate.py      # writes beside this file

Model:
  x     Placeholder float32 [-1, 4]
  flag  Placeholder bool []
  loop  = StatelessWhile(i=0, acc=x): while i < 3: i += 1; acc = acc*0.5 + i
  pick  = StatelessIf(flag, acc): then acc + acc, else Relu(acc - 2)
  outputs: "result" = pick, "steps" = loop:0 (int32 scalar)
"""

import base64
import json
import os
import struct


def b64(s):
    return base64.b64encode(s.encode()).decode()


def T(dtype="DT_FLOAT"):
    return {"T": {"type": dtype}}


def const(name, dtype):
    return {"name": name, "op": "Const",
            "attr": {"dtype": {"type": dtype},
                     "value": {"tensor": {"dtype": dtype, "tensorShape": {}}}}}


def arg(name, dtype):
    return {"name": name, "type": dtype}


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    weights = []  # (name, dtype, bytes)

    def weight(name, dtype, value):
        if dtype == "float32":
            weights.append((name, dtype, struct.pack("<f", value)))
        else:
            weights.append((name, dtype, struct.pack("<i", value)))

    cond_fn = {
        "signature": {"name": "loop_cond",
                      "inputArg": [arg("i", "DT_INT32"), arg("acc", "DT_FLOAT")],
                      "outputArg": [arg("keep_going", "DT_BOOL")]},
        "nodeDef": [
            const("loop_cond/limit", "DT_INT32"),
            {"name": "less", "op": "Less",
             "input": ["i", "loop_cond/limit:output:0"], "attr": T("DT_INT32")},
        ],
        "ret": {"keep_going": "less:z:0"},
    }
    weight("loop_cond/limit", "int32", 3)
    body_fn = {
        "signature": {"name": "loop_body",
                      "inputArg": [arg("i", "DT_INT32"), arg("acc", "DT_FLOAT")],
                      "outputArg": [arg("i_next", "DT_INT32"),
                                    arg("acc_next", "DT_FLOAT")]},
        "nodeDef": [
            const("loop_body/one", "DT_INT32"),
            const("loop_body/half", "DT_FLOAT"),
            {"name": "i_next", "op": "AddV2",
             "input": ["i", "loop_body/one:output:0"], "attr": T("DT_INT32")},
            {"name": "i_float", "op": "Cast", "input": ["i_next:z:0"],
             "attr": {"SrcT": {"type": "DT_INT32"}, "DstT": {"type": "DT_FLOAT"},
                      "Truncate": {"b": False}}},
            {"name": "scaled", "op": "Mul",
             "input": ["acc", "loop_body/half:output:0"], "attr": T()},
            {"name": "acc_next", "op": "AddV2",
             "input": ["scaled:z:0", "i_float:y:0"], "attr": T()},
        ],
        "ret": {"i_next": "i_next:z:0", "acc_next": "acc_next:z:0"},
    }
    weight("loop_body/one", "int32", 1)
    weight("loop_body/half", "float32", 0.5)
    then_fn = {
        "signature": {"name": "pick_then", "inputArg": [arg("v", "DT_FLOAT")],
                      "outputArg": [arg("out", "DT_FLOAT")]},
        "nodeDef": [{"name": "twice", "op": "AddV2", "input": ["v", "v"],
                     "attr": T()}],
        "ret": {"out": "twice:z:0"},
    }
    else_fn = {
        "signature": {"name": "pick_else", "inputArg": [arg("v", "DT_FLOAT")],
                      "outputArg": [arg("out", "DT_FLOAT")]},
        "nodeDef": [
            const("pick_else/two", "DT_FLOAT"),
            {"name": "shifted", "op": "Sub",
             "input": ["v", "pick_else/two:output:0"], "attr": T()},
            {"name": "relu", "op": "Relu", "input": ["shifted:z:0"], "attr": T()},
        ],
        "ret": {"out": "relu:activations:0"},
    }
    weight("pick_else/two", "float32", 2.0)

    def func_attr(name):
        return {"func": {"name": name}}

    nodes = [
        {"name": "x", "op": "Placeholder",
         "attr": {"dtype": {"type": "DT_FLOAT"},
                  "shape": {"shape": {"dim": [{"size": "-1"}, {"size": "4"}]}}}},
        {"name": "flag", "op": "Placeholder",
         "attr": {"dtype": {"type": "DT_BOOL"}, "shape": {"shape": {}}}},
        const("zero", "DT_INT32"),
        {"name": "loop", "op": "StatelessWhile", "input": ["zero", "x"],
         "attr": {"T": {"list": {"type": ["DT_INT32", "DT_FLOAT"]}},
                  "cond": func_attr("loop_cond"), "body": func_attr("loop_body"),
                  "parallel_iterations": {"i": "10"}}},
        {"name": "pick", "op": "StatelessIf", "input": ["flag", "loop:1"],
         "attr": {"Tcond": {"type": "DT_BOOL"},
                  "Tin": {"list": {"type": ["DT_FLOAT"]}},
                  "Tout": {"list": {"type": ["DT_FLOAT"]}},
                  "then_branch": func_attr("pick_then"),
                  "else_branch": func_attr("pick_else")}},
        {"name": "result", "op": "Identity", "input": ["pick"], "attr": T()},
        {"name": "steps", "op": "Identity", "input": ["loop"],
         "attr": T("DT_INT32")},
    ]
    weights.insert(0, ("zero", "int32", struct.pack("<i", 0)))
    model = {
        "format": "graph-model",
        "generatedBy": "graphrt models/control_flow_v2/generate.py",
        "convertedBy": "graphrt",
        "modelTopology": {
            "node": nodes,
            "library": {"function": [cond_fn, body_fn, then_fn, else_fn]},
            "versions": {"producer": 1240},
        },
        "signature": {
            "inputs": {
                "x": {"name": "x:0", "dtype": "DT_FLOAT",
                      "tensorShape": {"dim": [{"size": "-1"}, {"size": "4"}]}},
                "flag": {"name": "flag:0", "dtype": "DT_BOOL", "tensorShape": {}},
            },
            "outputs": {
                "result": {"name": "result:0", "dtype": "DT_FLOAT"},
                "steps": {"name": "steps:0", "dtype": "DT_INT32"},
            },
        },
        "weightsManifest": [{
            "paths": ["group1-shard1of1.bin"],
            "weights": [{"name": n, "shape": [], "dtype": d}
                        for n, d, _ in weights],
        }],
    }
    with open(os.path.join(here, "model.json"), "w") as f:
        json.dump(model, f, indent=1)
    with open(os.path.join(here, "group1-shard1of1.bin"), "wb") as f:
        f.write(b"".join(w for _, _, w in weights))
    xs = [0.5, -1.0, 2.0, 7.5, -3.0, 0.25, 1.0, 10.0]
    sample = {"inputs": [
        {"name": "x", "dtype": "float32", "shape": [2, 4],
         "data_b64": base64.b64encode(struct.pack("<8f", *xs)).decode()},
        {"name": "flag", "dtype": "bool", "shape": [],
         "data_b64": base64.b64encode(b"\x00").decode()},
    ]}
    with open(os.path.join(here, "sample_input.json"), "w") as f:
        json.dump(sample, f)


if __name__ == "__main__":
    main()
