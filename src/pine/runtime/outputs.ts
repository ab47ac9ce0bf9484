/** What a run draws and signals, gathered bar by bar. */
export interface PlotOut {
  title: string;
  color: string | null;
  style: string;
  linewidth: number;
  values: Float64Array;
  /** plot(force_overlay=true): drawn on the price pane even in a separate-pane indicator. */
  forceOverlay: boolean;
}
export interface HlineOut {
  title: string;
  price: number;
  color: string | null;
}
export interface SignalOut {
  bar: number;
  kind: 'plotshape' | 'plotchar' | 'alertcondition' | 'strategy.entry' | 'strategy.close' | 'strategy.exit' | 'strategy.close_all';
  title: string;
  text: string;
  /** strategy.entry: long or short. */
  direction?: 'long' | 'short';
  /** plotshape/plotchar location (abovebar, belowbar, …). */
  location?: string;
}
export interface InputOut {
  name: string;
  title: string;
  type: 'int' | 'float' | 'bool' | 'string' | 'source' | 'color' | 'timeframe';
  default: number | boolean | string | null;
  options?: (number | string)[];
  min?: number;
  max?: number;
}

export interface RunResult {
  title: string;
  kind: 'indicator' | 'strategy' | 'library' | 'none';
  overlay: boolean;
  plots: PlotOut[];
  hlines: HlineOut[];
  signals: SignalOut[];
  inputs: InputOut[];
  /** Expression evaluations spent. */
  steps: number;
}
