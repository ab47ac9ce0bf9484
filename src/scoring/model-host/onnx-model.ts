/** A loaded model. Graph contract: input `X` float32 [N, nFeatures], output `probabilities`
 *  float32 [N, nClasses] in the trainer's class order (ascending labels, so "up" is the last). */
export interface OnnxModel {
  readonly nFeatures: number;
  readonly nClasses: number;
  /** p(up) per row: the last probability column. X is row-major [rows, nFeatures]. */
  score(X: Float32Array, rows: number): Promise<Float32Array>;
  /** All class probabilities, row-major [rows, nClasses]. */
  probabilities(X: Float32Array, rows: number): Promise<Float32Array>;
  close(): Promise<void>;
}
