/**
 * Where each name of a script lives, found once before any bar runs. Pine's scopes are lexical: a
 * name refers to the nearest declaration before it in its block or an enclosing one, and a
 * function body sees its parameters, its own declarations and the script's top-level ones. So
 * every read and assignment is bound to its variable when its closure is made, and runs as an
 * array read (no scope chain walked by name on every bar).
 */

/**
 * A variable: a declaration's slot (by the declaration's node id) or a local (parameter, tuple name,
 * loop variable: by the number the interpreter gave it), in the frame that is running. `global`: a
 * top-level variable read from a function body: it lives in the script's own frame, and is there
 * only once its declaration has run on the bar.
 */
export interface Binding {
  kind: 'decl' | 'local';
  index: number;
  global: boolean;
}

/** The names a block has declared so far, while its statements are turned into closures. */
export class Env {
  private readonly names = new Map<string, Binding>();
  /** `functionBody`: the outermost block of a function (its parent is the script's top level). */
  constructor(
    private readonly parent: Env | null,
    private readonly functionBody = false,
  ) {}

  /** Declared in this very block (declaring it again is an error, as in Pine). */
  has(name: string): boolean {
    return this.names.has(name);
  }

  add(name: string, binding: Binding): void {
    // A second declaration fails when it runs, so every read after it is bound to the first.
    if (!this.names.has(name)) this.names.set(name, binding);
  }

  /** Names that are locals (a tuple's, a loop's, a function's parameters), each with its local number. */
  addLocals(names: readonly string[], numbers: readonly number[]): this {
    names.forEach((name, i) => this.add(name, { kind: 'local', index: numbers[i]!, global: false }));
    return this;
  }

  /** The variable `name` refers to here; from a function body, the script's top-level one of that name. */
  resolve(name: string, topLevel: ReadonlyMap<string, Binding>): Binding | undefined {
    for (let env: Env | null = this; env; env = env.parent) {
      const b = env.names.get(name);
      if (b) return b;
      if (env.functionBody) {
        const g = topLevel.get(name);
        return g && { ...g, global: true };
      }
    }
    return undefined;
  }
}
