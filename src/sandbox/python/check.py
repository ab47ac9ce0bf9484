"""Static check of untrusted strategy code (stdlib only; nothing here runs the code).

Reads Python source on stdin, prints {"ok": bool, "violations": [...]} on stdout, each
violation {line, col, rule, message, hint}; line and col are 1-based, col in characters.
Every violation is reported at once. Rule ids are stable: tests and the API rely on them.

Module level may hold only: imports, the two contract functions, docstrings, and simple
constant assignments (NAME = literal). Nested helper functions and lambdas inside the two
functions are allowed. This is a first line of defence; the sandboxed runtime is the boundary.

Rules: syntax, module-level, missing-function, extra-function, duplicate-function, signature,
engine-function, banned-import, import-not-allowed, star-import, forbidden-builtin,
dynamic-attribute, dunder, private-attribute, introspection, io-function, string-eval,
forbidden-string, negative-shift, centered-window, cut-qcut, class-definition, decorator,
async, yield, global. (Node adds too-large and config.)
"""
import ast
import json
import re
import sys

REQUIRED = {
    "feature_engineering": ["df", "close", "open_", "high", "low"],
    "strategy_config": [],
}
ALLOWED_ROOTS = {"numpy", "pandas", "sklearn"}
BANNED = {"xgboost", "lightgbm", "tensorflow", "keras", "torch", "optuna", "ta", "talib",
          "finta", "tulipy", "statsmodels", "plotly"}
ENGINE = {"build_model", "generate_signals", "apply_risk", "train_and_backtest", "risk_filter"}
# Submodules of the allowed packages that read/write files, fetch URLs, or reach C.
DENIED_MODULES = {"numpy.ctypeslib", "numpy.f2py", "numpy.distutils", "numpy.testing",
                  "numpy.lib.format", "numpy.lib.npyio", "numpy.lib.utils",
                  "pandas.io", "pandas.testing", "pandas.compat", "pandas.util",
                  "sklearn.datasets", "sklearn.externals", "sklearn.utils.estimator_checks"}
FORBIDDEN_BUILTINS = {"exec", "eval", "compile", "open", "__import__", "globals", "locals",
                      "vars", "input", "breakpoint", "help", "dir", "exit", "quit",
                      "memoryview", "classmethod", "staticmethod", "super"}
ATTR_BUILTINS = {"getattr", "setattr", "delattr", "hasattr"}
IO_NAMES = {
    "read_csv", "read_json", "read_pickle", "read_parquet", "read_sql", "read_sql_query",
    "read_sql_table", "read_html", "read_excel", "read_feather", "read_hdf", "read_fwf",
    "read_table", "read_clipboard", "read_orc", "read_sas", "read_spss", "read_stata",
    "read_xml", "read_gbq", "to_pickle", "to_csv", "to_json", "to_parquet", "to_excel",
    "to_feather", "to_hdf", "to_sql", "to_html", "to_latex", "to_markdown", "to_stata",
    "to_clipboard", "to_xml", "to_orc", "to_gbq", "load", "save", "savez",
    "savez_compressed", "fromfile", "loadtxt", "savetxt", "genfromtxt", "fromregex",
    "tofile", "dump", "memmap", "open_memmap", "DataSource", "HDFStore", "ExcelWriter",
    "ExcelFile", "ctypes", "ctypeslib", "savefig",
}
# Keywords that name a file to read or write (df.to_string(buf=...), print(file=...),
# Pipeline(memory=...) caches to disk).
IO_KEYWORDS = {"buf", "path", "path_or_buf", "filepath_or_buffer", "fname", "file", "memory"}
# Frame/code objects reach module globals and builtins without any dunder:
# (x for x in ()).gi_frame.f_builtins['op' + 'en'].
INTROSPECTION = {"gi_frame", "gi_code", "gi_yieldfrom", "cr_frame", "cr_code", "ag_frame",
                 "ag_code", "f_globals", "f_builtins", "f_locals", "f_back", "f_code", "f_trace",
                 "tb_frame", "tb_next", "co_code", "co_consts", "co_names", "func_globals",
                 "func_code", "mro"}
IO_PREFIXES = ("fetch_", "load_", "dump_", "read_")
STRING_EVAL = {"eval", "query"}
CUT = {"cut", "qcut"}
SHIFT_LIKE = {"shift", "diff", "pct_change"}
DUNDER = re.compile(r"^__\w*__$")
DUNDER_INSIDE = re.compile(r"__\w+__")


class Checker(ast.NodeVisitor):
    def __init__(self, source):
        self.lines = source.splitlines()
        self.out = []
        self.aliases = {}  # local name -> dotted module/object it was imported as
        self.depth = 0     # function nesting depth

    # -- reporting ---------------------------------------------------------
    def col(self, node):
        """ast gives UTF-8 byte offsets; editors count characters."""
        line = getattr(node, "lineno", 1)
        off = getattr(node, "col_offset", 0)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        return len(text.encode("utf-8")[:off].decode("utf-8", "replace")) + 1

    def add(self, node, rule, message, hint):
        self.out.append({"line": getattr(node, "lineno", 1), "col": self.col(node),
                         "rule": rule, "message": message, "hint": hint})

    # -- module structure --------------------------------------------------
    def check_module(self, tree):
        seen = {}
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = stmt.name
                if name in ENGINE:
                    continue  # reported by visit_FunctionDef
                if name not in REQUIRED:
                    self.add(stmt, "extra-function", f"function '{name}' is not allowed: only "
                             "feature_engineering and strategy_config may be defined",
                             f"move '{name}' inside feature_engineering or inline it")
                elif name in seen:
                    self.add(stmt, "duplicate-function", f"'{name}' is defined twice",
                             "keep a single definition")
                else:
                    seen[name] = stmt
                    self.check_signature(stmt, REQUIRED[name])
            elif not self.module_level_ok(stmt):
                self.add(stmt, "module-level", "only imports, the two functions, docstrings "
                         "and constant assignments are allowed at module level",
                         "move this statement inside feature_engineering or strategy_config")
        for name, params in REQUIRED.items():
            if name not in seen:
                self.add(tree, "missing-function", f"function '{name}' is missing",
                         f"define def {name}({', '.join(params)}):")

    def module_level_ok(self, stmt):
        if isinstance(stmt, (ast.Import, ast.ImportFrom, ast.ClassDef)):
            return True  # ClassDef is reported by its own rule
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return isinstance(stmt.value.value, str)
        if isinstance(stmt, ast.Assign):
            return all(isinstance(t, ast.Name) for t in stmt.targets) and is_literal(stmt.value)
        if isinstance(stmt, ast.AnnAssign):
            return isinstance(stmt.target, ast.Name) and stmt.value is not None \
                and is_literal(stmt.value)
        return False

    def check_signature(self, fn, params):
        a = fn.args
        names = [x.arg for x in a.args]
        if (names != params or a.posonlyargs or a.kwonlyargs or a.vararg or a.kwarg
                or a.defaults):
            self.add(fn, "signature", f"'{fn.name}' must have the signature "
                     f"({', '.join(params)})", f"write def {fn.name}({', '.join(params)}):")

    # -- definitions -------------------------------------------------------
    def visit_FunctionDef(self, node):
        if node.name in ENGINE:
            self.add(node, "engine-function", f"'{node.name}' is an engine function; the "
                     "engine provides it", f"delete '{node.name}': only feature_engineering "
                     "and strategy_config are yours")
        for d in node.decorator_list:
            self.add(d, "decorator", "decorators are not allowed", "remove the decorator")
        self.check_name(node, node.name)
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    def visit_AsyncFunctionDef(self, node):
        self.add(node, "async", "async code is not allowed", "use a plain def")
        self.visit_FunctionDef(node)

    def visit_ClassDef(self, node):
        self.add(node, "class-definition", "class definitions are not allowed",
                 "use plain functions and pandas/numpy objects")
        self.generic_visit(node)

    def visit_Lambda(self, node):
        self.generic_visit(node)

    def visit_arg(self, node):
        self.check_name(node, node.arg)

    def visit_Global(self, node):
        self.add(node, "global", "global/nonlocal statements are not allowed",
                 "pass values as arguments and return them")

    visit_Nonlocal = visit_Global

    def visit_Yield(self, node):
        self.add(node, "yield", "generators (yield) are not allowed", "build and return a list")
        self.generic_visit(node)

    visit_YieldFrom = visit_Yield

    def visit_Await(self, node):
        self.add(node, "async", "async code is not allowed", "remove await")
        self.generic_visit(node)

    def visit_AsyncFor(self, node):
        self.add(node, "async", "async code is not allowed", "use a plain for loop")
        self.generic_visit(node)

    def visit_AsyncWith(self, node):
        self.add(node, "async", "async code is not allowed", "use a plain with block")
        self.generic_visit(node)

    # -- imports -----------------------------------------------------------
    def visit_Import(self, node):
        for a in node.names:
            if self.check_module_name(node, a.name):
                local = a.asname or a.name.split(".")[0]
                self.aliases[local] = a.name if a.asname else a.name.split(".")[0]

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level:
            self.add(node, "import-not-allowed", "relative imports are not allowed",
                     "import from numpy, pandas or sklearn")
            return
        if not self.check_module_name(node, mod):
            return
        for a in node.names:
            if a.name == "*":
                self.add(node, "star-import", f"'from {mod} import *' is not allowed",
                         f"import the names you use, e.g. import {mod.split('.')[0]} as ...")
                continue
            full = f"{mod}.{a.name}"
            if self.check_module_name(node, full, submodule_only=True):
                self.check_attr_name(node, a.name)
                self.aliases[a.asname or a.name] = full

    def check_module_name(self, node, name, submodule_only=False):
        """True when importing `name` is allowed; reports otherwise."""
        parts = name.split(".")
        root = parts[0]
        if not submodule_only:
            if root in BANNED:
                self.add(node, "banned-import", f"package '{root}' is banned",
                         f"remove 'import {root}': write the logic with numpy/pandas")
                return False
            if root not in ALLOWED_ROOTS:
                self.add(node, "import-not-allowed", f"import of '{name}' is not allowed: only "
                         "numpy, pandas and sklearn may be imported",
                         f"remove the '{root}' import")
                return False
        if any(p.startswith("_") for p in parts) or any(
                name == d or name.startswith(d + ".") for d in DENIED_MODULES):
            self.add(node, "import-not-allowed", f"'{name}' is not allowed (file, network or "
                     "internal access)", "use the public numpy/pandas/sklearn computation APIs")
            return False
        return True

    # -- names and attributes ----------------------------------------------
    def check_name(self, node, name):
        if DUNDER.match(name):
            self.add(node, "dunder", f"dunder name '{name}' is not allowed",
                     "use ordinary names; no __special__ access")
            return
        if name in ENGINE and not isinstance(node, ast.FunctionDef):
            self.add(node, "engine-function", f"'{name}' is an engine name",
                     "choose another name")

    def visit_Name(self, node):
        name = node.id
        self.check_name(node, name)
        if DUNDER.match(name):
            return
        if name in FORBIDDEN_BUILTINS:
            self.add(node, "forbidden-builtin", f"'{name}' is not allowed",
                     f"remove '{name}'; compute with pandas/numpy directly")
        elif name in ATTR_BUILTINS and not getattr(node, "_direct_call", False):
            self.add(node, "dynamic-attribute", f"'{name}' may only be called directly",
                     f"call {name}(obj, 'literal_name', ...) or use obj.attr")
        elif name in self.aliases:
            self.check_dotted(node, self.aliases[name])

    def check_attr_name(self, node, attr):
        if DUNDER.match(attr):
            self.add(node, "dunder", f"dunder attribute '{attr}' is not allowed",
                     "use the public API; no __special__ attributes")
        elif attr.startswith("_"):
            self.add(node, "private-attribute", f"private attribute '{attr}' is not allowed",
                     "use the public API")
        elif attr in INTROSPECTION:
            self.add(node, "introspection", f"'{attr}' reaches interpreter internals",
                     "use only pandas/numpy values")
        elif attr in IO_NAMES or attr.startswith(IO_PREFIXES):
            self.add(node, "io-function", f"'{attr}' reads or writes files (or the network)",
                     "use only the df/close/open_/high/low you are given")
        elif attr in STRING_EVAL:
            self.add(node, "string-eval", f"'.{attr}()' evaluates a string expression",
                     "write the expression with pandas operators and boolean masks")
        elif attr in CUT:
            self.add(node, "cut-qcut", f"pd.{attr} is not allowed",
                     "bin with np.where / np.select instead")

    def visit_Attribute(self, node):
        self.check_attr_name(node, node.attr)
        root = dotted(node)
        if root and root.split(".")[0] in self.aliases:
            head, _, rest = root.partition(".")
            self.check_dotted(node, f"{self.aliases[head]}.{rest}")
        self.generic_visit(node)

    def check_dotted(self, node, full):
        # Only the exact module node reports, so a long chain under it reports once.
        if full in DENIED_MODULES:
            self.add(node, "import-not-allowed", f"'{full}' is not allowed (file, network "
                     "or internal access)", "use the public computation APIs")

    def visit_MatchClass(self, node):
        # `case object(__class__=c)` reads attributes without an Attribute node.
        for attr in node.kwd_attrs:
            self.check_attr_name(node, attr)
        self.generic_visit(node)

    def visit_keyword(self, node):
        if node.arg and DUNDER.match(node.arg):
            self.add(node, "dunder", f"dunder keyword '{node.arg}' is not allowed",
                     "use ordinary names")
        self.generic_visit(node)

    def visit_Constant(self, node):
        v = node.value
        if isinstance(v, str) and (DUNDER_INSIDE.search(v) or v in IO_NAMES or v in STRING_EVAL
                                   or v in INTROSPECTION):
            # pandas resolves method names given as strings (df.apply('to_csv', ...)), and
            # str.format reads attributes named in the template ('{0.__class__}').
            self.add(node, "forbidden-string", f"the string '{v}' names a forbidden attribute",
                     "do not pass method names as strings")

    # -- calls -------------------------------------------------------------
    def visit_Call(self, node):
        f = node.func
        if isinstance(f, ast.Name) and f.id in ATTR_BUILTINS:
            f._direct_call = True
            self.check_getattr(node, f.id)
        if isinstance(f, ast.Attribute):
            self.check_shift(node, f.attr)
        if isinstance(f, ast.Name) and f.id == "type" and len(node.args) == 3:
            self.add(node, "forbidden-builtin", "type() with three arguments builds a class",
                     "use plain functions and pandas/numpy objects")
        if isinstance(f, ast.Attribute) and f.attr == "to_string" and node.args:
            self.add(node, "io-function", "to_string(buf) writes to a file",
                     "call .to_string() without a buffer, or better not at all")
        for kw in node.keywords:
            if kw.arg in IO_KEYWORDS:
                self.add(kw.value, "io-function", f"the '{kw.arg}=' argument names a file",
                         f"remove '{kw.arg}=': strategies neither read nor write files")
            if kw.arg == "center" and isinstance(kw.value, ast.Constant) and kw.value.value:
                self.add(kw.value, "centered-window", "center=True uses future bars",
                         "use a trailing window (center=False, the default)")
        self.generic_visit(node)

    def check_getattr(self, node, fn):
        name = node.args[1] if len(node.args) >= 2 else None
        if isinstance(name, ast.Constant) and isinstance(name.value, str):
            if DUNDER.match(name.value) or name.value.startswith("_"):
                self.add(node, "dynamic-attribute", f"{fn}() on '{name.value}' is not allowed",
                         "use the public API; no dunder or private attributes")
            else:
                self.check_attr_name(node, name.value)
        else:
            self.add(node, "dynamic-attribute", f"{fn}() needs a literal attribute name",
                     f"write obj.attr instead of {fn}(obj, <expression>)")

    def check_shift(self, node, method):
        arg = node.args[0] if node.args else None
        for kw in node.keywords:
            if kw.arg == "periods":
                arg = kw.value
        if method in SHIFT_LIKE and arg is not None and is_negative(arg):
            self.add(node, "negative-shift", f".{method}() with a negative period looks into "
                     "the future", f"use .{method}(n) with n >= 1 (past bars only)")
        if method == "roll" and (any(is_negative(a) for a in node.args[1:2]) or any(
                kw.arg == "shift" and is_negative(kw.value) for kw in node.keywords)):
            self.add(node, "negative-shift", "np.roll with a negative shift looks into the "
                     "future", "use series.shift(n) with n >= 1")


def dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def number(node):
    """The value of a constant numeric expression, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = number(node.operand)
        return None if v is None else (-v if isinstance(node.op, ast.USub) else v)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult)):
        a, b = number(node.left), number(node.right)
        if a is None or b is None or abs(a) > 1e9 or abs(b) > 1e9:
            return None
        return a + b if isinstance(node.op, ast.Add) else a - b if isinstance(node.op, ast.Sub) \
            else a * b
    return None


def is_negative(node):
    """Negative for sure, or a unary minus on anything (-n): both count as look-ahead."""
    v = number(node)
    if v is not None:
        return v < 0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return True
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div, ast.FloorDiv)):
        return is_negative(node.left) != is_negative(node.right)
    return False


def is_literal(node):
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        return isinstance(node.operand, ast.Constant)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(is_literal(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is not None and is_literal(k) for k in node.keys) \
            and all(is_literal(v) for v in node.values)
    return False


def check(source):
    try:
        tree = ast.parse(source, "<strategy>")
    except SyntaxError as e:
        return [{"line": e.lineno or 1, "col": e.offset or 1, "rule": "syntax",
                 "message": f"syntax error: {e.msg}", "hint": "fix the Python syntax here"}]
    except (ValueError, RecursionError, MemoryError) as e:
        return [{"line": 1, "col": 1, "rule": "syntax", "message": f"cannot parse: {e}",
                 "hint": "simplify the code (no null bytes, less nesting)"}]
    c = Checker(source)
    try:
        c.check_module(tree)
        c.visit(tree)
    except RecursionError:
        c.out.append({"line": 1, "col": 1, "rule": "syntax", "message": "code is nested too "
                      "deeply to check", "hint": "flatten the expressions"})
    seen, out = set(), []
    for v in sorted(c.out, key=lambda v: (v["line"], v["col"], v["rule"])):
        key = (v["line"], v["col"], v["rule"], v["message"])
        if key not in seen:
            seen.add(key)
            out.append(v)
    return out


def main():
    # The checker parses hostile text: it runs inside the sandbox like a job, confined to its own
    # uid and the seccomp filter before it reads a byte (`--no-jail` when run on its own, in tests).
    if "--no-jail" not in sys.argv:
        import os
        sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
        import jail
        jail.confine(jail.CHECKER_UID, jail.Walls(sys.argv))
    source = sys.stdin.buffer.read().decode("utf-8", "replace")
    violations = check(source)
    json.dump({"ok": not violations, "violations": violations}, sys.stdout)


if __name__ == "__main__":
    main()
