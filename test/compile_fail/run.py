#!/usr/bin/env python3
"""Compile-fail tests of strix's static rules.

Each case is one .cpp file. A case whose file name starts with ``ok_`` must compile. Every other
case must fail to compile, and the compiler's diagnostics must contain the text given on the
case's ``// expect: <text>`` line (the sentence of the rule's static_assert).

Usage:
    run.py --cxx g++ --include include test/compile_fail/*.cpp

Cases are only parsed (-fsyntax-only), two at a time by default, with strix/strix.hpp
precompiled once. Prints one line per case, PASS or FAIL, and exits with status 1 when any case
failed (2 on a usage error).
"""

import argparse
import concurrent.futures
import os
import shlex
import subprocess
import sys
import tempfile

EXPECT = "// expect:"


def expected_text(path):
    """The text after '// expect:' in the case, or None when the case has no such line."""
    with open(path, encoding="utf-8") as f:
        for line in f:
            stripped = line.strip()
            if stripped.startswith(EXPECT):
                return stripped[len(EXPECT):].strip()
    return None


def run_case(path, cxx, include, std, extra, timeout, first=()):
    """Returns (passed, name, detail)."""
    name = os.path.splitext(os.path.basename(path))[0]
    must_compile = name.startswith("ok_")
    expect = None
    if not must_compile:
        expect = expected_text(path)
        if not expect:
            return False, name, "the case has no '// expect: <text>' line"
    cmd = cxx + ["-std=" + std, "-fsyntax-only"] + list(first) + ["-I" + include] + extra + [path]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                              universal_newlines=True, errors="replace")
    except FileNotFoundError:
        return False, name, "cannot run the compiler: " + " ".join(cxx)
    except subprocess.TimeoutExpired:
        return False, name, "the compiler ran longer than %d s" % timeout
    diagnostics = proc.stderr + proc.stdout
    if must_compile:
        if proc.returncode == 0:
            return True, name, ""
        return False, name, "must compile, but the compiler failed:\n" + tail(diagnostics)
    if proc.returncode == 0:
        return False, name, "compiled, but must fail with: " + expect
    if expect not in diagnostics:
        return False, name, "failed to compile, but without the text: " + expect + "\n" + tail(diagnostics)
    # the rule's sentence must be the first error, not one buried under unrelated errors
    first = next((line for line in diagnostics.splitlines() if "error:" in line), "")
    if expect not in first:
        return False, name, "the first error is not the rule's sentence: " + first.strip()
    return True, name, ""


def precompiled_header(scratch, cxx, args):
    """strix/strix.hpp, which nearly every case includes first, parsed once: GCC takes a
    <header>.gch found beside the header it is looking for in an include directory, where it
    was made with the same flags. The flags that put one in front of the library's own
    (a stand-in strix/strix.hpp that includes the real one, and its .gch); none where it
    cannot be made, the cases then parsing the header each (a compiler without GCC's
    precompiled headers reads the stand-in, which changes nothing)."""
    stand_in = os.path.join(scratch, "strix", "strix.hpp")
    os.makedirs(os.path.dirname(stand_in))
    with open(stand_in, "w", encoding="utf-8") as f:
        f.write('#include "%s"\n' % os.path.join(os.path.abspath(args.include), "strix", "strix.hpp"))
    cmd = cxx + ["-std=" + args.std, "-I" + args.include] + args.flag + ["-x", "c++-header", stand_in, "-o", stand_in + ".gch"]
    try:
        made = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=args.timeout).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        made = False
    return ["-I" + scratch] if made else []


def tail(text, lines=40):
    rows = text.rstrip().splitlines()
    if len(rows) > lines:
        rows = ["..."] + rows[-lines:]
    return "\n".join("    " + r for r in rows)


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cxx", required=True, help="the C++ compiler command (may hold arguments, split as a shell would)")
    parser.add_argument("--include", required=True, help="the directory holding strix/ (the library's include directory)")
    parser.add_argument("--std", default="c++20", help="the language standard (default: c++20)")
    parser.add_argument("--flag", action="append", default=[], help="one more compiler argument (repeatable)")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="cases compiled at once (default: 2)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds allowed per case (default: 300)")
    parser.add_argument("cases", nargs="*", help="the .cpp cases (default: every .cpp next to this script)")
    args = parser.parse_args(argv)

    cxx = shlex.split(args.cxx)
    if not cxx:
        parser.error("--cxx is empty")
    cases = args.cases
    if not cases:
        here = os.path.dirname(os.path.abspath(__file__))
        cases = [os.path.join(here, f) for f in os.listdir(here) if f.endswith(".cpp")]
    cases = sorted(cases, key=lambda p: os.path.basename(p))
    if not cases:
        parser.error("no cases")
    if not any(os.path.basename(c).startswith("ok_") for c in cases):
        print("note: no ok_ case among the cases, so nothing shows the harness can pass", file=sys.stderr)

    failed = 0
    with tempfile.TemporaryDirectory(prefix="strix-compile-fail-") as scratch:
        first = precompiled_header(scratch, cxx, args)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_case, c, cxx, args.include, args.std, args.flag, args.timeout, first) for c in cases]
            for future in futures:  # report in the order of the cases
                passed, name, detail = future.result()
                print(("PASS " if passed else "FAIL ") + name + ("" if passed else ": " + detail), flush=True)
                failed += 0 if passed else 1
    print("%d of %d compile-fail cases passed" % (len(cases) - failed, len(cases)), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
