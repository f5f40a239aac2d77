#!/usr/bin/env python3
"""docs/OPERATORS.md names, for every operator, where its rule, lowering, kernels, shaders, tests,
benchmark and tool command are. This checks that each thing it names is there: every `path`
exists, every `path:symbol` holds the symbol's text, every `strix <command>` is one of the
tool's commands, and every operator of the tool has a row in each table."""
import os
import re
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
doc = open(os.path.join(root, "docs", "OPERATORS.md"), encoding="utf-8").read()
# the operator list: X(name, form) lines, named in messages and the tool with '-' for '_'
op_list = open(os.path.join(root, "include", "strix", "ops", "list.hpp"), encoding="utf-8").read()
ops = [m.group(1) for m in re.finditer(r"^\s*X\(([a-z_]+),", op_list, re.M)]
listed = {op.replace("_", "-") for op in ops}
problems = []
# the tool's commands: its table has one entry per line of the list, named by the operator's
# op_traits (examples/strix_args.hpp makes it with STRIX_OPERATORS)
args = open(os.path.join(root, "examples", "strix_args.hpp"), encoding="utf-8").read()
if not re.search(r"operators\{STRIX_OPERATORS\(", args):
    problems.append("examples/strix_args.hpp no longer makes the tool's table from the operator list")
commands = set()
for op in ops:
    header = os.path.join(root, "include", "strix", "ops", op + ".hpp")
    text = open(header, encoding="utf-8").read() if os.path.exists(header) else ""
    m = re.search(r"struct op_traits<" + op + r"_desc>[^{]*\{[^}]*?static constexpr std::string_view name = \"([a-z-]+)\";", text, re.S)
    if m:
        commands.add(m.group(1))
    else:
        problems.append(f"include/strix/ops/{op}.hpp: no op_traits<{op}_desc> with a name")
checked = 0
for token in re.findall(r"`([^`]+)`", doc):
    if token.startswith("strix "):
        checked += 1
        if token.split()[1] not in commands:
            problems.append(f"{token}: not a command of the tool ({sorted(commands)})")
        continue
    path, _, symbol = token.partition(":")
    if "/" not in path:
        continue  # prose in code type, not a place
    checked += 1
    full = os.path.join(root, path)
    if not os.path.exists(full):
        problems.append(f"{token}: {path} does not exist")
    elif symbol and os.path.isfile(full) and symbol not in open(full, encoding="utf-8").read():
        problems.append(f"{token}: {path} does not hold {symbol!r}")
if listed != commands:
    problems.append(f"the tool's commands {sorted(commands)} are not the operators of the list {sorted(listed)}")
# every operator of the list and of the tool has a row in each table
for table in re.split(r"^## ", doc, flags=re.M)[1:]:
    rows = {m.group(1) for m in re.finditer(r"^\| ([a-z-]+) \|", table, re.M)}
    title = table.splitlines()[0]
    for c in sorted((commands | listed) - rows):
        problems.append(f"table '{title}' has no row for {c}")
for p in problems:
    print("FAIL", p)
print(f"operators doc: {checked} places checked, {len(problems)} problems, {len(commands)} tool commands, {len(listed)} listed operators")
sys.exit(1 if problems else 0)
