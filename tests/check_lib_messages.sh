#!/bin/sh
# The library names no command-line flag in its messages (docs/architecture.md, "Embedding the library"):
# programs embed libmmsim, and where the way out of an error is an option, a message names the API's spelling
# of it (MM_LOAD_NO_VERIFY, mm_sweep_opts.resume); src/cli/cli_util.c (LIB_TO_FLAG) puts the CLI's flags back.
# Checks every string literal in the .c and .h files of core, io and sweep (SRC_DIR/{core,io,sweep}) for a
# long flag ("--name") or the short output flag ("-o "). Comment lines (starting with /*, * or //) are
# skipped. Exceptions: none so far; one would go in ALLOW below as FILE:TEXT with the reason beside it.
# Usage: check_lib_messages.sh SRC_DIR. Prints each offending literal as FILE:LINE: "..." and exits 1; exits 0
# when there is none.
set -eu
src=$1
[ -d "$src/core" ] || { echo "check_lib_messages: $src/core: no such folder"; exit 1; }
ALLOW=''
found=$(find "$src/core" "$src/io" "$src/sweep" \( -name '*.c' -o -name '*.h' \) | sort | while IFS= read -r f; do
    # Number the lines, drop comment lines, then take out each complete string literal (escapes included).
    grep -n '"' "$f" | grep -v '^[0-9]*:[[:space:]]*\(/\*\|\*\|//\)' |
        grep -o '^[0-9]*:\|"\([^"\\]\|\\.\)*"' | while IFS= read -r tok; do
        case $tok in
        [0-9]*:) line=${tok%:} ;;
        *--[a-z]* | *"-o "*)
            case "$ALLOW" in *"${f#"$src"/}:$tok"*) continue ;; esac
            echo "${f#"$src"/}:$line: $tok"
            ;;
        esac
    done
done)
if [ -n "$found" ]; then
    printf '%s\n' "$found"
    echo "check_lib_messages: library strings name a command-line flag (name the API option instead)"
    exit 1
fi
exit 0
