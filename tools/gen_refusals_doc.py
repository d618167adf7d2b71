#!/usr/bin/python3
"""Collects every place a symbolic declines (sym_unimplemented, and the
helpers' SYM_ERROR_UNSUPPORTED errors) in symbolic/*.c, with the one-line
annotation above it saying what torch 1.13 does in the same case, and writes
them as a table into doc/refusals.md.

Each site must be annotated by a comment that ends on the line directly
above the line holding the call, and starts with "/* torch 1.13:":

  /* torch 1.13: also refuses (...) */                        class a
  /* torch 1.13: exports it as ...; not yet here */           class b
  /* torch 1.13: ...; refused here because ... */             class c

  gen_refusals_doc.py --write     regenerate doc/refusals.md
  gen_refusals_doc.py --check     exit 1 (naming each problem) when a site
                                  lacks an annotation or the doc is stale
  gen_refusals_doc.py --list      one line per site (file:line class op)

Only the standard library is needed (no torch, no build)."""

import argparse
import glob
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
DOC = os.path.join(ROOT, "doc", "refusals.md")
SKIP = {"aten-schemas-generated.c"}

CALL = re.compile(r"\bsym_unimplemented\s*\(")
# Functions that only pass a reason on to sym_unimplemented or g_set_error:
# their callers are the sites, not their own bodies.
WRAPPERS = {"unsupported": "control-flow.c", "arg_error": "context.c"}
WRAPPER_CALL = re.compile(r"\b(%s)\s*\(" % "|".join(WRAPPERS))
SETERR = re.compile(r"\bg_set_error\s*\(\s*error\s*,\s*SYM_ERROR\s*,\s*SYM_ERROR_UNSUPPORTED\b")
FUNC = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\(")
ENTRY = re.compile(r'\bSYM_(FN|DATA|ONNX|REDUCE|CAST)\s*\(\s*"([^"]+)"\s*(?:,\s*([A-Za-z_][A-Za-z0-9_]*))?')
CLASSES = (("a", "also refuses"), ("b", "not yet here"), ("c", "refused here because"))
SHARED = ("context.c", "helpers.c")   # the shared helpers, not one op's
FAMILY = {"ONNX": "sym_onnx_unary", "REDUCE": "sym_reduce_dims", "CAST": "sym_cast_to"}


def c_files():
    return sorted(f for f in glob.glob(os.path.join(ROOT, "symbolic", "*.c"))
                  if os.path.basename(f) not in SKIP)


def functions(lines):
    """[(first line index, name)] of the functions defined at column 0."""
    out = []
    for i, ln in enumerate(lines):
        m = FUNC.match(ln)
        if m and not ln.rstrip().endswith(";") and m.group(1) not in ("if", "while", "for", "switch"):
            out.append((i, m.group(1)))
    return out


def enclosing(funcs, i):
    name = None
    for start, fn in funcs:
        if start <= i:
            name = fn
        else:
            break
    return name


def registered(files):
    """symbolic function name → the op names its table lines register."""
    reg = {}
    for path in files:
        for m in ENTRY.finditer(open(path, encoding="utf-8").read()):
            fn = FAMILY.get(m.group(1), m.group(3))
            if fn:
                reg.setdefault(fn, []).append(m.group(2))
    return reg


def callers(texts, funcs_by_file, fn):
    """The functions (in any file) whose bodies call fn."""
    pat = re.compile(r"\b%s\s*\(" % re.escape(fn))
    out = set()
    for path, lines in texts.items():
        funcs = funcs_by_file[path]
        for i, ln in enumerate(lines):
            if pat.search(ln) and not FUNC.match(ln):
                c = enclosing(funcs, i)
                if c and c != fn:
                    out.add(c)
    return out


def ops_of(fn, reg, texts, funcs_by_file, depth=3):
    """The registered op names reaching fn, through at most `depth` calls."""
    seen, frontier, ops = {fn}, [fn], []
    for _ in range(depth + 1):
        nxt = []
        for f in frontier:
            ops.extend(reg.get(f, []))
            if f not in reg:
                for c in sorted(callers(texts, funcs_by_file, f)):
                    if c not in seen:
                        seen.add(c)
                        nxt.append(c)
        if ops:
            break
        frontier = nxt
    return sorted(set(ops))


def string_literals(text):
    return "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', text))


def call_text(lines, i, start):
    """The text of the call from its opening parenthesis to its closing one."""
    depth, out = 0, []
    j, pos = i, lines[i].index("(", start)
    while j < len(lines):
        s = lines[j][pos:]
        for k, ch in enumerate(s):
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
                if depth == 0:
                    out.append(s[:k + 1])
                    return " ".join(x.strip() for x in out)
        out.append(s)
        j, pos = j + 1, 0
    return " ".join(out)


def annotation(lines, i):
    """The torch 1.13 comment ending directly above line i, or None."""
    j = i - 1
    if j < 0 or not lines[j].rstrip().endswith("*/"):
        return None
    k = j
    while k >= 0 and "/*" not in lines[k]:
        k -= 1
    if k < 0:
        return None
    parts = [lines[k].strip()] + [re.sub(r"^\*(\s|$)", "", ln.strip()) for ln in lines[k + 1:j + 1]]
    text = " ".join(parts)
    text = text[text.index("/*") + 2:]
    text = text[:text.rindex("*/")].strip()
    if not text.startswith("torch 1.13:"):
        return None
    return text[len("torch 1.13:"):].strip()


def classify(note):
    for cls, key in CLASSES:
        if key in note:
            return cls
    return None


def sites():
    files = c_files()
    texts = {p: open(p, encoding="utf-8").read().split("\n") for p in files}
    funcs_by_file = {p: functions(texts[p]) for p in files}
    reg = registered(files)
    out = []
    for path in files:
        lines = texts[path]
        for i, ln in enumerate(lines):
            code = ln.split("//")[0]
            m = CALL.search(code)
            kind = "sym_unimplemented"
            if m is None:
                m = SETERR.search(code)
                kind = "decline"
            if m is None and WRAPPERS.get(WRAPPER_CALL.search(code).group(1) if WRAPPER_CALL.search(code)
                                          else None) == os.path.basename(path):
                m = WRAPPER_CALL.search(code)
                kind = "decline"
            if m is None or FUNC.match(ln):   # a definition
                continue
            fn = enclosing(funcs_by_file[path], i)
            if fn in WRAPPERS or fn == "sym_unimplemented":
                continue
            text = call_text(lines, i, m.start())
            if WRAPPER_CALL.match(text) or m.re is WRAPPER_CALL:
                msg = string_literals(text)
                if m.group(0).startswith("arg_error"):
                    msg = "an argument that is not " + msg
            else:
                after = "SYM_ERROR_UNSUPPORTED" if "SYM_ERROR_UNSUPPORTED" in text else "error"
                msg = string_literals(text.split(after, 1)[-1])
            msg = msg.replace("%%", "%").replace('\\"', '"')
            note = annotation(lines, i)
            out.append({
                "file": os.path.relpath(path, ROOT), "line": i + 1, "function": fn,
                "ops": ops_of(fn, reg, texts, funcs_by_file) if fn else [],
                "kind": kind, "message": msg, "note": note,
                "class": classify(note) if note else None,
            })
    return out


def md_escape(s):
    return s.replace("|", "\\|").replace("\n", " ")


def render(ss):
    counts = {c: sum(1 for s in ss if s["class"] == c) for c, _ in CLASSES}
    n_unimpl = sum(1 for s in ss if s["kind"] == "sym_unimplemented")
    lines = [
        "# Refusals: where a symbolic declines, and what torch 1.13 does there",
        "",
        "<!-- generated by tools/gen_refusals_doc.py from the comments above each site; "
        "do not edit: tests/symbolic (/symbolic/refusals-doc) fails when it is stale -->",
        "",
        "Every place in `symbolic/` where a symbolic declines a form of its op "
        "(`sym_unimplemented`, and the helpers' `SYM_ERROR_UNSUPPORTED` errors) carries a one-line "
        "comment saying what torch 1.13's own symbolic does in the same case. Under "
        "`--mode aten-fallback` each declined aten node is written as an ATen fallback node "
        "instead (the executor runs it); in the default mode the export fails naming the node, "
        "its source line and the reason below.",
        "",
        "- **a** — torch 1.13 refuses too (`_unimplemented`, `_onnx_unsupported`, "
        "`_onnx_opset_unsupported`, or an exception);",
        "- **b** — torch 1.13 exports this case and symonnx does not yet: the note says how torch "
        "writes it;",
        "- **c** — torch 1.13 exports something here that symonnx refuses on purpose (a wrong "
        "function, or a form that is not correct in general): the note says why.",
        "",
        f"{len(ss)} sites ({n_unimpl} `sym_unimplemented` calls, {len(ss) - n_unimpl} helper "
        f"declines): a {counts['a']}, b {counts['b']}, c {counts['c']}. Regenerate with "
        "`tools/gen_refusals_doc.py --write` (also run by `tools/regen-docs.sh`).",
        "",
        "The table names each site by file and function, not line, so that it changes only "
        "when a refusal or its comment does (`--list` prints the lines).",
        "",
        "| site | op | refused case | class | torch 1.13 |",
        "|---|---|---|---|---|",
    ]
    for s in ss:
        if s["ops"] and len(s["ops"]) <= 8 and not s["file"].endswith(SHARED):
            ops = ", ".join(f"`{o}`" for o in s["ops"])
        else:   # a helper every symbolic may reach: its name says more
            ops = f"`{s['function']}()`"
        lines.append(f"| {s['file']} `{s['function']}` | {ops} | {md_escape(s['message'])} | "
                     f"{s['class'] or '?'} | {md_escape(s['note'] or '(no annotation)')} |")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write", action="store_true", help="regenerate doc/refusals.md")
    g.add_argument("--check", action="store_true", help="fail on a missing annotation or a stale doc")
    g.add_argument("--list", action="store_true", help="print one line per site")
    a = ap.parse_args()
    ss = sites()
    if a.list:
        for s in ss:
            print(f"{s['file']}:{s['line']}\t{s['class'] or '?'}\t{s['function']}\t"
                  f"{','.join(s['ops'])}\t{s['message']}\t{s['note'] or ''}")
        return 0
    bad = [s for s in ss if s["class"] is None]
    for s in bad:
        why = "no '/* torch 1.13: ... */' comment directly above it" if s["note"] is None else \
            "its comment says none of: " + ", ".join(f"'{k}'" for _, k in CLASSES)
        print(f"{s['file']}:{s['line']}: {s['function']}: refusal \"{s['message']}\": {why}")
    text = render(ss)
    if a.write:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(text)
        print(f"wrote {os.path.relpath(DOC, ROOT)}: {len(ss)} sites, {len(bad)} unannotated")
        return 1 if bad else 0
    old = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else ""
    if old != text:
        print(f"{os.path.relpath(DOC, ROOT)} is stale: run tools/gen_refusals_doc.py --write")
        return 1
    if bad:
        return 1
    print(f"{len(ss)} refusal sites, each annotated; {os.path.relpath(DOC, ROOT)} is current")
    return 0


if __name__ == "__main__":
    sys.exit(main())
