"""Models that pass for ours in shape (X float [N, F] -> probabilities float [N, 2]) but hang or
balloon when onnxruntime loads or runs them: the scoring process's own limits must stop them
(checkModel refuses them first; these tests go around it on purpose).

usage: /usr/bin/python3 hostile_models.py OUT_DIR N_FEATURES
writes OUT_DIR/hang.onnx (a Loop of 256x256 MatMuls run 10^9 times) and OUT_DIR/balloon.onnx
(ConstantOfShape of 4 GiB, sized from X so it is made at run time, not folded at load).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save


def io(n_features):
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", n_features])
    p = helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", 2])
    return x, p


def first_two_columns():
    # probabilities = X[:, 0:2] (+ whatever the hostile part makes): the right shape, no meaning.
    inits = [numpy_helper.from_array(np.array(v, dtype=np.int64), n) for n, v in
             (("s0", [0]), ("s2", [2]), ("ax1", [1]))]
    return [helper.make_node("Slice", ["X", "s0", "s2", "ax1"], ["cols"])], inits


def model(nodes, inits, n_features, name):
    x, p = io(n_features)
    graph = helper.make_graph(nodes, name, [x], [p], inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="signalforge")
    m.ir_version = 8
    return m


def hang(n_features):
    slice_nodes, inits = first_two_columns()
    w = numpy_helper.from_array(np.full((256, 256), 1e-3, dtype=np.float32), "W")
    m0 = numpy_helper.from_array(np.eye(256, dtype=np.float32), "M0")
    trip = numpy_helper.from_array(np.array(10**9, dtype=np.int64), "trip")
    cond = numpy_helper.from_array(np.array(True), "cond")
    body = helper.make_graph(
        [helper.make_node("Identity", ["c_in"], ["c_out"]), helper.make_node("MatMul", ["m_in", "W"], ["m_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("m_in", TensorProto.FLOAT, [256, 256])],
        [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("m_out", TensorProto.FLOAT, [256, 256])],
    )
    nodes = slice_nodes + [
        helper.make_node("Loop", ["trip", "cond", "M0"], ["m_final"], body=body),
        helper.make_node("ReduceSum", ["m_final"], ["s"], keepdims=0),
        helper.make_node("Add", ["cols", "s"], ["probabilities"]),
    ]
    return model(nodes, inits + [w, m0, trip, cond], n_features, "hang")


def balloon(n_features):
    slice_nodes, inits = first_two_columns()
    # shape = [rows * 2^30] floats: 4 GiB for one row, made when the run happens.
    big = numpy_helper.from_array(np.array([2**30], dtype=np.int64), "big")
    zero = numpy_helper.from_array(np.array([0], dtype=np.int64), "zero")
    nodes = slice_nodes + [
        helper.make_node("Shape", ["X"], ["xs"]),
        helper.make_node("Gather", ["xs", "zero"], ["rows"], axis=0),
        helper.make_node("Mul", ["rows", "big"], ["shape"]),
        helper.make_node("ConstantOfShape", ["shape"], ["huge"], value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.0])),
        helper.make_node("ReduceSum", ["huge"], ["s"], keepdims=0),
        helper.make_node("Add", ["cols", "s"], ["probabilities"]),
    ]
    return model(nodes, inits + [big, zero], n_features, "balloon")


def main():
    out, n_features = sys.argv[1], int(sys.argv[2])
    os.makedirs(out, exist_ok=True)
    save(hang(n_features), os.path.join(out, "hang.onnx"))
    save(balloon(n_features), os.path.join(out, "balloon.onnx"))


if __name__ == "__main__":
    main()
