/* Write the test fixture's results table (results_fixture.h): mkresults OUT.h5 [REPS] [CHUNK]. For
 * the h5py check, which reads it following docs/results.md only. */
#include <stdio.h>
#include <stdlib.h>

#include "results_fixture.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mkresults OUT.h5 [REPS] [CHUNK]\n");
        return 2;
    }
    rf_table t;
    rf_init(&t, argc > 2 ? atoi(argv[2]) : 10);
    mm_error e = {0};
    int rc = rf_write(argv[1], &t, argc > 3 ? atoll(argv[3]) : 97, 11, NULL, &e);
    if (rc) fprintf(stderr, "mkresults: %s\n", e.msg);
    rf_free(&t);
    return rc ? 1 : 0;
}
