/* Sorting doubles and their quantiles (mm_internal.h): the Monte Carlo summaries of the results
 * table and of the Avellaneda-Stoikov market. */
#include <math.h>

#include "mm_internal.h"

int mm__cmp_f64(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    int nx = isnan(x), ny = isnan(y); /* NaN sorts last */
    if (nx || ny) return nx - ny;
    return (x > y) - (x < y);
}

double mm__quantile(const double *x, int64_t n, double p)
{
    double h = (double)(n - 1) * p;
    int64_t lo = (int64_t)floor(h);
    if (lo >= n - 1) return x[n - 1];
    return x[lo] + (h - (double)lo) * (x[lo + 1] - x[lo]);
}
