#!/usr/bin/env python3
"""Reads the table of shader variants (backends/vulkan/strix/vulkan/spirv/variants.txt) for the build.

  shader_variants.py meson TABLE           one line per variant for Meson, at configure time:
                                           its name, its shader, its --target-env, then
                                           glslangValidator's -D arguments
  shader_variants.py header TABLE OUTPUT   writes strix/vulkan/spirv/variants.h: the shader enum,
                                           the feature bits, the variants
  shader_variants.py code TABLE OUTPUT     writes strix/vulkan/spirv/code.h: the variants' SPIR-V,
                                           for the one file that defines the backend's symbols
  shader_variants.py spirv NAME MODULE OUTPUT
                                           writes the header of one variant: the words of the
                                           SPIR-V module MODULE as `const uint32_t NAME[]`
  shader_variants.py words HEADER MODULE   the reverse: the words of such a header back into a
                                           SPIR-V module (for spirv-dis and spirv-val)

The first three check the table first and stop with a sentence naming the line when it is wrong.
scripts/spirv_headers.sh runs them all; the headers they write are committed. Python's standard
library only.
"""
import re
import struct
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


class table_error(Exception):
    pass


def read(path):
    """The features (name, macro, description), variants (name, shader, needs) and targets
    (feature -> glslangValidator's --target-env) of the table."""
    features, variants, targets = [], [], {}
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            where = f"{path}:{number}"
            words = line.split()
            if words[0] == "feature" and len(words) >= 4:
                name, macro, text = words[1], words[2], " ".join(words[3:])
                for w in (name, macro):
                    if not IDENT.match(w):
                        raise table_error(f"{where}: '{w}' is not an identifier")
                if any(name == n or macro == m for n, m, _ in features):
                    raise table_error(f"{where}: feature '{name}' or macro '{macro}' is listed twice")
                features.append((name, macro, text))
            elif words[0] == "target" and len(words) == 3:
                env, feature = words[1], words[2]
                if feature not in [n for n, _, _ in features]:
                    raise table_error(f"{where}: '{feature}' is no feature listed above it")
                if not re.match(r"vulkan1\.[0-9]+\Z", env):
                    raise table_error(f"{where}: '{env}' is not a Vulkan target environment (vulkan1.N)")
                targets[feature] = env
            elif words[0] == "variant" and len(words) >= 3:
                name, shader, needs = words[1], words[2], words[3:]
                for w in (name, shader):
                    if not IDENT.match(w):
                        raise table_error(f"{where}: '{w}' is not an identifier")
                if any(name == v[0] for v in variants):
                    raise table_error(f"{where}: variant '{name}' is listed twice")
                known = [n for n, _, _ in features]
                for n in needs:
                    if n not in known:
                        raise table_error(f"{where}: '{n}' is no feature listed above it (there are: {', '.join(known)})")
                if len(set(needs)) != len(needs):
                    raise table_error(f"{where}: a feature is named twice")
                variants.append((name, shader, frozenset(needs)))
            else:
                raise table_error(f"{where}: expected 'feature <name> <macro> <description>', 'target <environment> <feature>' or "
                                  "'variant <name> <shader> <features...>'")
    if not variants:
        raise table_error(f"{path}: no variants")
    if len(features) > 32:
        raise table_error(f"{path}: more than 32 features do not fit the 32-bit masks of variants.h")
    # a context picks, of each shader, the variant that needs the most of what it has: that one
    # must exist for every device and be the only one
    for shader in shaders_of(variants):
        own = [v for v in variants if v[1] == shader]
        sets = [v[2] for v in own]
        if not any(all(s <= t for t in sets) for s in sets):
            raise table_error(f"{path}: shader '{shader}' has no variant that needs no more than every other (the devices that can run "
                              "it would have no first choice)")
        for a in own:
            for b in own:
                if a[2] == b[2] and a is not b:
                    raise table_error(f"{path}: variants '{a[0]}' and '{b[0]}' need the same features")
                if (a[2] | b[2]) not in sets:
                    raise table_error(f"{path}: shader '{shader}' has '{a[0]}' and '{b[0]}' but no variant that needs what both do "
                                      f"({' '.join(sorted(a[2] | b[2]))}): a device with both would have no best variant")
    return features, variants, targets


def target_of(needs, targets):
    """glslangValidator's --target-env for a variant that needs `needs` (the highest its features ask for)."""
    envs = [targets[n] for n in needs if n in targets] + ["vulkan1.1"]
    return max(envs, key=lambda e: int(e.split(".")[1]))


def shaders_of(variants):
    """The shaders in the order they first appear."""
    seen = []
    for _, shader, _ in variants:
        if shader not in seen:
            seen.append(shader)
    return seen


def meson_lines(features, variants, targets):
    for name, shader, needs in variants:
        defines = [f"-D{macro}={1 if feature in needs else 0}" for feature, macro, _ in features]
        yield " ".join([name, shader, target_of(needs, targets)] + defines)


def header(features, variants):
    bit = {name: i for i, (name, _, _) in enumerate(features)}
    shaders = shaders_of(variants)

    def mask(needs):
        return " | ".join(f"spirv::{n}" for n in sorted(needs, key=bit.get)) or "0u"

    out = [
        "// Written by scripts/shader_variants.py from backends/vulkan/strix/vulkan/spirv/variants.txt:",
        "// edit that table, not this file, then run `bash scripts/spirv_headers.sh regenerate`.",
        "#pragma once",
        "",
        "#include <cstddef>",
        "#include <cstdint>",
        "",
    ]
    out += [
        "",
        "namespace strix::vulkan {",
        "",
        "/// The shaders strix runs (shaders/<name>.comp).",
        f"enum class shader : std::uint8_t {{ {', '.join(shaders)} }};",
        "",
        "namespace spirv {",
        "",
        "/// What a variant may need of the device, as bits of a mask.",
        "enum feature : std::uint32_t {",
    ]
    out += [f"    {name} = 1u << {bit[name]}, ///< {text}" for name, _, text in features]
    out += [
        "};",
        f"inline constexpr std::size_t feature_count = {len(features)};",
        f"inline constexpr std::size_t shader_count = {len(shaders)};",
        "",
        "/// One SPIR-V module: a shader built for devices with the features in `needs`.",
        "struct variant {",
        "    const char* name; ///< its header, strix/vulkan/spirv/<name>.h",
        "    shader which;",
        "    std::uint32_t needs; ///< spirv::feature bits",
        "};",
        "",
        "/// Every variant, in the table's order.",
        "inline constexpr variant variants[] = {",
    ]
    out += [f'    {{"{name}", shader::{s}, {mask(needs)}}},' for name, s, needs in variants]
    out += [
        "};",
        f"inline constexpr std::size_t variant_count = {len(variants)};",
        "",
        "/// A variant's SPIR-V words and their size in bytes.",
        "struct words {",
        "    const std::uint32_t* data;",
        "    std::size_t bytes;",
        "};",
        "",
        "/// The SPIR-V of variants[i]. Defined once per program, beside volk's implementation",
        "/// (strix/vulkan/implementation.hpp includes spirv/code.h): the words are parsed by",
        "/// that one file, not by every file that includes the backend.",
        "words code(std::size_t i);",
        "",
        "/// The variant of `s` a device with the features `on` runs: of those that need nothing",
        "/// beyond `on`, the one that needs the most. The table guarantees that it needs all that any",
        "/// other such variant needs and is the only one that does, and that it exists wherever the",
        "/// shader has a variant needing nothing; else it may not: variant_count.",
        "constexpr std::size_t pick(shader s, std::uint32_t on) {",
        "    std::size_t best = variant_count;",
        "    for (std::size_t i = 0; i < variant_count; ++i) {",
        "        const variant& v = variants[i];",
        "        if (v.which != s || (v.needs & ~on) != 0) continue;",
        "        if (best == variant_count || (variants[best].needs & v.needs) == variants[best].needs) best = i;",
        "    }",
        "    return best;",
        "}",
        "",
        "} // namespace spirv",
        "} // namespace strix::vulkan",
        "",
    ]
    return "\n".join(out)


def code(features, variants):
    out = [
        "// Written by scripts/shader_variants.py from backends/vulkan/strix/vulkan/spirv/variants.txt:",
        "// edit that table, not this file, then run `bash scripts/spirv_headers.sh regenerate`.",
        "// Included by strix/vulkan/implementation.hpp only.",
        "#pragma once",
        "",
        '#include "strix/vulkan/spirv/variants.h"',
        "",
        "// one header per variant (scripts/spirv_headers.sh): one `const uint32_t <name>[]` each, at namespace scope",
    ]
    out += [f'#include "strix/vulkan/spirv/{name}.h"' for name, _, _ in variants]
    out += [
        "",
        "strix::vulkan::spirv::words strix::vulkan::spirv::code(std::size_t i) {",
        "    static constexpr words table[] = {",
    ]
    out += [f"        {{{name}, sizeof {name}}}," for name, _, _ in variants]
    out += [
        "    };",
        "    static_assert(sizeof table / sizeof table[0] == variant_count);",
        "    return i < variant_count ? table[i] : words{nullptr, 0};",
        "}",
        "",
    ]
    return "\n".join(out)


GENERATED = "// Generated by scripts/spirv_headers.sh from shaders/: do not edit; run `bash scripts/spirv_headers.sh regenerate`."
SPIRV_MAGIC = 0x07230203
LINE_WIDTH = 120


def spirv_header(name, module):
    """The header of one variant: its module's words in decimal, as many to a line as fit
    LINE_WIDTH columns (the same bytes for the same module, whatever the compiler's version)."""
    if not IDENT.match(name):
        raise table_error(f"'{name}' is not an identifier")
    if len(module) < 20 or len(module) % 4:
        raise table_error(f"the module of '{name}' is not whole 32-bit words ({len(module)} bytes)")
    words = struct.unpack(f"<{len(module) // 4}I", module)
    if words[0] != SPIRV_MAGIC:
        raise table_error(f"the module of '{name}' does not start with SPIR-V's magic number")
    out = [GENERATED, "#pragma once", "", "#include <stdint.h>", "", f"const uint32_t {name}[] = {{"]
    line = ""
    for w in words:
        item = f"{w},"
        if line and len(line) + len(item) > LINE_WIDTH:
            out.append(line)
            line = ""
        line += item
    out += [line, "};", ""]
    return "\n".join(out)


HEADER_WORDS = re.compile(r"const uint32_t ([A-Za-z_][A-Za-z0-9_]*)\[\] = \{([^}]*)\};")


def header_module(text, where):
    """The module a header of spirv_header() holds, as bytes."""
    m = HEADER_WORDS.search(text)
    if not m:
        raise table_error(f"{where}: no `const uint32_t <name>[] = {{...}};` in it")
    words = [int(w, 0) for w in m.group(2).replace(",", " ").split()]
    if not words or words[0] != SPIRV_MAGIC:
        raise table_error(f"{where}: its words do not start with SPIR-V's magic number")
    return struct.pack(f"<{len(words)}I", *words)


def main(argv):
    if len(argv) == 5 and argv[1] == "spirv":
        try:
            with open(argv[3], "rb") as f:
                text = spirv_header(argv[2], f.read())
            with open(argv[4], "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        except (table_error, OSError) as e:
            print(f"shader_variants.py: {e}", file=sys.stderr)
            return 1
        return 0
    if len(argv) == 4 and argv[1] == "words":
        try:
            with open(argv[2], encoding="utf-8") as f:
                module = header_module(f.read(), argv[2])
            with open(argv[3], "wb") as f:
                f.write(module)
        except (table_error, OSError, ValueError) as e:
            print(f"shader_variants.py: {e}", file=sys.stderr)
            return 1
        return 0
    if len(argv) < 3 or argv[1] not in ("meson", "header", "code") or (argv[1] in ("header", "code")) != (len(argv) == 4):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        features, variants, targets = read(argv[2])
    except (table_error, OSError) as e:
        print(f"shader_variants.py: {e}", file=sys.stderr)
        return 1
    if argv[1] == "meson":
        print("\n".join(meson_lines(features, variants, targets)))
    else:
        text = header(features, variants) if argv[1] == "header" else code(features, variants)
        with open(argv[3], "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
