#!/usr/bin/env bash
# The shaders' SPIR-V, committed: backends/vulkan/strix/vulkan/spirv/ holds one header per variant
# of variants.txt (`const uint32_t <variant>[]`, the module's words), variants.h and code.h, so
# that building strix (or a program with `-I include -I backends/vulkan`) needs no shader
# compiler. After changing shaders/ or variants.txt, run `regenerate` and commit what it writes.
#
# usage: scripts/spirv_headers.sh regenerate   compiles every variant and rewrites the committed
#                                              headers (removing those of variants no longer listed)
#        scripts/spirv_headers.sh check        compiles every variant into a temporary directory
#                                              and compares with the committed headers byte for byte
#                                              (exit 1 and the files that differ when they do)
#
# Needs glslangValidator (Debian: glslang-tools; the headers are written with 12.0.0, Debian 12's;
# another version may give other words) and python3 (standard library only). GLSLANG may name
# the compiler, PYTHON the interpreter.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dest=$root/backends/vulkan/strix/vulkan/spirv
table=$dest/variants.txt
script=$root/scripts/shader_variants.py
glslang=${GLSLANG:-glslangValidator}
python=${PYTHON:-python3}
regenerate_hint="run 'bash scripts/spirv_headers.sh regenerate' after changing a shader or variants.txt, and commit the headers it writes"

usage() {
  sed -n '7,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

# generate DIR: every header (one per variant, variants.h, code.h) written into DIR, which is empty
generate() {
  local out=$1 work name shader env defines
  if ! command -v "$glslang" > /dev/null 2>&1; then
    echo "spirv_headers.sh: no '$glslang' (Debian: apt-get install glslang-tools), which compiles the shaders" >&2
    return 1
  fi
  work=$(mktemp -d)
  # one line per variant: its name, its shader, its --target-env, then its -D arguments
  if ! "$python" "$script" meson "$table" > "$work/variants"; then
    rm -rf "$work"
    return 1
  fi
  while read -r name shader env defines; do
    # shellcheck disable=SC2086
    if ! "$glslang" --quiet -V --target-env "$env" $defines -o "$work/$name.spv" "$root/shaders/$shader.comp" > "$work/$name.log" 2>&1; then
      echo "spirv_headers.sh: shaders/$shader.comp does not compile as $name:" >&2
      cat "$work/$name.log" >&2
      rm -rf "$work"
      return 1
    fi
    "$python" "$script" spirv "$name" "$work/$name.spv" "$out/$name.h" || { rm -rf "$work"; return 1; }
  done < "$work/variants"
  "$python" "$script" header "$table" "$out/variants.h" || { rm -rf "$work"; return 1; }
  "$python" "$script" code "$table" "$out/code.h" || { rm -rf "$work"; return 1; }
  rm -rf "$work"
}

# the .h files of a directory, by name, one a line
headers_in() {
  find "$1" -maxdepth 1 -type f -name '*.h' -printf '%f\n' | LC_ALL=C sort
}

[ $# -eq 1 ] || usage
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
case $1 in
  regenerate)
    generate "$fresh"
    changed=0
    # headers of variants no longer in the table go
    while read -r f; do
      if [ ! -e "$fresh/$f" ]; then
        rm -f "$dest/$f"; echo "removed $f"; changed=$((changed + 1))
      fi
    done < <(headers_in "$dest")
    # files whose bytes are the same keep their time, so that a build compiles nothing again
    while read -r f; do
      if ! cmp -s "$fresh/$f" "$dest/$f"; then
        cp "$fresh/$f" "$dest/$f"; echo "wrote $f"; changed=$((changed + 1))
      fi
    done < <(headers_in "$fresh")
    echo "spirv_headers.sh: $(headers_in "$fresh" | wc -l) headers in backends/vulkan/strix/vulkan/spirv/, $changed changed"
    ;;
  check)
    generate "$fresh"
    differ=()
    while read -r f; do
      if [ ! -e "$fresh/$f" ]; then
        differ+=("$f (committed, but variants.txt lists no such variant)")
      fi
    done < <(headers_in "$dest")
    while read -r f; do
      if [ ! -e "$dest/$f" ]; then
        differ+=("$f (not committed)")
      elif ! cmp -s "$fresh/$f" "$dest/$f"; then
        differ+=("$f (differs from what the shaders compile to)")
      fi
    done < <(headers_in "$fresh")
    if [ ${#differ[@]} -gt 0 ]; then
      echo "spirv_headers.sh: the committed SPIR-V headers are not what shaders/ and variants.txt give:"
      printf '  backends/vulkan/strix/vulkan/spirv/%s\n' "${differ[@]}"
      echo "$regenerate_hint."
      exit 1
    fi
    echo "spirv_headers.sh: the $(headers_in "$fresh" | wc -l) committed SPIR-V headers match shaders/ and variants.txt ($("$glslang" --version | head -1))"
    ;;
  *) usage ;;
esac
