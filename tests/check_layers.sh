#!/bin/sh
# The layers of src/ (docs/architecture.md): core <- io <- sweep <- cli, each folder including only its own
# headers, those of the layers below it and the public ones (mmsim/...), by plain name through the include
# directories Meson exports (never "../core/x.h"). cuda/ sits on core alone. Inside core, the model (src/core)
# never includes a header of the fast kernels (src/core/accel): they include it. Also the length of a file: no
# .c, .h, .cu or .cuh file in src/ or cuda/ (next to SRC_DIR) over 600 lines, unless one of its first 15 lines
# says why, with the words "over 600 lines because". Usage: check_layers.sh SRC_DIR.
# Prints each offending include as FILE:LINE: #include "..." (why), each long file as FILE: N lines (...), and
# exits 1; exits 0 when there is none.
set -eu
src=$1
[ -d "$src/core" ] || { echo "check_layers: $src/core: no such folder"; exit 1; }
bad=0
# Header basenames of a layer (its folder and its subfolders).
headers() { find "$src/$1" -name '*.h' -exec basename {} \; 2>/dev/null | sort -u; }
check() { # LAYER, then the layers above it
    layer=$1
    shift
    above=$(for l in "$@"; do headers "$l"; done)
    for f in $(find "$src/$layer" -name '*.c' -o -name '*.h' -o -name '*.cu' | sort); do
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
            name=${line#*\"} # the text between the quotes (no sed process per line)
            name=${name%%\"*}
            case $name in
            */../* | ../*)
                echo "${f#"$src"/}:${line%%:*}: #include \"$name\" (a relative path: use the include directories)"
                echo x >>"$tmp"
                continue
                ;;
            esac
            base=${name##*/} # (no basename subprocess per header: that took most of a minute)
            for h in $above; do
                if [ "$h" = "$base" ]; then
                    echo "${f#"$src"/}:${line%%:*}: #include \"$name\" ($layer includes a header of a layer above it)"
                    echo x >>"$tmp"
                fi
            done
        done
    done
}
# Files over max_lines lines, unless their first 15 lines say why (a file you can read top to bottom).
max_lines=600
check_length() {
    root=$(dirname "$src")
    for d in "$src" "$root/cuda"; do
        [ -d "$d" ] || continue
        for f in $(find "$d" -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' | sort); do
            n=$(awk 'END { print NR }' "$f")
            [ "$n" -gt "$max_lines" ] || continue
            head -n 15 "$f" | grep -qi "over $max_lines lines because" && continue
            echo "${f#"$root"/}: $n lines, over $max_lines (split it, or say why in its first 15 lines:" \
                "\"over $max_lines lines because ...\")"
            echo x >>"$long"
        done
    done
}
tmp=$(mktemp)
long=$(mktemp)
trap 'rm -f "$tmp" "$long"' EXIT
check core io sweep cli
check io sweep cli
check sweep cli
check cli
# The model never includes the machinery (docs/architecture.md, "The model and the fast kernels").
model_vs_accel() {
    accel=$(headers core/accel)
    for f in $(find "$src/core" -path "$src/core/accel" -prune -o \( -name '*.c' -o -name '*.h' \) -print | sort); do
        grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
            name=${line#*\"} # the text between the quotes (no sed process per line)
            name=${name%%\"*}
            base=${name##*/}
            for h in $accel; do
                if [ "$h" = "$base" ]; then
                    echo "${f#"$src"/}:${line%%:*}: #include \"$name\" (the model includes a fast kernel's header)"
                    echo x >>"$tmp"
                fi
            done
        done
    done
}
model_vs_accel
check_length
if [ -s "$tmp" ]; then
    echo "check_layers: $(wc -l <"$tmp") include(s) break the layering"
    bad=1
fi
if [ -s "$long" ]; then
    echo "check_layers: $(wc -l <"$long") file(s) over $max_lines lines"
    bad=1
fi
[ "$bad" -eq 0 ] || exit 1
echo "check_layers: ok"
