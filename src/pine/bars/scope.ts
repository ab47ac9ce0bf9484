/**
 * The names of a program while its closures are made: its functions, its top-level variables (as a
 * function body sees them), the block being made and the variable each name node reads (see
 * runtime/bindings.ts), and the local numbers of parameters, tuple names and loop variables.
 */
import { BUILTINS } from '../builtins/builtins.ts';
import type { FuncDef, Program } from '../syntax/ast.ts';
import { pineError } from '../syntax/errors.ts';
import { Env, type Binding } from '../runtime/bindings.ts';

export class Scope {
  readonly funcs = new Map<string, FuncDef>();
  /** The script's top-level variables by name, as a function body sees them. */
  readonly topLevel = new Map<string, Binding>();
  /** The block being made into closures, with what it has declared so far. */
  env = new Env(null);
  /** The script's own block's names (its top-level statements run on every bar). */
  readonly topEnv = this.env;
  /** The variable of each name node that reads one (by id), bound when its closure is made. */
  readonly bindings: (Binding | undefined)[] = [];
  /** Pine v6 semantics (a script without //@version runs as v5). */
  readonly v6: boolean;
  /** Local numbers given so far (parameters, tuple names, loop variables: see localsOf). */
  private locals = 0;
  /** The local numbers of each top-level tuple's names and each function's parameters (by node id), given once. */
  private readonly localNumbers = new Map<number, number[]>();

  constructor(program: Program) {
    this.v6 = program.version !== null && program.version >= 6;
    for (const s of program.body) {
      if (s.kind === 'func') {
        if (BUILTINS[s.name]) throw pineError(s, `'${s.name}' is a built-in and cannot be redefined`);
        this.funcs.set(s.name, s);
      } else if (s.kind === 'decl') {
        if (!this.topLevel.has(s.name)) this.topLevel.set(s.name, { kind: 'decl', index: s.id, global: false });
      } else if (s.kind === 'tupledecl') {
        const numbers = this.localsOf(s.id, s.names.length);
        s.names.forEach(
          (name, i) => this.topLevel.has(name) || this.topLevel.set(name, { kind: 'local', index: numbers[i]!, global: false }),
        );
      }
    }
  }

  /** Whether the block being made is the script's own (its statements may be columns). */
  get atTop(): boolean {
    return this.env === this.topEnv;
  }

  /** The variable `name` refers to in the block being made. */
  resolve(name: string): Binding | undefined {
    return this.env.resolve(name, this.topLevel);
  }

  /** The local numbers of a node's names (a tuple's, a function's parameters): the same every time it is asked. */
  localsOf(id: number, count: number): number[] {
    let numbers = this.localNumbers.get(id);
    if (!numbers) this.localNumbers.set(id, (numbers = Array.from({ length: count }, () => this.locals++)));
    return numbers;
  }

  /** Makes closures with their names bound in `env`. */
  within<T>(env: Env, make: () => T): T {
    const outer = this.env;
    this.env = env;
    try {
      return make();
    } finally {
      this.env = outer;
    }
  }
}
