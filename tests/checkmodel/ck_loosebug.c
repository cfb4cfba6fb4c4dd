/* checkmodel's own test of the lanes kernel's skip test for loose leaders (Meson test
 * checkmodel_lanes_loose_bug): a copy of the lanes kernel, AVX2 build, whose test for a leader that
 * a split left outside the vectors forgets its actions in flight (MM_LOOSE_BUG), so such a leader
 * may skip the event where its order lands. The checker must report it as differing from the
 * reference. Built into checkmodel_selftest only. */
#define MM_LOOSE_BUG 1
#define CK_LANES lanes_loosebug
#include "ck_lanes_copy.h"
