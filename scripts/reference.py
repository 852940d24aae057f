#!/usr/bin/env python3
"""The reference in docs/reference/, generated from one source of truth each:

  lua.md  from the LuaLS type definitions in types/ (what editors complete),
  cli.md  from the command line parser itself (`stampede help --reference`).

  scripts/reference.py --write [--bin build/stampede]   regenerate both files
  scripts/reference.py --check [--bin build/stampede]   exit 1 and say what is missing or stale

--check also reads the sources, so that nothing can be added without its entry:
every Lua function registered in src/scenario/module_*.cpp and its Lua half (src/scenario/lua/)
must have a definition in types/, every flag in src/cli/ a row in cli.md, every metric the code records a row in
docs/reference/metrics.md (written by hand). Standard library only."""
import argparse
import difflib
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TYPES = os.path.join(ROOT, "types")
REFERENCE = os.path.join(ROOT, "docs", "reference")
MODULE_ORDER = ["stampede", "stampede.http", "stampede.channels", "stampede.liveview", "stampede.websocket",
                "stampede.sse", "stampede.graphql_ws", "stampede.socketio", "stampede.json", "stampede.error"]
# How a method is shown: `socket:join(...)` for the class stampede.channels.Socket.
INSTANCE_NAMES = {"Response": "res", "View": "view", "Socket": "socket", "Presence": "presence",
                  "Absinthe": "absinthe", "Stream": "stream", "Client": "client"}


# ---------------------------------------------------------------------------------------
# The type definitions (types/**/*.lua): `---` comment blocks above declarations.

class Entry:
    def __init__(self, kind, name, block, owner=None, params_text=""):
        self.kind, self.name, self.owner, self.params_text = kind, name, owner, params_text
        self.doc = [l for l in block if not l.startswith("@")]
        self.tags = [l for l in block if l.startswith("@")]

    def tag(self, name):
        return [t[len(name) + 2:] for t in self.tags if t.startswith("@" + name + " ")]


class Module:
    def __init__(self, name, path):
        self.name, self.path = name, path
        self.var = None          # the local returned: `return channels`
        self.doc = []
        self.functions = []      # module-level functions and values
        self.classes = {}        # local var -> class Entry (with .methods)
        self.types = []          # classes and aliases in file order


def parse_types(path):
    lines = open(path, encoding="utf-8").read().splitlines()
    meta = re.match(r"---@meta\s+(\S+)", lines[0]) if lines else None
    if not meta:
        raise SystemExit(f"{path}: the first line must be `---@meta <module name>`")
    module = Module(meta.group(1), path)
    for line in reversed(lines):
        m = re.match(r"return\s+(\w+)", line)
        if m:
            module.var = m.group(1)
            break
    block = []
    for line in lines[1:] + [""]:
        if line.startswith("---"):
            block.append(line[3:].strip())
            continue
        if not block:
            continue
        is_class = any(l.startswith("@class ") or l.startswith("@alias ") for l in block)
        m_fn = re.match(r"function\s+(\w+)([.:])(\w+)\((.*)\)", line)
        m_local = re.match(r"local\s+(\w+)\s*=\s*\{\}", line)
        m_value = re.match(r"(\w+)\.(\w+)\s*=", line)
        if m_fn:
            owner, sep, name, params = m_fn.groups()
            entry = Entry("method" if sep == ":" else "function", name, block, owner, params)
            if sep == ":":
                if owner not in module.classes:
                    raise SystemExit(f"{path}: {owner}:{name} before `local {owner} = {{}}` with its ---@class")
                module.classes[owner].methods.append(entry)
            else:
                module.functions.append(entry)
        elif m_local and is_class:
            entry = Entry("class", block_class_name(block), block, m_local.group(1))
            entry.methods = []
            module.classes[m_local.group(1)] = entry
            module.types.append(entry)
        elif m_local and m_local.group(1) == module.var:
            module.doc = block
        elif m_value:
            module.functions.append(Entry("value", m_value.group(2), block, m_value.group(1)))
        elif is_class:
            for entry in split_types(block):
                module.types.append(entry)
        block = []
    return module


def block_class_name(block):
    for l in block:
        m = re.match(r"@(?:class|alias)\s+(\S+)", l)
        if m:
            return m.group(1)
    return "?"


def split_types(block):
    """A block may hold several ---@alias lines (each with the text above it)."""
    out, pending = [], []
    for l in block:
        if l.startswith("@alias "):
            entry = Entry("alias", l.split()[1], pending + [l])
            entry.alias_type = l.split(None, 2)[2] if len(l.split(None, 2)) > 2 else ""
            entry.methods = []
            out.append(entry)
            pending = []
        elif l.startswith("@class ") and not out:
            pending.append(l)
        else:
            pending.append(l)
    if pending and any(p.startswith("@class ") for p in pending):
        entry = Entry("class", block_class_name(pending), pending)
        entry.methods = []
        out.append(entry)
    return out


def load_modules():
    paths = glob.glob(os.path.join(TYPES, "*.lua")) + glob.glob(os.path.join(TYPES, "stampede", "*.lua"))
    modules = {m.name: m for m in (parse_types(p) for p in paths)}
    order = [n for n in MODULE_ORDER if n in modules] + sorted(n for n in modules if n not in MODULE_ORDER)
    return [modules[n] for n in order]


# ---------------------------------------------------------------------------------------
# lua.md

def md_cell(text):
    return text.replace("|", "\\|")


KNOWN_TYPES = set()   # class and alias names, filled by generate_lua_md


def anchor(name):
    """GitHub's anchor of a heading `#### \`name\``."""
    return re.sub(r"[^a-z0-9 _-]", "", name.lower()).replace(" ", "-")


def type_cell(typ):
    """A type, linked to its definition when it is one of ours (also as a list or optional)."""
    base = typ[:-2] if typ.endswith("[]") else typ
    if base in KNOWN_TYPES:
        return f"[`{md_cell(typ)}`](#{anchor(base)})"
    return f"`{md_cell(typ)}`"


def param_list(entry):
    names = [p.strip() for p in entry.params_text.split(",") if p.strip()]
    return ", ".join(names)


def split_tag(text):
    """`name type description` -> (name, type, description); types may contain spaces in
    braces or parentheses, e.g. `fun(vu: stampede.Vu)` or `{ [1]: string }`."""
    name, _, rest = text.partition(" ")
    depth, i = 0, 0
    while i < len(rest):
        c = rest[i]
        if c in "({<[":
            depth += 1
        elif c in ")}>]":
            depth -= 1
        elif c == " " and depth == 0:
            if not (rest[i - 1] in ",:|" or rest[i + 1:i + 2] in ("|",) or rest[i - 1] == "|"):
                break
        i += 1
    return name, rest[:i].strip(), rest[i:].strip()


def render_function(module, entry, out):
    if entry.kind == "value":
        types = entry.tag("type")
        out.append(f"#### `{module.var}.{entry.name}`\n")
        out.append(" ".join(entry.doc) + (f" (`{types[0]}`)" if types else "") + "\n")
        return
    if entry.kind == "method":
        shown = f"{INSTANCE_NAMES.get(entry.owner, entry.owner.lower())}:{entry.name}"
    else:
        shown = f"{module.var}.{entry.name}"
    returns = [split_tag(r) if " " in r else (r, "", "") for r in entry.tag("return")]
    ret_text = ", ".join(r[0] for r in returns)
    out.append(f"#### `{shown}({param_list(entry)})`" + (f" → `{ret_text}`" if ret_text else "") + "\n")
    if entry.doc:
        out.append(" ".join(entry.doc) + "\n")
    params = [split_tag(p) for p in entry.tag("param")]
    if params:
        out.append("| parameter | type | meaning |\n|---|---|---|")
        for name, typ, desc in params:
            out.append(f"| `{name}` | {type_cell(typ)} | {md_cell(desc)} |")
        out.append("")
    for name, _, desc in [r for r in returns if r[2]]:
        out.append(f"Returns `{name}`: {desc}\n")


def render_type(entry, out):
    out.append(f"#### `{entry.name}`\n")
    if entry.doc:
        out.append(" ".join(entry.doc) + "\n")
    if entry.kind == "alias":
        out.append(f"Type: `{md_cell(entry.alias_type)}`\n")
        return
    fields = [split_tag(f) for f in entry.tag("field")]
    if fields:
        out.append("| field | type | meaning |\n|---|---|---|")
        for name, typ, desc in fields:
            out.append(f"| `{name}` | {type_cell(typ)} | {md_cell(desc)} |")
        out.append("")


def generate_lua_md(modules):
    KNOWN_TYPES.clear()
    KNOWN_TYPES.update(t.name for m in modules for t in m.types)
    out = ["# Lua API reference", "",
           "<!-- Generated by scripts/reference.py from the LuaLS type definitions in types/: do not edit.",
           "     Change types/ and run:  scripts/reference.py --write -->", "",
           "A scenario is a Lua file that returns a table (`stampede.Scenario` below). Every module is",
           "loaded with `require`. Your editor completes all of this when it reads the type definitions",
           "(`stampede new` writes a `.luarc.json` pointing at them). Durations are milliseconds",
           "(numbers) or strings such as `\"250ms\"`, `\"30s\"`, `\"1m\"`. Metrics: [metrics.md](metrics.md);",
           "command line: [cli.md](cli.md).", "",
           "| module | |", "|---|---|"]
    for m in modules:
        anchor = m.name.replace(".", "")
        out.append(f"| [`{m.name}`](#{anchor}) | {md_cell(' '.join(m.doc)) if m.doc else ''} |")
    out.append("")
    for m in modules:
        out.append(f"## `{m.name}`\n")
        if m.doc:
            out.append(" ".join(m.doc) + "\n")
        out.append(f"```lua\nlocal {m.var} = require \"{m.name}\"\n```\n")
        for entry in m.functions:
            render_function(m, entry, out)
        for t in m.types:
            if t.kind == "class" and t.owner and t.methods:
                out.append(f"### `{t.name}`\n")
                if t.doc:
                    out.append(" ".join(t.doc) + "\n")
                fields = [split_tag(f) for f in t.tag("field")]
                if fields:
                    out.append("| field | type | meaning |\n|---|---|---|")
                    for name, typ, desc in fields:
                        out.append(f"| `{name}` | {type_cell(typ)} | {md_cell(desc)} |")
                    out.append("")
                for method in t.methods:
                    render_function(m, method, out)
        others = [t for t in m.types if not (t.kind == "class" and t.owner and t.methods)]
        if others:
            out.append(f"### Types of `{m.name}`\n")
            for t in others:
                render_type(t, out)
    return "\n".join(out).rstrip() + "\n"


# ---------------------------------------------------------------------------------------
# What the sources register.

# C functions that are methods of a table other than the module (response metatable).
C_METHODS = {("stampede.http", "json"): ("Response", "json")}


def module_name_of(path):
    base = os.path.basename(path)[len("module_"):-len(".cpp")]
    return "stampede" if base == "stampede" else "stampede." + base


def source_functions():
    """{module: set of "name" (module functions) and "Class:name" (methods)}"""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "src", "scenario", "module_*.cpp"))):
        module = module_name_of(path)
        text = open(path, encoding="utf-8").read()
        names = found.setdefault(module, set())
        # A module's Lua half is src/scenario/lua/<name>.lua (cmake/ScenarioLua.cmake embeds it).
        lua_path = os.path.join(ROOT, "src", "scenario", "lua", os.path.basename(path)[len("module_"):-len(".cpp")] + ".lua")
        chunks = [open(lua_path, encoding="utf-8").read()] if os.path.exists(lua_path) else []
        c_public = not chunks
        for chunk in chunks:
            first = next((l.strip() for l in chunk.splitlines() if l.strip() and not l.strip().startswith("--")), "")
            if re.fullmatch(r"local\s+M\s*=\s*\.\.\.", first):
                c_public = True
            for name in re.findall(r"^function\s+M\.(\w+)", chunk, re.M):
                names.add(name)
            for owner, name in re.findall(r"^function\s+(\w+):(\w+)", chunk, re.M):
                names.add(f"{owner}:{name}")
            for name in re.findall(r"^M\.(\w+)\s*=\s*M\.\w+", chunk, re.M):
                names.add(name)
            # for _, kind in ipairs({ "click", ... }) do  View[kind] = function ...
            for listed, owner in re.findall(r"for\s+_,\s*\w+\s+in\s+ipairs\(\{([^}]*)\}\)\s+do\s*\n\s*(?:local[^\n]*\n\s*)*(\w+)\[\w+\]\s*=",
                                            chunk):
                for name in re.findall(r'"(\w+)"', listed):
                    names.add(name if owner == "M" else f"{owner}:{name}")
        if c_public:
            for name in re.findall(r'\{"(\w+)",\s*l_\w+\}', text):
                names.add(name)
            for name in re.findall(r"lua_pushcfunction\(L,\s*\w+\);\s*\n\s*lua_setfield\(L,\s*-2,\s*\"(\w+)\"\)", text):
                owner_name = C_METHODS.get((module, name))
                names.add(f"{owner_name[0]}:{owner_name[1]}" if owner_name else name)
        found[module] = {n for n in names if not n.split(":")[-1].startswith("_")}
    return found


def documented_functions(modules):
    out = {}
    for m in modules:
        names = out.setdefault(m.name, set())
        for f in m.functions:
            if f.kind == "function":
                names.add(f.name)
        for var, cls in m.classes.items():
            for method in cls.methods:
                names.add(f"{var}:{method.name}")
    return out


def source_flags():
    flags = set()
    for path in glob.glob(os.path.join(ROOT, "src", "cli", "*.cpp")) + glob.glob(os.path.join(ROOT, "src", "cli", "*.hpp")):
        text = open(path, encoding="utf-8").read()
        for call in re.finditer(r"add_(?:option|flag)\(\s*\"([^\"]+)\"", text):
            for name in call.group(1).split(","):
                if name.startswith("--"):
                    flags.add(re.sub(r"\{.*\}$", "", name))  # CLI11's --flag{default}
    return flags


def source_metrics():
    metrics = set()
    for path in glob.glob(os.path.join(ROOT, "src", "**", "*.[ch]pp"), recursive=True):
        text = open(path, encoding="utf-8").read()
        for name in re.findall(r"\bid\(\s*\"([a-z_]+(?:\.[a-z_]+)*)\"", text):
            metrics.add(name)
        for name in re.findall(r"pair\(\s*sink,\s*\"([a-z_]+(?:\.[a-z_]+)*)\"\)", text):
            metrics.update({name, name + ".errors"})
        if os.path.dirname(path).endswith(os.path.join("src", "metrics")) and path.endswith(".hpp"):
            # The names the engine records itself: `inline constexpr std::string_view kVus = "vus";`
            metrics.update(n for n in re.findall(r"string_view\s+k\w+\s*=\s*\"([a-z_][a-z_.]*)\"", text)
                           if not n.startswith("_"))
    return metrics


# ---------------------------------------------------------------------------------------

def cli_reference(binary):
    return subprocess.run([binary, "help", "--reference"], check=True, capture_output=True, text=True).stdout


def stale(path, wanted):
    current = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
    if current == wanted:
        return None
    diff = difflib.unified_diff(current.splitlines(), wanted.splitlines(), path, "generated", lineterm="", n=1)
    return "\n".join(list(diff)[:40])


def check(binary):
    problems = []
    modules = load_modules()
    documented = documented_functions(modules)
    for module, names in sorted(source_functions().items()):
        for name in sorted(names - documented.get(module, set())):
            problems.append(f"Lua: {module} registers `{name}` (src/scenario/) but types/ has no definition of it")
        for name in sorted(documented.get(module, set()) - names):
            problems.append(f"Lua: types/ defines `{module}` `{name}`, which src/scenario/ does not register")
    diff = stale(os.path.join(REFERENCE, "lua.md"), generate_lua_md(modules))
    if diff:
        problems.append("docs/reference/lua.md is not what types/ generates (run scripts/reference.py --write):\n" + diff)

    cli_md_path = os.path.join(REFERENCE, "cli.md")
    cli_md = open(cli_md_path, encoding="utf-8").read() if os.path.exists(cli_md_path) else ""
    for flag in sorted(source_flags()):
        if f"`{flag}`" not in cli_md:
            problems.append(f"CLI: the flag {flag} (src/cli/) has no entry in docs/reference/cli.md")
    diff = stale(cli_md_path, cli_reference(binary))
    if diff:
        problems.append("docs/reference/cli.md is not what `stampede help --reference` prints "
                        "(run scripts/reference.py --write):\n" + diff)

    metrics_md = open(os.path.join(REFERENCE, "metrics.md"), encoding="utf-8").read()
    for metric in sorted(source_metrics()):
        if f"`{metric}`" not in metrics_md:
            problems.append(f"metrics: `{metric}` is recorded (src/) but docs/reference/metrics.md has no entry for it")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--bin", default=os.environ.get("STAMPEDE_BIN", os.path.join(ROOT, "build", "stampede")))
    args = parser.parse_args()
    if args.write:
        os.makedirs(REFERENCE, exist_ok=True)
        with open(os.path.join(REFERENCE, "lua.md"), "w", encoding="utf-8") as f:
            f.write(generate_lua_md(load_modules()))
        with open(os.path.join(REFERENCE, "cli.md"), "w", encoding="utf-8") as f:
            f.write(cli_reference(args.bin))
    if args.check or not args.write:
        problems = check(args.bin)
        for p in problems:
            print(p)
        if problems:
            sys.exit(1)
        print("reference complete: every Lua function, flag and metric has its entry")


if __name__ == "__main__":
    main()
