/**
 * The limits of an honest model, each from what src/sandbox/python/onnx_export.py writes for
 * the bounded model_params of schemas/strategy.ts. Anything past them is not ours.
 */

/** Feature columns a strategy may add (protocol.py MAX_FEATURE_COLUMNS). */
export const MAX_FEATURES = 256;
/** The trainer labels up/down (2 classes); the export parity tests also score down/flat/up (3). */
export const MAX_CLASSES = 3;
/** The largest export (LogisticRegression, one-vs-rest) has 7 nodes. */
export const MAX_NODES = 16;
/** The exporter writes at most 4 initializers (coef, intercept, axes1, one). */
export const MAX_INITIALIZERS = 8;
/** TreeEnsemble nodes carry 16 attributes, the standard ops one or none. */
export const MAX_ATTRIBUTES_PER_NODE = 20;
/** Concat takes 2 inputs, TreeEnsembleClassifier gives 2 outputs. */
export const MAX_NODE_IO = 4;
/** The largest initializer is LogisticRegression's coefficients: features × classes. */
export const MAX_TENSOR_ELEMENTS = MAX_FEATURES * MAX_CLASSES;
/** Tensors are scalars, vectors or matrices; X and probabilities are [N, k]. */
export const MAX_RANK = 2;
/** Names are short ("signalforge_RandomForestClassifier", "label_unused", node outputs). */
export const MAX_NAME_BYTES = 256;
/** schemas/strategy.ts MAX_DEPTH: every tree model's max_depth is capped at 16 (AdaBoost's at 2). */
export const MAX_TREE_DEPTH = 16;
/** n_estimators ≤ 500 (schemas/strategy.ts), times one tree per class for multi-class boosting. */
export const MAX_TREES = 500 * MAX_CLASSES;

/**
 * The whole file. Measured: an ExtraTrees of 150 depth-16 trees on 300,000 rows exports 205 MB
 * (42 bytes a tree node) and the export alone peaks at 4 GB, past the train job's 3 GiB, so no
 * honest train returns much more than ~150 MB; 256 MiB leaves room and bounds a hostile one.
 */
export const MAX_MODEL_BYTES = 256 * 1024 * 1024;
/** Tree nodes in one ensemble: a 256 MiB model at ~40 bytes a node holds under 7 M. */
export const MAX_TREE_NODES = 8_000_000;
/** One attribute array: per node (nodes_*) or per leaf × class (≤ 1.5 × nodes for 3 classes). */
export const MAX_ATTRIBUTE_ELEMENTS = 2 * MAX_TREE_NODES;
/** Repeated values in the whole model (8 nodes_* arrays + 4 leaf arrays ≈ 14 × nodes), which bounds the decoder's memory. */
export const MAX_TOTAL_ELEMENTS = 16 * MAX_TREE_NODES;
