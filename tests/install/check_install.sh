#!/bin/sh
# Install the build into a temporary DESTDIR and build a small program against the installed libmmsim the
# way a user would: `pkg-config --cflags --libs mmsim`, then `pkg-config --cflags --libs --static mmsim`,
# with PKG_CONFIG_PATH pointing into that prefix. Each program is linked to the
# installed shared library and run (tests/install/embed.c), so the installed libmmsim, its headers and its
# mmsim.pc are checked together. Every -l flag mmsim.pc gives must resolve (Debian's HDF5 is hdf5_serial: a
# hand-written -lhdf5 in Libs.private does not). Usage: check_install.sh BUILD_DIR WORK_DIR EMBED_C CC [CFLAG...]
set -eu
build=$1 work=$2 src=$3 cc=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
dest=$work/dest
meson install -C "$build" --no-rebuild --quiet --destdir "$dest" >"$work/install.log" 2>&1 || {
    cat "$work/install.log"
    echo "check_install: meson install --destdir $dest failed"
    exit 1
}
pc=$(find "$dest" -name mmsim.pc | head -n 1)
if [ -z "$pc" ]; then
    echo "check_install: no mmsim.pc under $dest"
    exit 1
fi
echo "--- $pc"
cat "$pc"
if grep -E '^Libs.private:.*-l(hdf5|xxhash|z)( |$)' "$pc"; then
    echo "check_install: Libs.private names a library that Requires.private already brings"
    exit 1
fi
# Each -l of mmsim.pc's own Libs/Libs.private resolves with the compiler's default search path alone (a tool
# that reads only mmsim.pc does not get the -L of hdf5.pc).
printf 'int main(void) { return 0; }\n' >"$work/empty.c"
for l in $(sed -n 's/^Libs.private://p' "$pc"); do
    case $l in
    -l*)
        "$cc" "$@" "$work/empty.c" -o "$work/empty" "$l" >"$work/lib.log" 2>&1 || {
            cat "$work/lib.log"
            echo "check_install: mmsim.pc: Libs.private: $l does not resolve"
            exit 1
        }
        ;;
    esac
done
# The build's prefix (say /usr/local) now lies under $dest: the installed mmsim.pc, with its prefix moved
# there, is the one pkg-config reads (PKG_CONFIG_SYSROOT_DIR would move HDF5's -L as well).
prefix=$(sed -n 's/^prefix=//p' "$pc")
mkdir -p "$work/pkgconfig"
sed "s|^prefix=.*|prefix=$dest$prefix|" "$pc" >"$work/pkgconfig/mmsim.pc"
libdir=$(dirname "$(dirname "$pc")")
PKG_CONFIG_PATH=$work/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
for mode in shared static; do
    flag=
    [ "$mode" = static ] && flag=--static
    cflags=$(pkg-config --cflags $flag mmsim)
    libs=$(pkg-config --libs $flag mmsim)
    echo "--- $mode: $cc $* $cflags embed.c $libs"
    # shellcheck disable=SC2086 # the flags are words
    "$cc" "$@" $cflags "$src" -o "$work/embed_$mode" $libs || {
        echo "check_install: $mode: cannot link a program with pkg-config $flag --cflags --libs mmsim"
        exit 1
    }
    mkdir -p "$work/run_$mode"
    out=$(LD_LIBRARY_PATH=$libdir "$work/embed_$mode" "$work/run_$mode")
    echo "$out"
    # The program runs on the installed shared library, not on the one in the build tree.
    LD_LIBRARY_PATH=$libdir ldd "$work/embed_$mode" | grep -F "$libdir/libmmsim.so" >/dev/null || {
        LD_LIBRARY_PATH=$libdir ldd "$work/embed_$mode"
        echo "check_install: $mode: embed is not linked to $libdir/libmmsim.so"
        exit 1
    }
    case $out in
    "mmsim "*": 1 instrument EMB, 1000 rows, fingerprint "*) ;;
    *)
        echo "check_install: $mode: unexpected output"
        exit 1
        ;;
    esac
done
rm -rf "$work"
echo "check_install: ok"
