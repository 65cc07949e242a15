#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ynl_spec_test.py - the netlink spec and the uAPI header agree.

Documentation/netlink/specs/pfcwd.yaml (for the kernel's ynl) and
include/uapi/linux/pfcwd.h (for C) describe the same generic netlink family.
This test, run by "make unit", fails as soon as they drift:

 - the spec validates against the schema of ynl from linux-source-6.12
   (build/ynl, unpacked by scripts/deps.sh) and ynl's library loads it;
 - ynl's own generator (ynl-gen-c.py --mode uapi) renders the C constants
   the spec implies; every one of them must be in the header with the same
   value, in an enum of the same name, and every generic netlink constant
   of the header must come from the spec (the few the spec cannot express
   are named below and checked by rule);
 - attribute types and enums match the header's member comments;
 - both headers are parsed as text, and the C compiler confirms the parse;
 - finally the check itself is shown to catch drift: mutated copies of the
   spec and of the header must each be refused.

Output is TAP.  Usage: ynl_spec_test.py [--top DIR]
"""
import ast
import copy
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
if len(sys.argv) == 3 and sys.argv[1] == "--top":
    TOP = os.path.abspath(sys.argv[2])
SPEC = os.path.join(TOP, "Documentation/netlink/specs/pfcwd.yaml")
HEADER = os.path.join(TOP, "include/uapi/linux/pfcwd.h")
YNL = os.path.join(TOP, "build/ynl")
YNL_TOOLS = os.path.join(YNL, "tools/net/ynl")
SCHEMAS = os.path.join(YNL, "Documentation/netlink")

# Header constants outside the generic netlink family (the tc interface).
TC_ONLY = {"PFCWD_LIMIT_MAX"}
TC_PREFIXES = ("TCA_", "TC_")

# Attribute types the header's member comments may name.
TYPE_WORDS = {"u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
              "string", "nest", "flag", "binary", "uint", "sint"}


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = 0

    def ok(self, cond, desc, detail=()):
        self.n += 1
        print(("ok %d - %s" if cond else "not ok %d - %s") % (self.n, desc))
        if not cond:
            self.failed += 1
            for line in detail:
                print("# " + str(line))
        return cond


# ---- header parsing -------------------------------------------------------

class Header:
    """Enums and defines of a C header, values computed from the text.

    enums: list of (tag or None, [(name, value, comment)]) in order;
    defines: {name: int or str}; values: every named integer or string.
    """

    TOKEN = re.compile(r"/\*.*?\*/|\n|,|=|[^,=\n/]+|/", re.S)

    def __init__(self, text):
        self.enums = []
        self.defines = {}
        self.values = {}
        self.problems = []
        self._parse(text)

    def _eval(self, expr):
        expr = expr.strip()
        m = re.fullmatch(r'"([^"\\]*)"', expr)
        if m:
            return m.group(1)
        py = re.sub(r"\b(0x[0-9a-fA-F]+|\d+)[uUlL]*\b", r"\1", expr)
        names = set(re.findall(r"\b[A-Za-z_]\w*\b", py))
        env = {}
        for name in names:
            if name not in self.values or not isinstance(self.values[name], int):
                raise ValueError("unknown name %s in '%s'" % (name, expr))
            env[name] = self.values[name]
        tree = ast.parse(py, mode="eval")
        allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant,
                   ast.Name, ast.Load, ast.Add, ast.Sub, ast.Mult,
                   ast.LShift, ast.RShift, ast.BitOr, ast.BitAnd,
                   ast.Invert, ast.USub)
        for node in ast.walk(tree):
            if not isinstance(node, allowed):
                raise ValueError("cannot evaluate '%s'" % expr)
        return eval(compile(tree, "<header>", "eval"), {"__builtins__": {}}, env)

    def _parse(self, text):
        pos = 0
        pattern = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\(?)[ \t]*([^\n]*)$"
                             r"|\benum\b[ \t]*(\w*)\s*\{(.*?)\}\s*;",
                             re.M | re.S)
        for m in pattern.finditer(text):
            if m.group(1):
                name, func, rest = m.group(1), m.group(2), m.group(3)
                rest = re.sub(r"/\*.*?\*/", "", rest).strip()
                if func or not rest:
                    continue
                try:
                    val = self._eval(rest)
                except (ValueError, SyntaxError) as e:
                    self.problems.append("define %s: %s" % (name, e))
                    continue
                self.defines[name] = val
                self.values[name] = val
            else:
                self._parse_enum(m.group(4) or None, m.group(5))
            pos = m.end()

    def _parse_enum(self, tag, body):
        members = []
        cur = None          # [name, expr] of the member being read
        last = None         # the member last completed on this line
        nextval = 0

        def finish():
            nonlocal cur, last, nextval
            if cur is None:
                return
            name, expr = cur
            try:
                val = self._eval(expr) if expr is not None else nextval
            except (ValueError, SyntaxError) as e:
                self.problems.append("enum member %s: %s" % (name, e))
                val = None
            if val is not None:
                nextval = val + 1
                self.values[name] = val
            members.append([name, val, ""])
            last = members[-1]
            cur = None

        for tok in self.TOKEN.findall(body):
            if tok.startswith("/*"):
                # A comment after a member, on its line, describes it.
                finish()
                if last is not None and not last[2]:
                    last[2] = " ".join(tok[2:-2].split())
            elif tok == "\n":
                finish()
                last = None
            elif tok == ",":
                finish()
            elif tok == "=":
                if cur is not None:
                    cur[1] = ""
            elif tok.strip():
                if cur is None:
                    cur = [tok.strip(), None]
                elif cur[1] is not None:
                    cur[1] += tok
                else:
                    self.problems.append("cannot parse '%s' in enum" % tok)
        finish()
        self.enums.append((tag, [tuple(x) for x in members]))

    def enum_of(self, name):
        for tag, members in self.enums:
            if any(m[0] == name for m in members):
                return tag, members
        return None, None


def c_confirms(header_path, hdr):
    """The C compiler's values of every constant hdr parsed; [] if equal."""
    problems = []
    names = sorted(hdr.values)
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "v.c")
        exe = os.path.join(d, "v")
        with open(src, "w") as f:
            f.write('#include <stdio.h>\n#include "%s"\nint main(void)\n{\n'
                    % header_path)
            for n in names:
                if isinstance(hdr.values[n], str):
                    f.write('\tprintf("%s=\\"%%s\\"\\n", %s);\n' % (n, n))
                else:
                    f.write('\tprintf("%s=%%lld\\n", (long long)(%s));\n'
                            % (n, n))
            f.write("\treturn 0;\n}\n")
        cc = subprocess.run(["cc", "-Wall", "-Werror", "-o", exe, src],
                            capture_output=True, text=True)
        if cc.returncode:
            return ["cc: " + line for line in cc.stderr.splitlines()[:20]]
        out = subprocess.run([exe], capture_output=True, text=True).stdout
    seen = {}
    for line in out.splitlines():
        n, v = line.split("=", 1)
        seen[n] = v[1:-1] if v.startswith('"') else int(v)
    for n in names:
        if seen.get(n) != hdr.values[n]:
            problems.append("%s: parsed %r, the compiler says %r"
                            % (n, hdr.values[n], seen.get(n)))
    return problems


# ---- ynl ------------------------------------------------------------------

def load_module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Ynl:
    def __init__(self):
        sys.path.insert(0, YNL_TOOLS)
        import yaml
        import jsonschema
        self.yaml = yaml
        self.jsonschema = jsonschema
        self.lib = importlib.import_module("lib")
        self.gen = load_module("ynl_gen_c", os.path.join(YNL_TOOLS, "ynl-gen-c.py"))


def spec_tree(d, spec_text, proto):
    """A kernel-like tree in d (ynl-gen-c wants MAINTAINERS above the spec
    and finds the schema next to specs/).  Returns the spec's path."""
    os.makedirs(os.path.join(d, "Documentation/netlink/specs"), exist_ok=True)
    open(os.path.join(d, "MAINTAINERS"), "w").close()
    shutil.copy(os.path.join(SCHEMAS, proto + ".yaml"),
                os.path.join(d, "Documentation/netlink", proto + ".yaml"))
    path = os.path.join(d, "Documentation/netlink/specs/pfcwd.yaml")
    with open(path, "w") as f:
        f.write(spec_text)
    return path


class Result:
    """Everything check() learnt; problems by aspect."""

    def __init__(self):
        self.problems = {k: [] for k in
                         ("schema", "load", "gen", "spec-in-header",
                          "header-in-spec", "types", "ops")}
        self.gen_header = None
        self.gen_path = None

    def all(self):
        return [p for v in self.problems.values() for p in v]


def check(y, spec_text, header_text, keep=None):
    """Compares a spec (YAML text) with a header (C text)."""
    r = Result()
    P = r.problems
    spec = y.yaml.safe_load(spec_text)
    proto = spec.get("protocol", "genetlink") if isinstance(spec, dict) else "genetlink"
    schema_path = os.path.join(SCHEMAS, proto + ".yaml")
    if not os.path.exists(schema_path):
        P["schema"].append("no ynl schema for protocol '%s'" % proto)
        return r
    with open(schema_path) as f:
        schema = y.yaml.safe_load(f)
    try:
        y.jsonschema.validate(spec, schema)
    except y.jsonschema.ValidationError as e:
        P["schema"].append("%s (at %s)" % (e.message.splitlines()[0],
                                          "/".join(map(str, e.absolute_path))))
        return r

    hdr = Header(header_text)
    P["header-in-spec"] += hdr.problems

    d = keep or tempfile.mkdtemp()
    try:
        path = spec_tree(d, spec_text, proto)
        try:
            fam = y.lib.SpecFamily(path, schema_path)
            gfam = y.gen.Family(path, [])
        except Exception as e:      # ynl raises plain Exceptions
            P["load"].append("ynl cannot load the spec: %r" % e)
            return r
        out = os.path.join(d, "gen.h")
        gen = subprocess.run([sys.executable, os.path.join(YNL_TOOLS, "ynl-gen-c.py"),
                              "--mode", "uapi", "--header", "--spec", path,
                              "-o", out], capture_output=True, text=True)
        if gen.returncode:
            P["gen"].append("ynl-gen-c: " + (gen.stderr or gen.stdout).strip())
            return r
        with open(out) as f:
            r.gen_header = Header(f.read())
        r.gen_path = out
        P["gen"] += r.gen_header.problems
        compare(r, hdr, r.gen_header, fam, gfam)
    finally:
        if keep is None:
            shutil.rmtree(d)
    return r


def compare(r, hdr, gen, fam, gfam):
    P = r.problems

    # 1. Every constant the spec implies, in the header, same value and enum.
    for name, val in gen.values.items():
        if name not in hdr.values:
            P["spec-in-header"].append("%s = %r (spec) is not in the header" % (name, val))
        elif hdr.values[name] != val:
            P["spec-in-header"].append("%s: spec %r, header %r" % (name, val, hdr.values[name]))
    for tag, members in gen.enums:
        htag, hmembers = hdr.enum_of(members[0][0])
        if hmembers is None:
            continue
        if htag != tag:
            P["spec-in-header"].append("%s is in enum %s in the header, %s in the spec"
                                       % (members[0][0], htag or "(anonymous)",
                                          tag or "(anonymous)"))
        gnames = [m[0] for m in members]
        hnames = [m[0] for m in hmembers if m[0] in gen.values]
        if gnames != hnames:
            i = next(i for i, (a, b) in enumerate(zip(gnames + [None], hnames + [None]))
                     if a != b)
            P["spec-in-header"].append("enum of %s: member %d is %s in the spec, %s in the header"
                                       % (tag or members[0][0], i,
                                          (gnames + [None])[i], (hnames + [None])[i]))

    # 2. Every generic netlink constant of the header, from the spec.
    for tag, members in hdr.enums:
        if any(m[0].startswith(TC_PREFIXES) for m in members):
            continue
        named = [m for m in members if m[0] in gen.values]
        for i, (name, val, _) in enumerate(members):
            if name in gen.values:
                continue
            # enum foo { X_UNSPEC, (spec attributes / commands from 1) }
            if i == 0 and name.endswith("_UNSPEC") and val == 0 and \
                    named and min(m[1] for m in named) == 1:
                continue
            # __X_CNT: one past the last member, after the spec's ones.
            if name.startswith("__") and name.endswith("_CNT") and \
                    i == len(members) - 1 and named and \
                    val == max(m[1] for m in named) + 1:
                continue
            P["header-in-spec"].append("%s = %r (header) is not in the spec" % (name, val))
    cnt = {m[0]: m[1] for _, ms in hdr.enums for m in ms}
    for name, val in hdr.defines.items():
        if name in gen.values or name in TC_ONLY or name.startswith(TC_PREFIXES):
            continue
        if name.startswith("_UAPI_"):
            continue
        # X_MAX for an enum ending in __X_CNT, defined as that minus one.
        base = name[:-len("_MAX")] if name.endswith("_MAX") else None
        if base and "__%s_CNT" % base in cnt and val == cnt["__%s_CNT" % base] - 1 \
                and ("__%s_CNT" % base in gen.values or
                     hdr.enum_of("__%s_CNT" % base)[1] is not None):
            continue
        P["header-in-spec"].append("#define %s %r (header) is not in the spec" % (name, val))

    # 3. Attribute types and enums against the header's member comments.
    comments = {m[0]: m[2] for _, ms in hdr.enums for m in ms}
    for aset in gfam.attr_sets.values():
        for attr in [a for _, a in aset.items()]:
            c = comments.get(attr.enum_name)
            if c is None:
                continue            # reported above
            words = re.findall(r"[\w-]+", c)
            if words and words[0] in TYPE_WORDS and words[0] != attr.type:
                P["types"].append("%s: %s in the spec, '%s' in the header"
                                  % (attr.enum_name, attr.type, c))
            m = re.search(r"\benum (\w+)", c)
            if m:
                want = m.group(1)
                got = attr.attr.get("enum")
                got = gfam.consts[got].enum_name.split()[-1] if got in gfam.consts else None
                if got != want:
                    P["types"].append("%s: enum %s in the header, %s in the spec"
                                      % (attr.enum_name, want, got))
            if attr.type == "pad" and not attr.enum_name.endswith("_PAD"):
                P["types"].append("%s: a pad attribute" % attr.enum_name)
            if attr.type == "nest" and words[:1] == ["nest"]:
                m = re.search(r'"([\w-]+)"', c)
                if m and m.group(1) != attr.attr.get("nested-attributes"):
                    P["types"].append("%s: nests \"%s\" in the header, \"%s\" in the spec"
                                      % (attr.enum_name, m.group(1),
                                         attr.attr.get("nested-attributes")))
        if any(a.type == "u64" for _, a in aset.items()) and \
                not any(a.type == "pad" for _, a in aset.items()):
            P["types"].append("set %s has u64 attributes but no pad" % aset.name)

    # 4. Operations name existing attributes; events go to a known group.
    groups = {g["name"] for g in fam.yaml.get("mcast-groups", {}).get("list", [])}
    for op in fam.msgs.values():
        aset = fam.attr_sets.get(op.yaml.get("attribute-set"))
        lists = []
        for mode in ("do", "dump"):
            for part in ("request", "reply"):
                lists += op.yaml.get(mode, {}).get(part, {}).get("attributes", [])
        lists += op.yaml.get("event", {}).get("attributes", [])
        for a in lists:
            if aset is None or a not in aset.attrs:
                P["ops"].append("%s: no attribute %s in its set" % (op.name, a))
        if ("event" in op.yaml or "notify" in op.yaml) and op.yaml.get("mcgrp") not in groups:
            P["ops"].append("%s: multicast group %s unknown" % (op.name, op.yaml.get("mcgrp")))


# ---- the tests ------------------------------------------------------------

def mutated_specs(y, text):
    """(description, aspect, spec text): specs the check must refuse, and
    the aspect of the check (a key of Result.problems) that must."""
    lic = text.splitlines()[0] + "\n"
    base = y.yaml.safe_load(text)

    def dump(s):
        return lic + y.yaml.safe_dump(s, sort_keys=False)

    def aset(s, name):
        return next(a for a in s["attribute-sets"] if a["name"] == name)

    out = []
    s = copy.deepcopy(base)
    a = aset(s, "port")["attributes"]
    a[3], a[4] = a[4], a[3]
    out.append(("two port attributes swapped", "spec-in-header", dump(s)))

    s = copy.deepcopy(base)
    e = next(d for d in s["definitions"] if d["name"] == "latch-reason")
    del e["entries"][2]
    out.append(("an enum entry removed", "spec-in-header", dump(s)))

    s = copy.deepcopy(base)
    ops = s["operations"]["list"]
    ops.insert(1, {"name": "port-new", "doc": "x", "attribute-set": "port",
                   "do": {"request": {"attributes": ["ifindex"]}}})
    out.append(("an operation inserted", "spec-in-header", dump(s)))

    s = copy.deepcopy(base)
    a = aset(s, "prio")["attributes"]
    next(x for x in a if x["name"] == "rx-dropped")["type"] = "u32"
    out.append(("a counter typed u32", "types", dump(s)))

    s = copy.deepcopy(base)
    a = aset(s, "port")["attributes"]
    a.insert(len(a) - 1, {"name": "extra", "type": "u32"})
    out.append(("an attribute added", "spec-in-header", dump(s)))

    s = copy.deepcopy(base)
    next(d for d in s["definitions"] if d["name"] == "time-ms-max")["value"] = 30000
    out.append(("a constant changed", "spec-in-header", dump(s)))

    s = copy.deepcopy(base)
    aset(s, "port")["attributes"][0]["max"] = 5
    out.append(("a key the schema does not know", "schema", dump(s)))

    s = copy.deepcopy(base)
    s["operations"]["list"][0]["do"]["request"]["attributes"].append("nonesuch")
    out.append(("an operation naming a missing attribute", "ops", dump(s)))
    return out


def mutated_headers(text):
    """(description, aspect, header text), as mutated_specs()."""
    out = []
    out.append(("an attribute added before PAD", "header-in-spec",
                text.replace("\tPFCWD_A_PRIO_PAD,", "\tPFCWD_A_PRIO_NEW,\n\tPFCWD_A_PRIO_PAD,")))
    out.append(("two enum members swapped", "spec-in-header",
                re.sub(r"(\tPFCWD_LATCH_REASON_BLIND,[^\n]*\n)(\tPFCWD_LATCH_REASON_TX_STORM,[^\n]*\n)",
                       r"\2\1", text)))
    out.append(("a command removed", "spec-in-header", text.replace("\tPFCWD_CMD_TX_STORM,", "")))
    out.append(("a type changed in a comment", "types",
                text.replace("PFCWD_A_PORT_QDISCS,\t\t/* u32", "PFCWD_A_PORT_QDISCS,\t\t/* u64")))
    out.append(("an explicit value", "spec-in-header",
                text.replace("PFCWD_SOURCE_NONE,", "PFCWD_SOURCE_NONE = 1,")))
    out.append(("a new define", "header-in-spec", text.replace("#define PFCWD_GENL_VERSION\t1",
                                             "#define PFCWD_GENL_VERSION\t1\n#define PFCWD_NEW 3")))
    out.append(("the version", "spec-in-header", text.replace("#define PFCWD_GENL_VERSION\t1",
                                            "#define PFCWD_GENL_VERSION\t2")))
    return out


def main():
    t = Tap()
    mspecs = mhdrs = None
    print("TAP version 13")

    missing = [p for p in (os.path.join(YNL_TOOLS, "cli.py"),
                           os.path.join(YNL_TOOLS, "ynl-gen-c.py"),
                           os.path.join(SCHEMAS, "genetlink-legacy.yaml"))
               if not os.path.exists(p)]
    y = None
    err = []
    if not missing:
        try:
            y = Ynl()
        except ImportError as e:
            err = [repr(e)]
    with open(SPEC) as f:
        spec_text = f.read()
    with open(HEADER) as f:
        header_text = f.read()
    if y:
        mspecs = mutated_specs(y, spec_text)
        mhdrs = mutated_headers(header_text)
        for desc, _, txt in mhdrs:
            if txt == header_text:
                err.append("mutation '%s' did not apply" % desc)
    n = 11 + (len(mspecs) + len(mhdrs) if y else 0)
    print("1..%d" % n)
    if not t.ok(y is not None and not err,
                "ynl (build/ynl from linux-source-6.12) and its Python deps",
                ["missing " + p for p in missing] + err +
                (["run scripts/deps.sh"] if missing else [])):
        for _ in range(n - 1):
            t.ok(False, "not run: no ynl")
        return 1

    d = tempfile.mkdtemp()
    try:
        r = check(y, spec_text, header_text, keep=d)
        P = r.problems
        t.ok(not P["schema"], "the spec validates against ynl's schema", P["schema"])
        t.ok(not P["load"], "ynl's library loads the spec", P["load"])
        fam = None
        if not P["load"] and not P["schema"]:
            path = os.path.join(d, "Documentation/netlink/specs/pfcwd.yaml")
            fam = y.lib.SpecFamily(path)
        want_ops = {"port-get": {"do", "dump"}, "port-set": {"do"},
                    "stats-clear": {"do"}, "prio-restore": {"do"},
                    "history-get": {"dump"}}
        want_ntf = {"storm-detected", "storm-restored", "tx-storm", "slow-receiver",
                    "storm-warning", "pause-rate", "port-added", "port-removed",
                    "config-changed", "setpfc-failed", "setpfc-fallback",
                    "source-blind"}
        got_ops = {k: set(v.modes) for k, v in fam.ops.items()} if fam else {}
        got_ntf = {k: v.yaml.get("mcgrp") for k, v in fam.ntfs.items()} if fam else {}
        t.ok(fam is not None and got_ops == want_ops and
             got_ntf == {k: "events" for k in want_ntf} and
             fam.yaml.get("version") == 1 and fam.yaml["name"] == "pfcwd",
             "family pfcwd v1: port-get do+dump, port-set, stats-clear, prio-restore, "
             "history-get dump; "
             "twelve events on group events",
             ["ops %r" % got_ops, "notifications %r" % got_ntf])
        t.ok(not P["gen"] and r.gen_header is not None,
             "ynl-gen-c renders the spec's uAPI constants", P["gen"])
        hdr = Header(header_text)
        cp = hdr.problems + c_confirms(HEADER, hdr)
        cg = c_confirms(r.gen_path, r.gen_header) if r.gen_header else ["no header"]
        t.ok(not cp and len(hdr.values) > 80,
             "the header parse agrees with the C compiler (%d constants)" % len(hdr.values), cp)
        t.ok(not cg, "the rendered header parse agrees with the C compiler", cg)
        t.ok(r.gen_header is not None and not P["spec-in-header"],
             "every constant of the spec is in the header with its value (%d)"
             % (len(r.gen_header.values) if r.gen_header else 0), P["spec-in-header"])
        t.ok(r.gen_header is not None and not P["header-in-spec"],
             "every generic netlink constant of the header is in the spec",
             P["header-in-spec"])
        t.ok(r.gen_header is not None and not P["types"],
             "attribute types and enums match the header's comments", P["types"])
        t.ok(r.gen_header is not None and not P["ops"],
             "operations name attributes of their set; events name their group", P["ops"])
    finally:
        shutil.rmtree(d)

    for what, cases in (("spec", mspecs), ("header", mhdrs)):
        for desc, aspect, txt in cases:
            if what == "spec":
                res = check(y, txt, header_text)
            else:
                res = check(y, spec_text, txt)
            found = res.problems[aspect]
            t.ok(found, "drift caught: %s with %s (%s)" % (what, desc, aspect),
                 ["found instead: %s" % p for p in res.all()[:3]] or ["nothing found"])
            if found:
                print("# " + found[0])

    print("# passed: %d failed: %d" % (t.n - t.failed, t.failed))
    return 1 if t.failed or t.n != n else 0


if __name__ == "__main__":
    sys.exit(main())
