#!/bin/sh
# The CUDA object follows the headers it includes (issue 28): in a build configured as the GPU machines'
# build (-Dcore_only=true -Dcuda=enabled) with cuda/engine_cuda.cu compiled, ninja has nothing to do; after
# a touch of src/core/mm_step.h (the per-event step nvcc compiles into the kernel) it must rebuild the
# object. Before cuda/meson.build asked nvcc for a depfile, ninja knew only the .cu file and left the GPU
# object stale. Skips (exit 77) without nvcc or ninja.
# Usage: check_cuda_deps.sh SOURCE_ROOT            a copy of the tree, configured and compiled here (25 s)
#        check_cuda_deps.sh SOURCE_ROOT BUILD_DIR  that build of SOURCE_ROOT, already compiled (tools/test.sh:
#                                                  build-core); mm_step.h's modification time is put back
set -eu
src=$1
command -v ninja >/dev/null 2>&1 || { echo "ninja not found: skipped"; exit 77; }
obj=cuda/libmm_cuda.a.p/engine_cuda.cu.o
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mmsim-cudadeps.XXXXXX")
if [ $# -ge 2 ]; then
  b=$2
  step=$src/src/core/mm_step.h
  [ -f "$b/$obj" ] || { echo "FAIL: $b/$obj is not built (a -Dcore_only=true -Dcuda=enabled build)"; exit 1; }
  stamp=$(stat -c %.9Y "$step")
  trap 'touch -m -d "@$stamp" "$step"; rm -rf "$tmp"' EXIT INT TERM
else
  nvcc=${NVCC:-nvcc}
  if ! command -v "$nvcc" >/dev/null 2>&1; then
    if [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc; else echo "no nvcc: skipped"; exit 77; fi
  fi
  trap 'rm -rf "$tmp"' EXIT INT TERM
  # The tree without build directories or git metadata (a few MB).
  mkdir "$tmp/src"
  for f in "$src"/* "$src"/.clang-format; do
    [ -e "$f" ] || continue
    case $(basename "$f") in build*) continue ;; esac
    cp -R "$f" "$tmp/src/"
  done
  if ! CUDACXX="$nvcc" meson setup "$tmp/b" "$tmp/src" -Dcore_only=true -Dcuda=enabled >"$tmp/setup.log" 2>&1; then
    if grep -q "libcudart_static" "$tmp/setup.log"; then echo "no CUDA runtime library: skipped"; exit 77; fi
    cat "$tmp/setup.log"
    exit 1
  fi
  b=$tmp/b
  step=$tmp/src/src/core/mm_step.h
  ninja -C "$b" "$obj" >"$tmp/build.log" 2>&1 || { cat "$tmp/build.log"; exit 1; }
fi
# ninja records the object's headers in its deps log once it is built.
ninja -C "$b" -t deps "$obj" | grep -q 'src/core/mm_step\.h' || {
  echo "FAIL: ninja's deps log of $obj does not list src/core/mm_step.h:"
  ninja -C "$b" -t deps "$obj" | head -5
  exit 1
}
if ninja -C "$b" -n "$obj" | grep -q 'engine_cuda\.cu\.o'; then
  echo "FAIL: $obj is out of date right after it was built"
  exit 1
fi
sleep 1 # a coarse file system clock: the touch must be newer than the object
touch "$step"
if ! ninja -C "$b" -n "$obj" | grep -q 'engine_cuda\.cu\.o'; then
  echo "FAIL: after a touch of src/core/mm_step.h ninja would not rebuild $obj:"
  ninja -C "$b" -n -d explain "$obj" 2>&1 | head -20
  exit 1
fi
echo "ok: $obj depends on src/core/mm_step.h ($(ninja -C "$b" -t deps "$obj" | grep -c '^    ') headers)"
