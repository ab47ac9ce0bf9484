/** A loaded model. Graph contract: input `X` float32 [N, nFeatures], output `probabilities`
 *  float32 [N, nClasses] in the trainer's class order (ascending labels, so "up" is the last). */
export interface OnnxModel {
  readonly nFeatures: number;
  readonly nClasses: number;
  /**
   * The same for every handle of one model's bytes loaded for one owner: such handles give the
   * same probabilities for the same rows, so a scoring may be shared between them (scoreWindow).
   * Absent: never shared.
   */
  readonly shareKey?: string;
  /** p(up) per row: the last probability column. X is row-major [rows, nFeatures]. */
  score(X: Float32Array, rows: number): Promise<Float32Array>;
  /** All class probabilities, row-major [rows, nClasses]. */
  probabilities(X: Float32Array, rows: number): Promise<Float32Array>;
  close(): Promise<void>;
}
