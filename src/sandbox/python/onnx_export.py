"""Export a fitted model to ONNX, built by hand with onnx.helper (Debian's onnx 1.12; no skl2onnx).

Every graph has one input ``X`` float32 [N, n_features] and one output ``probabilities`` float32
[N, n_classes], columns in ``model.classes_`` order, i.e. exactly what ``predict_proba`` returns.
No ZipMap (onnxruntime-node cannot return seq(map)) and no ``label`` output (the 2-class label of
ORT's TreeEnsembleClassifier is unreliable; callers derive the class from the probabilities).

Supported: RandomForestClassifier, ExtraTreesClassifier, GradientBoostingClassifier,
AdaBoostClassifier (SAMME and SAMME.R, decision-tree base estimators), LogisticRegression,
xgboost.XGBClassifier (binary:logistic, multi:softprob). Opsets: default 17, ai.onnx.ml 3.
"""
from __future__ import annotations

import json
import math

import numpy as np
from onnx import AttributeProto, TensorProto, checker, helper

DEFAULT_OPSET = 17
ML_OPSET = 3

__all__ = ["export_model"]


def export_model(model, n_features: int) -> bytes:
    """Serialised ONNX model for a fitted classifier; raises ValueError if it cannot be exported exactly."""
    name = type(model).__name__
    builders = {
        "RandomForestClassifier": _forest,
        "ExtraTreesClassifier": _forest,
        "GradientBoostingClassifier": _gradient_boosting,
        "AdaBoostClassifier": _adaboost,
        "LogisticRegression": _logistic,
        "XGBClassifier": _xgboost,
    }
    if name not in builders:
        raise ValueError(f"cannot export model class {name}")
    n_features = int(n_features)
    if getattr(model, "n_features_in_", n_features) != n_features:
        raise ValueError(f"model was fitted on {model.n_features_in_} features, not {n_features}")
    nodes, initializers = builders[name](model, n_features)
    graph = helper.make_graph(
        nodes,
        f"signalforge_{name}",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["N", n_features])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, ["N", _n_classes(model)])],
        initializer=initializers,
    )
    onnx_model = helper.make_model(
        graph,
        opset_imports=[helper.make_opsetid("", DEFAULT_OPSET), helper.make_opsetid("ai.onnx.ml", ML_OPSET)],
        producer_name="signalforge",
    )
    checker.check_model(onnx_model, full_check=True)
    return onnx_model.SerializeToString()


def _n_classes(model) -> int:
    n = len(model.classes_)
    if n < 2:
        raise ValueError("model has a single class; nothing to export")
    return n


# ---------------------------------------------------------------------------------------------
# Trees: a common flat form, then one TreeEnsembleRegressor node.


_ATTRS = ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_values", "nodes_modes", "nodes_truenodeids",
          "nodes_falsenodeids", "nodes_missing_value_tracks_true", "target_treeids", "target_nodeids", "target_ids",
          "target_weights")


class _Trees:
    """Accumulates nodes and leaf weights of many trees in the flat arrays ai.onnx.ml wants.

    Vectorised: each tree adds numpy arrays over all its nodes at once (a forest of 200 deep trees
    has ~10^5 nodes; a Python loop per node and onnx.helper.make_attribute's per-element type
    checks cost ~0.5 s there). The attribute values are exactly those of the per-node form."""

    def __init__(self, n_targets: int):
        self.n_targets = n_targets
        self.n_trees = 0
        self.parts = {k: [] for k in _ATTRS}

    def add_sklearn(self, tree, weights, targets):
        """sklearn tree_: `x <= threshold` goes left. weights: [node_count, len(targets)] leaf
        weights (rows of branch nodes are ignored); leaf n votes weights[n, i] for targets[i]."""
        self._add(tree.children_left, tree.children_right, tree.feature, _f32_floor(tree.threshold),
                  b"BRANCH_LEQ", 0, weights, targets)

    def add_xgboost(self, tree: dict, target: int, scale: float = 1.0):
        """xgboost JSON tree: `x < split` goes left; a missing value goes to the default child."""
        cond = np.asarray(tree["split_conditions"], dtype=np.float64)
        # split_conditions hold float32 values; float32 of the parsed text is exact.
        self._add(tree["left_children"], tree["right_children"], tree["split_indices"],
                  cond.astype(np.float32).astype(np.float64), b"BRANCH_LT",
                  np.asarray(tree["default_left"], dtype=bool).astype(np.int64),
                  (cond * scale)[:, None], [target])

    def _add(self, left, right, feature, value, branch_mode, missing_true, weights, targets):
        t = self.n_trees
        self.n_trees += 1
        left = np.asarray(left, dtype=np.int64)
        leaf = left == -1
        n = len(left)
        p = self.parts
        p["nodes_treeids"].append(np.full(n, t, dtype=np.int64))
        p["nodes_nodeids"].append(np.arange(n, dtype=np.int64))
        p["nodes_featureids"].append(np.where(leaf, 0, np.asarray(feature, dtype=np.int64)))
        p["nodes_values"].append(np.where(leaf, 0.0, value))
        p["nodes_modes"].append(np.where(leaf, b"LEAF", branch_mode))
        p["nodes_truenodeids"].append(np.where(leaf, 0, left))
        p["nodes_falsenodeids"].append(np.where(leaf, 0, np.asarray(right, dtype=np.int64)))
        p["nodes_missing_value_tracks_true"].append(np.where(leaf, 0, missing_true).astype(np.int64))
        leaves = np.flatnonzero(leaf)
        targets = np.asarray(targets, dtype=np.int64)
        p["target_treeids"].append(np.full(len(leaves) * len(targets), t, dtype=np.int64))
        p["target_nodeids"].append(np.repeat(leaves, len(targets)))
        p["target_ids"].append(np.tile(targets, len(leaves)))
        p["target_weights"].append(np.asarray(weights, dtype=np.float64)[leaves].reshape(-1))

    def _attributes(self, rename=lambda k: k):
        if not sum(len(a) for a in self.parts["target_ids"]):
            raise ValueError("empty tree ensemble")
        return [_attribute(rename(k), np.concatenate(v)) for k, v in self.parts.items()]

    def node(self, output: str, base_values) -> "helper.NodeProto":
        return _node("TreeEnsembleRegressor", [output], self._attributes(), n_targets=self.n_targets,
                     aggregate_function="SUM", post_transform="NONE", base_values=[float(b) for b in base_values])

    def classifier_node(self, output: str) -> "helper.NodeProto":
        """TreeEnsembleClassifier with a vote for every class at every leaf (n_targets = classes).
        With post_transform NONE its `probabilities` are the plain vote sums; its `label` is wrong
        for 2 classes (ORT picks class 1 whenever score1 > 0), so it stays an unused intermediate."""
        return _node("TreeEnsembleClassifier", ["label_unused", output],
                     self._attributes(lambda k: k.replace("target_", "class_")),
                     classlabels_int64s=list(range(self.n_targets)), post_transform="NONE")


def _attribute(name: str, values: np.ndarray) -> AttributeProto:
    """What helper.make_attribute makes of the list values.tolist(), without its per-element checks."""
    attr = AttributeProto()
    attr.name = name
    if values.dtype.kind in "iu":
        attr.type = AttributeProto.INTS
        attr.ints.extend(values.tolist())
    elif values.dtype.kind == "f":
        attr.type = AttributeProto.FLOATS
        attr.floats.extend(values.tolist())
    else:
        attr.type = AttributeProto.STRINGS
        attr.strings.extend(values.tolist())
    return attr


def _node(op_type, outputs, big, **small) -> "helper.NodeProto":
    """helper.make_node(op_type, ["X"], outputs, domain="ai.onnx.ml", **attributes): attributes in
    name order, as make_node orders them."""
    node = helper.make_node(op_type, ["X"], outputs, domain="ai.onnx.ml")
    attrs = big + [helper.make_attribute(k, v) for k, v in small.items()]
    node.attribute.extend(sorted(attrs, key=lambda a: a.name))
    return node


def _f32_floor(t) -> np.ndarray:
    """Largest float32 <= t, elementwise, as float64. sklearn compares float32 X against a float64
    threshold; for every float32 x, x <= t  <=>  x <= floor32(t), whereas round-to-nearest could
    flip x == float32(t)."""
    t = np.asarray(t, dtype=np.float64)
    with np.errstate(over="ignore"):
        f = t.astype(np.float32)
    down = f.astype(np.float64) > t
    f[down] = np.nextafter(f[down], np.float32(-np.inf))
    return f.astype(np.float64)


def _leaf_fractions(tree):
    """Per-leaf class fractions; sklearn 1.2 stores (weighted) counts in tree_.value."""
    v = tree.value[:, 0, :].astype(np.float64)
    s = v.sum(axis=1, keepdims=True)
    s[s == 0] = 1.0  # as DecisionTreeClassifier.predict_proba does
    return v / s


def _forest(model, n_features):
    """RF / ExtraTrees: predict_proba is the mean over trees of the leaf class fractions."""
    k = _n_classes(model)
    trees = _Trees(k)
    n_est = len(model.estimators_)
    for est in model.estimators_:
        trees.add_sklearn(est.tree_, _leaf_fractions(est.tree_) / n_est, range(k))
    return [trees.classifier_node("probabilities")], []


def _gradient_boosting(model, n_features):
    """raw = init_ prior (log-odds / log-priors) + learning_rate * sum of regression-tree leaves."""
    from sklearn.dummy import DummyClassifier

    k = _n_classes(model)
    if not (model.init_ == "zero" or isinstance(model.init_, DummyClassifier)):
        raise ValueError("GradientBoostingClassifier: only the default (prior) or 'zero' init can be exported")
    base = model._raw_predict_init(np.zeros((1, n_features), dtype=np.float32))[0]  # constant per class
    # Exponential loss: predict_proba = expit(2 * raw); fold the 2 into leaves and base.
    scale = 2.0 if (k == 2 and model.loss == "exponential") else 1.0
    n_out = model.estimators_.shape[1]  # 1 for binary, k otherwise
    trees = _Trees(n_out)
    lr = model.learning_rate
    for stage in model.estimators_:
        for j, est in enumerate(stage):
            trees.add_sklearn(est.tree_, (scale * lr * est.tree_.value[:, 0, 0])[:, None], [j])
    return _margin_to_proba(trees.node("margin", scale * np.asarray(base, dtype=np.float64)), k)


def _adaboost(model, n_features):
    """sklearn 1.2 decision_function/predict_proba, per-leaf constants summed over trees:
    SAMME   f_c += w_t * [argmax leaf == c]
    SAMME.R f_c += (K-1) * (log p_c - mean_k log p_k), p clipped at eps
    f /= sum(estimator_weights_); binary: d = f_1 - f_0, p = softmax([-d, d] / 2) = [1-s(d), s(d)];
    K classes: p = softmax(f / (K-1))."""
    from sklearn.tree import DecisionTreeClassifier

    k = _n_classes(model)
    ests = model.estimators_
    weights = np.asarray(model.estimator_weights_, dtype=np.float64)
    total = weights.sum()
    if total <= 0:
        raise ValueError("AdaBoostClassifier has no positive estimator weight")
    eps = np.finfo(np.float64).eps
    trees = _Trees(1 if k == 2 else k)
    for est, w in zip(ests, weights[: len(ests)]):
        if not isinstance(est, DecisionTreeClassifier):
            raise ValueError("AdaBoostClassifier: only decision-tree base estimators can be exported")
        frac = _leaf_fractions(est.tree_)
        if model.algorithm == "SAMME":
            f = np.zeros_like(frac)
            f[np.arange(len(frac)), np.argmax(frac, axis=1)] = w  # argmax: first class on ties, like predict
        elif model.algorithm == "SAMME.R":
            logp = np.log(np.clip(frac, eps, None))
            f = (k - 1) * (logp - logp.mean(axis=1, keepdims=True))
        else:
            raise ValueError(f"AdaBoostClassifier: unknown algorithm {model.algorithm}")
        f = f / total
        if k == 2:
            d = f[:, 1] - f[:, 0]
            trees.add_sklearn(est.tree_, d[:, None], [0])
        else:
            f = f / (k - 1)
            trees.add_sklearn(est.tree_, f, range(k))
    return _margin_to_proba(trees.node("margin", [0.0] * (1 if k == 2 else k)), k)


def _xgboost(model, n_features):
    """margin = base margin + sum of leaves (trees assigned to classes by tree_info); then sigmoid or
    softmax. xgboost 1.7 keeps base_score in probability space for binary:logistic (margin =
    logit(base_score)) and adds it unchanged for multi:softprob."""
    booster = model.get_booster()
    k = _n_classes(model)
    cfg = json.loads(booster.save_config())
    objective = cfg["learner"]["objective"]["name"]
    base_score = float(cfg["learner"]["learner_model_param"]["base_score"])
    dump = json.loads(bytes(booster.save_raw(raw_format="json")))
    gb = dump["learner"]["gradient_booster"]
    if gb.get("name") != "gbtree":
        raise ValueError(f"XGBClassifier: booster {gb.get('name')} cannot be exported (use gbtree)")
    trees_json = gb["model"]["trees"]
    tree_info = gb["model"]["tree_info"]
    # predict_proba uses every tree, unless early stopping recorded best_iteration: then only the
    # trees of iterations 0..best_iteration (num_parallel_tree per class per iteration).
    n_trees = len(trees_json)
    best = booster.attr("best_iteration")
    if best is not None:
        parallel = int(cfg["learner"]["gradient_booster"]["gbtree_model_param"]["num_parallel_tree"])
        n_trees = min(n_trees, (int(best) + 1) * parallel * (k if k > 2 else 1))
    if k == 2:
        if objective != "binary:logistic":
            raise ValueError(f"XGBClassifier: objective {objective} cannot be exported (binary:logistic)")
        if not 0.0 < base_score < 1.0:
            raise ValueError("XGBClassifier: base_score must be in (0, 1)")
        base = [math.log(base_score / (1.0 - base_score))]
        trees = _Trees(1)
        for t in range(n_trees):
            trees.add_xgboost(trees_json[t], 0)
    else:
        if objective != "multi:softprob":
            raise ValueError(f"XGBClassifier: objective {objective} cannot be exported (multi:softprob)")
        base = [base_score] * k
        trees = _Trees(k)
        for t in range(n_trees):
            trees.add_xgboost(trees_json[t], int(tree_info[t]))
    return _margin_to_proba(trees.node("margin", base), k)


def _logistic(model, n_features):
    """Done in float64 (Cast, MatMul, Add, Sigmoid/Softmax, Cast): unscaled features can give large
    coefficients whose float32 dot product would cancel badly; sklearn computes in float64."""
    k = _n_classes(model)
    coef = np.asarray(model.coef_, dtype=np.float64)  # [1 or k, F]
    intercept = np.asarray(model.intercept_, dtype=np.float64)
    if coef.shape[1] != n_features:
        raise ValueError("LogisticRegression: coefficient shape does not match n_features")
    init = [
        helper.make_tensor("coef", TensorProto.DOUBLE, [n_features, coef.shape[0]], coef.T.flatten().tolist()),
        helper.make_tensor("intercept", TensorProto.DOUBLE, [coef.shape[0]], intercept.tolist()),
    ]
    nodes = [
        helper.make_node("Cast", ["X"], ["X64"], to=TensorProto.DOUBLE),
        helper.make_node("MatMul", ["X64", "coef"], ["xw"]),
        helper.make_node("Add", ["xw", "intercept"], ["margin"]),
    ]
    # Same rule as LogisticRegression.predict_proba in sklearn 1.2.
    ovr = model.multi_class in ("ovr", "warn") or (
        model.multi_class == "auto" and (k <= 2 or model.solver == "liblinear"))
    if k == 2:
        nodes += _binary_sigmoid("margin", "p64")
    elif ovr:
        nodes += [
            helper.make_node("Sigmoid", ["margin"], ["s"]),
            helper.make_node("ReduceSum", ["s", "axes1"], ["ssum"], keepdims=1),
            helper.make_node("Div", ["s", "ssum"], ["p64"]),
        ]
        init.append(helper.make_tensor("axes1", TensorProto.INT64, [1], [1]))
    else:
        nodes.append(helper.make_node("Softmax", ["margin"], ["p64"], axis=1))
    nodes.append(helper.make_node("Cast", ["p64"], ["probabilities"], to=TensorProto.FLOAT))
    init += _one(TensorProto.DOUBLE) if k == 2 else []
    return nodes, init


# ---------------------------------------------------------------------------------------------
# Post-transforms as standard ops, so the output is always a plain [N, K] tensor.


def _margin_to_proba(tree_node, k):
    if k == 2:
        return [tree_node, *_binary_sigmoid("margin", "probabilities")], _one(TensorProto.FLOAT)
    return [tree_node, helper.make_node("Softmax", ["margin"], ["probabilities"], axis=1)], []


def _binary_sigmoid(margin: str, out: str):
    """[N,1] margin -> [N,2] = [1 - sigmoid, sigmoid], the predict_proba layout for two classes.
    Needs the scalar initializer "one" of the margin's dtype (see _one)."""
    return [
        helper.make_node("Sigmoid", [margin], [f"{out}_p1"]),
        helper.make_node("Sub", ["one", f"{out}_p1"], [f"{out}_p0"]),
        helper.make_node("Concat", [f"{out}_p0", f"{out}_p1"], [out], axis=1),
    ]


def _one(dtype: int):
    return [helper.make_tensor("one", dtype, [], [1.0])]
