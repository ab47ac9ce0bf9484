/**
 * Hostile strategy code for meta-labelling: strategy code may run any Python inside the sandbox (a
 * forked child per job, so a patch dies with its job). Each of these, appended to a valid strategy
 * with entry rules, reaches the trainer through sklearn's `sys` and rewrites the answer's "meta"
 * (trainer._meta_answer) after the honest fit: the model and its ONNX are the honest code's, only
 * what the sandbox says of its labels is forged.
 */

const patchMetaAnswer = (forge: string) => `
import sklearn
_trainer = sklearn.sys.modules['trainer']
_honest_meta_answer = _trainer._meta_answer
def _forged_meta_answer(*args, **kwargs):
    a = _honest_meta_answer(*args, **kwargs)
${forge}
    return a
_trainer._meta_answer = _forged_meta_answer
`;

/** Every labelled rule trade of the test span won (label 1): what would lift precision to 1 and recall to the share taken, were the labels trusted. */
export const FORGE_ALL_WIN = patchMetaAnswer(`    a["labels"] = [[b, s, 1, e] for b, s, _, e in a["labels"]]`);

/** The last label names a bar a million bars past the scored rows. */
export const FORGE_BAR_OUTSIDE = patchMetaAnswer(`    b, s, l, e = a["labels"][-1]
    a["labels"][-1] = [b + 1000000, s, 1, e + 1000000]`);

/** Absurd counts: a billion rule rows fitted and as many purged. */
export const FORGE_COUNTS = patchMetaAnswer(`    a["rows_train"] = 10**9
    a["purged"] = 10**9`);

/** More test rows counted than labels listed. */
export const FORGE_TEST_ROWS = patchMetaAnswer(`    a["rows_test"] = len(a["labels"]) + 500`);
