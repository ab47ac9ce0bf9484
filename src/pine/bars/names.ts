/**
 * What a name node reads when it is no variable of the script: a bar field (open … hour), a
 * constant (color.red, math.pi…) or a built-in variable (barstate.*, syminfo.*, timeframe.*, ta.tr…).
 * A bar field or a constant is known once, as the node's closure is made (by node id).
 */
import { BAR_FIELDS, OTHER_VARIABLES } from '../builtins/bar-values.ts';
import { BUILTINS } from '../builtins/builtins.ts';
import { constant } from '../builtins/core.ts';
import { taVariable } from '../builtins/ta.ts';
import { volumeVariable } from '../builtins/ta-volume.ts';
import type { Expr, Program } from '../syntax/ast.ts';
import { pineError, unsupported } from '../syntax/errors.ts';
import { NA, type Value } from '../runtime/values.ts';
import type { RunState } from './run-state.ts';
import type { Scope } from './scope.ts';

/** What a name node reads that is not a variable of the script, resolved when its closure is made (by node id). */
export const FIELD = 1;
export const CONSTANT = 2;
const OTHER = 3;

export class Names {
  /** Per name node that is no variable of the script (by id): what it reads; its bar-field column or its constant beside. */
  readonly kinds: Uint8Array;
  readonly constants: Value[] = [];

  constructor(
    program: Program,
    private readonly r: RunState,
    private readonly scope: Scope,
  ) {
    this.kinds = new Uint8Array(program.nodes + 1);
  }

  /** A name's value `offset` bars back: a variable, a bar field, or a built-in variable/constant. */
  read(e: Expr & { kind: 'name' }, offset: number): Value {
    const r = this.r;
    const j = r.bar - offset;
    const b = this.scope.bindings[e.id];
    if (b) {
      // A top-level variable a function reads before its declaration ran on this bar is not there yet.
      const slot = r.slotOf(b);
      if (slot) return slot.get(j);
    } else {
      const kind = this.kinds[e.id];
      if (kind === FIELD) return j < 0 ? NA : (r.nameColumns[e.id] ?? this.fieldColumn(e))[j]!;
      if (kind === CONSTANT) return this.constants[e.id]!;
    }
    if (BAR_FIELDS.has(e.name)) return j < 0 ? NA : r.column(e.name)[j]!;
    const c = constant(e.name);
    if (c !== undefined) return c;
    if (OTHER_VARIABLES.has(e.name)) {
      if (offset > 0 && e.name.startsWith('ta.'))
        throw unsupported(e, `history of ${e.name}`, 'is not supported; assign it to a variable first');
      return this.variable(e, offset);
    }
    if (this.scope.funcs.has(e.name) || BUILTINS[e.name]) throw pineError(e, `'${e.name}' is a function: call it with parentheses`);
    if (e.name === 'timenow')
      throw unsupported(e, "'timenow'", 'is not supported: it changes with the time of the request; use time or timestamp()');
    throw pineError(e, `unknown name '${e.name}': declare it before use or check the spelling`);
  }

  /** Once per name node that reads no variable: a bar field or a constant (known once), else anything else. */
  resolve(e: Expr & { kind: 'name' }): number {
    let kind = OTHER;
    if (BAR_FIELDS.has(e.name)) kind = FIELD;
    else {
      const c = constant(e.name);
      if (c !== undefined) {
        kind = CONSTANT;
        this.constants[e.id] = c;
      }
    }
    this.kinds[e.id] = kind;
    return kind;
  }

  /** The column a bar-field name node reads in this run. */
  fieldColumn(e: Expr & { kind: 'name' }): Float64Array {
    const r = this.r;
    return (r.nameColumns[e.id] = r.column(e.name));
  }

  private variable(e: Expr & { kind: 'name' }, offset: number): Value {
    const r = this.r;
    const j = r.bar - offset;
    const tf = r.options.timeframe;
    switch (e.name) {
      case 'barstate.isfirst':
        return j === 0;
      case 'barstate.islast':
      case 'barstate.islastconfirmedhistory':
        return j === r.n - 1;
      case 'barstate.isconfirmed':
      case 'barstate.isnew':
      case 'barstate.ishistory':
        return true;
      case 'barstate.isrealtime':
        return false;
      case 'syminfo.mintick':
        return r.options.mintick;
      case 'syminfo.ticker':
      case 'syminfo.tickerid':
      case 'syminfo.root':
        return r.options.symbol;
      // Our symbols are six-letter pairs: base then quote currency (BTCUSD the one crypto).
      case 'syminfo.basecurrency':
        return r.options.symbol.slice(0, 3);
      case 'syminfo.currency':
        return r.options.symbol.slice(3);
      case 'syminfo.type':
        return r.options.symbol.startsWith('BTC') ? 'crypto' : 'forex';
      case 'syminfo.timezone':
        return 'Etc/UTC';
      case 'syminfo.pointvalue':
      case 'syminfo.minmove':
        return 1;
      case 'syminfo.pricescale':
        return Math.round(1 / r.options.mintick);
      case 'timeframe.period':
        return tf === '1h' ? '60' : tf.replace('min', '');
      case 'timeframe.multiplier':
        return tf === '1h' ? 60 : Number(tf.replace('min', ''));
      case 'timeframe.isintraday':
      case 'timeframe.isminutes':
        return true;
      case 'timeframe.isdwm':
      case 'timeframe.isticks':
      case 'timeframe.isseconds':
      case 'timeframe.isdaily':
      case 'timeframe.isweekly':
      case 'timeframe.ismonthly':
        return false;
      case 'strategy.position_size':
        return r.ctx.out.position.now;
    }
    if (e.name.startsWith('ta.')) {
      r.siteId = e.id;
      r.sitePos = e;
      return (taVariable(r.ctx, e.name) ?? volumeVariable(r.ctx, e.name))!;
    }
    return ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'].indexOf(e.name.slice(10)) + 1;
  }
}
