/** Twenty constructs the interpreter refuses, each with where the refusal must point. */
export interface UnsupportedCase {
  source: string;
  line: number;
  col: number;
  /** Text the error's construct must contain. */
  construct: string;
}

const head = '//@version=5\nindicator("u")\n';

export const UNSUPPORTED: UnsupportedCase[] = [
  { source: `${head}s = request.security(syminfo.tickerid, "D", close)\nplot(s)`, line: 3, col: 5, construct: 'request.security()' },
  {
    source: `${head}plot(close)\nif barstate.islast\n    line.new(bar_index - 10, close, bar_index, close)`,
    line: 5,
    col: 5,
    construct: 'line.new()',
  },
  { source: `${head}plot(close)\nlabel.new(bar_index, high, "x")`, line: 4, col: 1, construct: 'label.new()' },
  { source: `${head}b = box.new(0, 1, 2, 0)\nplot(close)`, line: 3, col: 5, construct: 'box.new()' },
  { source: `${head}var t = table.new(position.top_right, 2, 2)\nplot(close)`, line: 3, col: 9, construct: 'table.new()' },
  { source: `//@version=5\nindicator("u")\nimport TradingView/ta/7 as tv\nplot(close)`, line: 3, col: 1, construct: "'import'" },
  { source: `${head}type Pivot\n    float price\nplot(close)`, line: 3, col: 1, construct: "user-defined types ('type')" },
  { source: `${head}method double(float x) => x * 2\nplot(close)`, line: 3, col: 1, construct: "'method'" },
  { source: `${head}enum Side\n    long\n    short\nplot(close)`, line: 3, col: 1, construct: "'enum'" },
  { source: `${head}export f(x) => x\nplot(close)`, line: 3, col: 1, construct: "'export'" },
  { source: `${head}m = matrix.new<float>(2, 2, 0)\nplot(close)`, line: 3, col: 5, construct: 'matrix.new<float>()' },
  { source: `${head}plotcandle(open, high, low, close)`, line: 3, col: 1, construct: 'plotcandle()' },
  { source: `${head}a = array.new_float(0)\nm = a.covariance(a)\nplot(close)`, line: 4, col: 5, construct: "method covariance() of 'a'" },
  {
    source: `${head}lv = ta.pivot_point_levels("Traditional", timeframe.change("D"))\nplot(close)`,
    line: 3,
    col: 6,
    construct: 'ta.pivot_point_levels()',
  },
  { source: `${head}x = math.random(0, 1, 42)\nplot(x)`, line: 3, col: 5, construct: 'math.random()' },
  { source: `${head}plot(close, "c", foo=1)`, line: 3, col: 22, construct: "argument 'foo' of plot()" },
  { source: `${head}var line l = na\nplot(close)`, line: 3, col: 5, construct: "the 'line' type" },
  { source: `//@version=3\nstudy("old")\nplot(close)`, line: 1, col: 1, construct: '//@version=3' },
  { source: `${head}plot(close)\nalert("crossed")`, line: 4, col: 1, construct: 'alert()' },
  { source: `${head}pts = 0\nx = polyline.new(pts)\nplot(close)`, line: 4, col: 5, construct: 'polyline.new()' },
];
