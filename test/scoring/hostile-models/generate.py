"""The hostile-model corpus for model-check.test.ts: models an attacker who controls the sandbox
could hand back in place of onnx_export.py's. Each is written as OUT_DIR/<case>.onnx, and
OUT_DIR/cases.json maps every case to what it tries. None of these may ever reach onnxruntime:
the test only hands them to checkModel, which must refuse every one.

Built with the onnx package on the trusted test side (its helpers for the semantic cases, raw
protobuf bytes for the wire-level ones), starting from honest exports of small models.

usage: /usr/bin/python3 generate.py OUT_DIR
"""
import json
import os
import random
import sys

import numpy as np
import onnx
from onnx import AttributeProto, TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "src", "sandbox", "python"))
from onnx_export import export_model  # noqa: E402

N_FEATURES = 7
CASES = {}


def case(name, why, data):
    assert name not in CASES, name
    CASES[name] = (why, data if isinstance(data, bytes) else data.SerializeToString())


# --- protobuf bytes by hand --------------------------------------------------------------------

def varint(n):
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field(number, wire_type, payload=b""):
    tag = varint(number << 3 | wire_type)
    if wire_type == 2:
        return tag + varint(len(payload)) + payload
    return tag + payload


def with_graph_bytes(model, extra):
    """The model with raw bytes appended inside its graph message."""
    graph = model.graph.SerializeToString() + extra
    rest = onnx.ModelProto()
    rest.CopyFrom(model)
    rest.ClearField("graph")
    return rest.SerializeToString() + field(7, 2, graph)


def with_node_bytes(model, index, extra):
    """The model with raw bytes appended inside node `index`."""
    g = onnx.GraphProto()
    g.CopyFrom(model.graph)
    nodes = [n.SerializeToString() for n in g.node]
    nodes[index] += extra
    g.ClearField("node")
    rest = onnx.ModelProto()
    rest.CopyFrom(model)
    rest.ClearField("graph")
    return rest.SerializeToString() + field(7, 2, b"".join(field(1, 2, n) for n in nodes) + g.SerializeToString())


# --- honest bases ------------------------------------------------------------------------------

def honest():
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression

    rng = np.random.RandomState(3)
    X = rng.rand(300, N_FEATURES)
    y = (X[:, 0] + rng.rand(300) * 0.3 > 0.6).astype(np.int64)
    lr = onnx.load_from_string(export_model(LogisticRegression().fit(X, y), N_FEATURES))
    rf = onnx.load_from_string(export_model(RandomForestClassifier(n_estimators=3, max_depth=4, random_state=0).fit(X, y), N_FEATURES))
    return lr, rf


def copy(model):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    return m


def init(model, name):
    return next(t for t in model.graph.initializer if t.name == name)


def attr(node, name):
    return next(a for a in node.attribute if a.name == name)


def x_float(n_features=N_FEATURES):
    return helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", n_features])


def p_float(k=2):
    return helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", k])


def model_of(nodes, inits=(), inputs=None, outputs=None, opsets=(("", 17), ("ai.onnx.ml", 3)), **kw):
    graph = helper.make_graph(nodes, "signalforge_hostile", inputs or [x_float()], outputs or [p_float()], initializer=list(inits))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets], producer_name="signalforge", **kw)
    return m


def external(model, name, location, **more):
    """Initializer `name` moved to ONNX external data at `location` (the red team's file reads)."""
    m = copy(model)
    t = init(m, name)
    t.ClearField("double_data")
    t.data_location = TensorProto.EXTERNAL
    for k, v in {"location": location, **more}.items():
        e = t.external_data.add()
        e.key, e.value = k, str(v)
    return m


def build(out):
    lr, rf = honest()
    rf_node = rf.graph.node[0]

    # External data, data_location, raw data: tensor data only inline, in the typed fields.
    case("external_package_json", "coef read byte by byte from package.json by relative path", external(lr, "coef", "package.json"))
    case("external_parent_dir", "external data by ../ path", external(lr, "coef", "../x"))
    case("external_absolute", "external data by absolute path", external(lr, "coef", "/etc/passwd"))
    case("external_git_config_offset", "external data with offset and length", external(lr, "coef", ".git/config", offset=0, length=56))
    case("external_object_store_block", "external data into the object store", external(lr, "coef", "data/nats/jetstream/blk.1"))
    m = copy(lr)
    init(m, "coef").ClearField("double_data")
    init(m, "coef").data_location = TensorProto.EXTERNAL
    case("data_location_external_no_entries", "data_location EXTERNAL with no external_data entries", m)
    m = external(lr, "one", "empty.bin", length=0)
    del init(m, "one").dims[:]
    init(m, "one").dims.append(0)
    case("external_zero_length", "zero-length external initializer over an empty file (onnxruntime abort)", m)
    m = copy(lr)
    t = init(m, "coef")
    t.raw_data = np.asarray(t.double_data, dtype="<f8").tobytes()
    t.ClearField("double_data")
    case("raw_data", "initializer data as raw_data, which the exporter never writes", m)
    m = copy(lr)
    t = init(m, "coef")
    t.segment.begin, t.segment.end = 0, 1
    case("tensor_segment", "a tensor segment", m)

    # Control flow and subgraphs.
    body = helper.make_graph(
        [helper.make_node("MatMul", ["big", "big"], ["big_out"])], "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []), helper.make_tensor_value_info("big_out", TensorProto.FLOAT, [64, 64])])
    loop = model_of([helper.make_node("Loop", ["trip", "cond"], ["loop_out"], body=body), *rf.graph.node],
                    [helper.make_tensor("trip", TensorProto.INT64, [], [10 ** 9]), helper.make_tensor("cond", TensorProto.BOOL, [], [True]),
                     helper.make_tensor("big", TensorProto.FLOAT, [64, 64], [1.0] * 64 * 64)])
    case("loop_of_matmuls", "a Loop of MatMuls run 10^9 times (the event-loop freeze)", loop)
    branch = helper.make_graph([helper.make_node("Identity", ["X"], ["y"])], "b", [], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    case("if_subgraph", "an If with then/else subgraphs",
         model_of([helper.make_node("If", ["cond"], ["probabilities"], then_branch=branch, else_branch=branch)],
                  [helper.make_tensor("cond", TensorProto.BOOL, [], [True])]))
    scan_body = helper.make_graph([helper.make_node("Identity", ["s"], ["s_out"])], "scan",
                                  [helper.make_tensor_value_info("s", TensorProto.FLOAT, [N_FEATURES])],
                                  [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [N_FEATURES])])
    case("scan_subgraph", "a Scan with a body graph",
         model_of([helper.make_node("Scan", ["X"], ["probabilities"], body=scan_body, num_scan_inputs=1)]))
    m = copy(rf)
    m.graph.node[0].attribute.append(helper.make_attribute("body", [branch, branch]))
    case("graphs_attribute", "a list-of-graphs attribute on an allowed operator", m)

    # Huge constants and expensive graphs.
    big = TensorProto()
    big.name, big.data_type = "coef", TensorProto.DOUBLE
    big.dims.extend([1 << 16, 1 << 12])  # 2 GiB of doubles declared, no data
    m = copy(lr)
    init(m, "coef").CopyFrom(big)
    case("huge_declared_dims", "an initializer declaring 2 GiB of doubles", m)
    case("constant_of_shape_huge", "ConstantOfShape of a 2 GiB shape",
         model_of([helper.make_node("ConstantOfShape", ["shape"], ["huge"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
                   helper.make_node("ReduceSum", ["huge", "axes"], ["probabilities"], keepdims=1)],
                  [helper.make_tensor("shape", TensorProto.INT64, [2], [1 << 16, 1 << 13]),
                   helper.make_tensor("axes", TensorProto.INT64, [1], [1])]))
    case("constant_node", "a Constant node with a tensor attribute",
         model_of([helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", TensorProto.FLOAT, [2], [0.5, 0.5])),
                   helper.make_node("Add", ["X", "c"], ["probabilities"])]))
    w = helper.make_tensor("w", TensorProto.FLOAT, [N_FEATURES, N_FEATURES], [0.1] * N_FEATURES ** 2)
    chain = [helper.make_node("MatMul", ["X" if i == 0 else f"h{i}", "w"], [f"h{i + 1}"]) for i in range(40)]
    chain.append(helper.make_node("Concat", ["h40", "h40"], ["probabilities"], axis=1))
    case("matmul_chain", "a chain of 40 MatMuls", model_of(chain, [w]))
    sq = helper.make_tensor("sq", TensorProto.DOUBLE, [256, 256], [0.0] * 256 * 256)
    case("matmul_wide_weight", "a MatMul weight of 256×256, far past any coefficient matrix",
         model_of([helper.make_node("Cast", ["X"], ["x64"], to=TensorProto.DOUBLE), helper.make_node("MatMul", ["x64", "sq"], ["h"]),
                   helper.make_node("Cast", ["h"], ["probabilities"], to=TensorProto.FLOAT)], [sq],
                  inputs=[x_float(256)]))
    case("broadcast_blowup", "an Add that broadcasts [N, 2] against [512, 1]",
         model_of([helper.make_node("Cast", ["X"], ["x64"], to=TensorProto.DOUBLE),
                   helper.make_node("MatMul", ["x64", "w64"], ["h"]),
                   helper.make_node("Add", ["h", "b"], ["h2"]),
                   helper.make_node("Cast", ["h2"], ["probabilities"], to=TensorProto.FLOAT)],
                  [helper.make_tensor("w64", TensorProto.DOUBLE, [N_FEATURES, 2], [0.0] * N_FEATURES * 2),
                   helper.make_tensor("b", TensorProto.DOUBLE, [512, 1], [0.0] * 512)]))
    case("computed_width_mismatch", "a graph computing [N, 2] under a declared [N, 3]",
         model_of([helper.make_node("Cast", ["X"], ["x64"], to=TensorProto.DOUBLE),
                   helper.make_node("MatMul", ["x64", "w64"], ["h"]),
                   helper.make_node("Cast", ["h"], ["probabilities"], to=TensorProto.FLOAT)],
                  [helper.make_tensor("w64", TensorProto.DOUBLE, [N_FEATURES, 2], [0.0] * N_FEATURES * 2)],
                  outputs=[p_float(3)]))

    # Operators and domains.
    m = copy(rf)
    m.graph.node[0].domain = "com.evil"
    case("unknown_domain", "the tree node in an unknown domain", m)
    m = copy(lr)
    m.graph.node[1].op_type = "EvilOp"
    case("custom_op", "a custom operator in the default domain", m)
    m = copy(lr)
    m.graph.node[3].op_type = "Gelu"
    m.graph.node[3].domain = "com.microsoft"
    m.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    case("contrib_op", "an onnxruntime contrib operator with its domain imported", m)
    m = copy(lr)
    m.graph.node.insert(1, helper.make_node("Identity", ["X64"], ["X64b"]))
    m.graph.node[2].input[0] = "X64b"
    case("identity_op", "a standard operator the exporter never uses", m)
    m = copy(rf)
    attr(m.graph.node[0], "post_transform").s = b"SOFTMAX"
    case("tree_post_transform", "a post_transform the exporter never writes", m)

    # Opset games.
    for name, why, opsets in (
        ("opset_1", "default domain opset 1", (("", 1), ("ai.onnx.ml", 3))),
        ("opset_99", "default domain opset 99", (("", 99), ("ai.onnx.ml", 3))),
        ("ml_opset_1", "ai.onnx.ml opset 1", (("", 17), ("ai.onnx.ml", 1))),
        ("duplicate_domain_import", "the default domain imported twice", (("", 17), ("", 11), ("ai.onnx.ml", 3))),
        ("missing_ml_domain", "no ai.onnx.ml import", (("", 17),)),
        ("extra_domain_import", "an extra domain imported", (("", 17), ("ai.onnx.ml", 3), ("com.microsoft", 1))),
    ):
        m = copy(rf)
        del m.opset_import[:]
        m.opset_import.extend(helper.make_opsetid(d, v) for d, v in opsets)
        case(name, why, m)
    m = copy(rf)
    m.opset_import[0].domain = "ai.onnx"
    case("opset_ai_onnx_alias", "the default domain imported by its alias ai.onnx", m)
    for v in (3, 99):
        m = copy(lr)
        m.ir_version = v
        case(f"ir_version_{v}", f"IR version {v}", m)

    # Wire-level damage.
    honest_bytes = lr.SerializeToString()
    for at in (1, 5, len(honest_bytes) // 2, len(honest_bytes) - 1):
        case(f"truncated_at_{at}", f"the honest model cut at byte {at}", honest_bytes[:at])
    rf_bytes = rf.SerializeToString()
    case("truncated_in_tree_attributes", "a tree model cut inside its attribute arrays", rf_bytes[:len(rf_bytes) * 3 // 5])
    case("trailing_zero_bytes", "zero bytes after the model", honest_bytes + b"\0\0\0\0")
    case("trailing_duplicate_field", "a second producer_name after the model", honest_bytes + field(2, 2, b"evil"))
    case("trailing_second_graph", "a second graph after the model (protobuf would merge it)", honest_bytes + field(7, 2, field(1, 2, field(4, 2, b"Identity"))))
    case("unknown_model_field", "an unknown ModelProto field", honest_bytes + field(99, 0, varint(1)))
    case("unknown_tensor_field", "an unknown field inside an initializer",
         with_graph_bytes(lr, field(5, 2, helper.make_tensor("u", TensorProto.FLOAT, [], [1.0]).SerializeToString() + field(50, 0, varint(7)))))
    case("unknown_attribute_field", "an unknown field inside an attribute",
         with_node_bytes(rf, 0, field(5, 2, helper.make_attribute("zz", 1).SerializeToString() + field(40, 2, b"x"))))
    case("wrong_wire_type_ir_version", "ir_version sent as a length-delimited field", field(1, 2, b"\x08") + honest_bytes[2:])
    case("wrong_wire_type_message", "an opset import sent as a varint", honest_bytes + field(8, 0, varint(5)))
    case("wrong_wire_type_floats", "a floats attribute value sent as a fixed64",
         with_node_bytes(rf, 0, field(5, 2, field(1, 2, b"zz") + field(7, 1, b"\0" * 8))))
    case("group_wire_type", "a protobuf group (wire types 3/4)", honest_bytes + field(8, 3) + field(8, 4))
    case("packed_run_overrun", "a packed ints run whose last varint runs past its length",
         with_node_bytes(rf, 0, field(5, 2, field(1, 2, b"zz") + field(8, 2, b"\x01\x81"))))
    case("non_canonical_varint", "ir_version as a padded varint", b"\x08\x88\x00" + honest_bytes[2:])
    case("long_tag_varint", "a 10-byte tag whose low bits alias field 2", honest_bytes + b"\x92\x80\x80\x80\x80\x80\x80\x80\x80\x01" + b"\x01x")
    nest = b""
    for _ in range(2000):
        nest = field(7, 2, nest)
    case("deep_nesting", "graph inside graph 2000 levels deep", nest)
    seq = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", N_FEATURES])
    for _ in range(200):
        inner = seq.type
        t = onnx.TypeProto()
        t.sequence_type.elem_type.CopyFrom(inner)
        seq = onnx.ValueInfoProto(name="X", type=t)
    m = copy(lr)
    m.graph.input[0].CopyFrom(seq)
    case("nested_sequence_types", "X as a sequence of sequences 200 deep", m)

    # Graph structure.
    m = copy(lr)
    m.graph.node[1].output[0] = "X"
    case("output_shadows_X", "a node output named X", m)
    m = copy(lr)
    m.graph.node[1].output[0] = "coef"
    case("output_shadows_initializer", "a node output named like an initializer", m)
    case("cycle", "two nodes reading each other's output",
         model_of([helper.make_node("Add", ["X", "b"], ["a"]), helper.make_node("Add", ["a", "X"], ["b"]),
                   helper.make_node("Concat", ["a", "b"], ["probabilities"], axis=1)]))
    m = copy(lr)
    m.graph.node.append(m.graph.node[0])
    del m.graph.node[0]
    case("use_before_definition", "nodes out of order", m)
    m = copy(lr)
    del m.graph.input[:]
    case("missing_input", "no graph input", m)
    m = copy(lr)
    m.graph.input.append(helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["N", 1]))
    case("extra_input", "a second graph input", m)
    m = copy(lr)
    m.graph.input[0].name = "features"
    case("input_renamed", "the input not named X", m)
    m = copy(lr)
    del m.graph.output[:]
    case("missing_output", "no graph output", m)
    m = copy(rf)
    m.graph.output.append(helper.make_tensor_value_info("label_unused", TensorProto.INT64, ["N"]))
    case("extra_output", "a second graph output", m)
    m = copy(lr)
    m.graph.input[0].type.tensor_type.elem_type = TensorProto.DOUBLE
    case("input_double", "X declared double", m)
    m = copy(rf)
    m.graph.output[0].type.tensor_type.elem_type = TensorProto.INT64
    case("output_int64", "probabilities declared int64", m)
    m = copy(lr)
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_param = "F"
    case("input_free_width", "X without a fixed feature count", m)
    m = copy(lr)
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = 1 << 30
    case("input_fixed_batch", "X with a fixed batch of 2^30 rows", m)
    m = copy(rf)
    m.graph.output[0].type.tensor_type.shape.dim[1].dim_value = 3
    case("output_width_mismatch", "probabilities declared 3 wide, computed 2", m)
    m = copy(lr)
    m.graph.input[0].type.tensor_type.shape.dim[1].dim_value = 300
    case("too_many_features", "X 300 features wide", m)
    m = copy(lr)
    m.graph.node[-1].attribute[0].i = TensorProto.STRING
    case("cast_to_string", "the last Cast to a string tensor", m)
    m = copy(lr)
    m.graph.initializer.append(helper.make_tensor("names", TensorProto.STRING, [2], [b"a", b"b"]))
    case("string_tensor", "a string initializer", m)
    m = copy(lr)
    m.graph.node[1].input[1] = ""
    case("empty_input_name", "an empty input name (an omitted optional input)", m)
    m = copy(lr)
    m.graph.value_info.append(helper.make_tensor_value_info("xw", TensorProto.DOUBLE, ["N", 1]))
    case("value_info", "value_info, which the exporter never writes", m)

    m = copy(rf)
    m.graph.node.insert(0, helper.make_node("Cast", ["X"], ["X64"], to=TensorProto.DOUBLE))
    m.graph.node[1].input[0] = "X64"
    case("tree_fed_by_double", "the tree ensemble fed a computed value, not X", m)
    m = copy(lr)
    m.graph.node.append(helper.make_node("ReduceSum", ["p64", "axes0"], ["unused"], keepdims=1))
    m.graph.initializer.append(helper.make_tensor("axes0", TensorProto.INT64, [1], [0]))
    case("reduce_over_rows", "a ReduceSum over the batch axis", m)
    m = copy(lr)
    m.graph.node[-1].output[0] = "probabilities_unused"
    m.graph.initializer.append(helper.make_tensor("probabilities", TensorProto.FLOAT, [1, 2], [0.5, 0.5]))
    case("constant_output", "probabilities as a constant initializer", m)

    # Initializer games.
    m = copy(lr)
    del init(m, "coef").double_data[3:]
    case("dims_not_matching_data", "coef with fewer values than its dims", m)
    m = copy(lr)
    init(m, "coef").dims[0] = N_FEATURES + 1
    case("dims_more_than_data", "coef declaring more rows than it holds", m)
    m = copy(lr)
    init(m, "coef").float_data.extend([1.0] * N_FEATURES)
    case("data_in_two_fields", "coef with float_data beside double_data", m)
    m = copy(lr)
    init(m, "one").dims.extend([1, 1, 1])
    case("rank_too_high", "a rank-3 initializer", m)
    m = copy(lr)
    m.graph.initializer.append(init(m, "one"))
    case("duplicate_initializer", "the same initializer twice", m)
    m = copy(lr)
    sparse = helper.make_sparse_tensor(helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0]),
                                       helper.make_tensor("i", TensorProto.INT64, [1], [0]), [1 << 30])
    m.graph.sparse_initializer.append(sparse)
    case("sparse_initializer", "a sparse initializer of 2^30 declared elements", m)

    # Model-level extras.
    m = copy(lr)
    m.functions.append(onnx.FunctionProto(name="f", domain="local", node=[helper.make_node("Identity", ["a"], ["b"])], input=["a"], output=["b"]))
    case("function", "a model-local function", m)
    m = copy(lr)
    m.training_info.add().algorithm.CopyFrom(lr.graph)
    case("training_info", "training info with a graph", m)
    m = copy(lr)
    for i in range(100_000):
        e = m.metadata_props.add()
        e.key, e.value = f"k{i}", "v" * 16
    case("metadata_bomb", "100,000 metadata entries", m)
    m = copy(lr)
    m.doc_string = "d" * (8 << 20)
    case("doc_string_bomb", "an 8 MB doc string", m)
    m = copy(lr)
    m.producer_name = "pytorch"
    case("other_producer", "a model from another producer", m)
    m = copy(lr)
    m.graph.name = "g" * 5000
    case("long_name", "a graph name of 5000 bytes", m)
    m = copy(lr)
    m.graph.node[0].name = "caf\u00e9"
    case("non_ascii_name", "a non-ASCII node name", m)

    # Tree ensembles that are not trees, or too big.
    def rf_with(change):
        m = copy(rf)
        change(m.graph.node[0])
        return m

    case("tree_cycle", "a branch whose child is itself's ancestor",
         rf_with(lambda n: attr(n, "nodes_truenodeids").ints.__setitem__(1, 0)))
    case("tree_shared_node", "two branches sharing a child",
         rf_with(lambda n: attr(n, "nodes_falsenodeids").ints.__setitem__(0, attr(n, "nodes_truenodeids").ints[0])))
    case("tree_feature_out_of_range", "a split on feature 300 of 7",
         rf_with(lambda n: attr(n, "nodes_featureids").ints.__setitem__(0, 300)))
    case("tree_negative_feature", "a split on feature -1 (a 10-byte varint)",
         rf_with(lambda n: attr(n, "nodes_featureids").ints.__setitem__(0, -1)))
    case("tree_huge_int", "a node id of 2^40",
         rf_with(lambda n: attr(n, "nodes_nodeids").ints.__setitem__(1, 1 << 40)))
    case("tree_vote_on_branch", "a leaf vote on a branch node",
         rf_with(lambda n: attr(n, "class_nodeids").ints.__setitem__(0, 0)))
    case("tree_vote_for_missing_class", "a vote for class 5 of 2",
         rf_with(lambda n: attr(n, "class_ids").ints.__setitem__(0, 5)))
    case("tree_arrays_mismatch", "nodes_values shorter than the other node arrays",
         rf_with(lambda n: attr(n, "nodes_values").floats.pop()))
    case("tree_unknown_mode", "a node mode the exporter never writes",
         rf_with(lambda n: attr(n, "nodes_modes").strings.__setitem__(0, b"BRANCH_EQ")))
    case("tree_extra_attribute", "an attribute TreeEnsembleClassifier takes but the exporter never writes",
         rf_with(lambda n: n.attribute.append(helper.make_attribute("classlabels_strings", [b"a", b"b"]))))
    case("tree_attribute_wrong_type", "nodes_values as ints",
         rf_with(lambda n: attr(n, "nodes_values").__setattr__("type", AttributeProto.INTS)))
    depth = 20  # a chain: node i branches to leaf 2i+1.. no: to i+1 (deeper) and a leaf
    n = 2 * depth + 1
    ids = list(range(n))
    modes = [b"BRANCH_LEQ" if i % 2 == 0 and i < n - 1 else b"LEAF" for i in ids]
    true_ids = [i + 1 if modes[i] != b"LEAF" else 0 for i in ids]
    false_ids = [i + 2 if modes[i] != b"LEAF" else 0 for i in ids]
    leaves = [i for i in ids if modes[i] == b"LEAF"]
    deep = helper.make_node("TreeEnsembleClassifier", ["X"], ["label_unused", "probabilities"], domain="ai.onnx.ml",
                            nodes_treeids=[0] * n, nodes_nodeids=ids, nodes_featureids=[0] * n, nodes_values=[0.5] * n,
                            nodes_modes=modes, nodes_truenodeids=true_ids, nodes_falsenodeids=false_ids,
                            nodes_missing_value_tracks_true=[0] * n, class_treeids=[0] * len(leaves), class_nodeids=leaves,
                            class_ids=[1] * len(leaves), class_weights=[1.0] * len(leaves), classlabels_int64s=[0, 1],
                            post_transform="NONE")
    case("tree_too_deep", f"a tree {depth} deep, past the trainer's cap of 16", model_of([deep]))
    trees = 1501
    many = helper.make_node("TreeEnsembleClassifier", ["X"], ["label_unused", "probabilities"], domain="ai.onnx.ml",
                            nodes_treeids=list(range(trees)), nodes_nodeids=[0] * trees, nodes_featureids=[0] * trees,
                            nodes_values=[0.0] * trees, nodes_modes=[b"LEAF"] * trees, nodes_truenodeids=[0] * trees,
                            nodes_falsenodeids=[0] * trees, nodes_missing_value_tracks_true=[0] * trees,
                            class_treeids=list(range(trees)), class_nodeids=[0] * trees, class_ids=[1] * trees,
                            class_weights=[1.0] * trees, classlabels_int64s=[0, 1], post_transform="NONE")
    case("too_many_trees", f"{trees} trees, past 500 estimators × 3 classes", model_of([many]))
    # Over the per-attribute bound (2 × 8,000,000), unpacked as the exporter writes lists (32 MB).
    over = 16_000_001
    case("attribute_array_over_bound", f"an ints attribute of {over} values",
         with_node_bytes(rf, 0, field(5, 2, field(1, 2, b"nodes_nodeids") + field(20, 0, varint(7)) + b"\x40\x01" * over)))
    # The same values packed at a byte each: more values than a file of this size holds honestly.
    case("attribute_array_packed_dense", "8,000,000 packed one-byte ints in an 8 MB file",
         with_node_bytes(rf, 0, field(5, 2, field(1, 2, b"zz") + field(20, 0, varint(7)) + field(8, 2, b"\x01" * 8_000_000))))

    # Random bytes.
    rnd = random.Random(33)
    for i in range(3):
        case(f"random_bytes_{i}", "random bytes", bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 4096))))

    os.makedirs(out, exist_ok=True)
    for name, (_, data) in CASES.items():
        with open(os.path.join(out, name + ".onnx"), "wb") as f:
            f.write(data)
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump({name: why for name, (why, _) in CASES.items()}, f, indent=1)
    with open(os.path.join(out, "honest.onnx"), "wb") as f:
        f.write(honest_bytes)


if __name__ == "__main__":
    build(sys.argv[1])
