#!/bin/sh
# The layers of src/ (docs/architecture.md): core <- io <- sweep <- cli, each folder including only its own
# headers, those of the layers below it and the public ones (mmsim/...), by plain name through the include
# directories Meson exports (never "../core/x.h"). cuda/ sits on core alone. Usage: check_layers.sh SRC_DIR.
# Prints each offending include as FILE:LINE: #include "..." (why) and exits 1; exits 0 when there is none.
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
            name=$(printf '%s\n' "$line" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
            case $name in
            */../* | ../*)
                echo "${f#"$src"/}:${line%%:*}: #include \"$name\" (a relative path: use the include directories)"
                echo x >>"$tmp"
                continue
                ;;
            esac
            for h in $above; do
                if [ "$h" = "$(basename "$name")" ]; then
                    echo "${f#"$src"/}:${line%%:*}: #include \"$name\" ($layer includes a header of a layer above it)"
                    echo x >>"$tmp"
                fi
            done
        done
    done
}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
check core io sweep cli
check io sweep cli
check sweep cli
check cli
[ -s "$tmp" ] && bad=1
if [ "$bad" -ne 0 ]; then
    echo "check_layers: $(wc -l <"$tmp") include(s) break the layering"
    exit 1
fi
echo "check_layers: ok"
