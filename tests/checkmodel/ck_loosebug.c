/* checkmodel's own test of the lanes kernel's groups of loose leaders (Meson test
 * checkmodel_lanes_loose_bug): a copy of the lanes kernel, AVX2 build, in which a leader that a
 * split made joins its group of loose leaders one event late (the planted bug "loosebug" of
 * planted.py, whose patched headers this file is compiled against), so it misses the event after
 * the split. The checker must report it as differing from the reference. Built into
 * checkmodel_selftest only. */
#define CK_LANES lanes_loosebug
#include "ck_lanes_copy.h"
