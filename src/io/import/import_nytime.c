/* Calendar dates and America/New_York local time -> UTC, by the US daylight-saving rules written
 * out in code (no tz database, no TZ environment variable, no libc time zone state). */
#include <stdio.h>
#include <string.h>

#include "import_internal.h"

int64_t mm__days_from_civil(int y, int m, int d)
{
    /* Count days in 400-year eras starting on 1 March, so that the leap day ends the year. */
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

static int days_in_month(int y, int m)
{
    static const int dm[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return dm[m - 1] + (m == 2 && leap);
}

int mm__parse_date(const char *s, int *y, int *m, int *d)
{
    if (!s || strlen(s) != 10 || s[4] != '-' || s[7] != '-') return -1;
    for (int i = 0; i < 10; i++)
        if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) return -1;
    *y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    *m = (s[5] - '0') * 10 + (s[6] - '0');
    *d = (s[8] - '0') * 10 + (s[9] - '0');
    if (*y < 1970 || *y > 2099 || *m < 1 || *m > 12 || *d < 1 || *d > days_in_month(*y, *m))
        return -1;
    return 0;
}

/* Day of the month of the n-th (1-based) Sunday of y-m; n = -1: the last Sunday. */
static int nth_sunday(int y, int m, int n)
{
    int64_t first = mm__days_from_civil(y, m, 1);
    int wd = (int)((first % 7 + 7 + 4) % 7); /* 1970-01-01 was a Thursday (4); 0 = Sunday */
    int first_sun = 1 + (7 - wd) % 7;
    if (n > 0) return first_sun + 7 * (n - 1);
    int d = first_sun;
    while (d + 7 <= days_in_month(y, m))
        d += 7;
    return d;
}

int mm__ny_utc_offset(int y, int m, int d, int64_t sec_of_day, int *offset_s)
{
    int sm, sd, em, ed;
    if (y >= 2007) {
        sm = 3, sd = nth_sunday(y, 3, 2), em = 11, ed = nth_sunday(y, 11, 1);
    } else if (y >= 1987) {
        sm = 4, sd = nth_sunday(y, 4, 1), em = 10, ed = nth_sunday(y, 10, -1);
    } else {
        return 0;
    }
    int64_t day = mm__days_from_civil(y, m, d);
    int64_t start = mm__days_from_civil(y, sm, sd), end = mm__days_from_civil(y, em, ed);
    int dst;
    if (day > start && day < end)
        dst = 1;
    else if (day == start)
        dst = sec_of_day >= 3 * 3600; /* 02:00-03:00 does not exist: read as EST */
    else if (day == end)
        dst = sec_of_day < 2 * 3600; /* 01:00-02:00 twice: the first (EDT) */
    else
        dst = 0;
    *offset_s = dst ? -4 * 3600 : -5 * 3600;
    return 1;
}

int mm__ny_to_utc_ns(int y, int m, int d, int64_t ns_of_day, int64_t *utc_ns)
{
    int off;
    int64_t sec = ns_of_day / 1000000000;
    if (!mm__ny_utc_offset(y, m, d, sec, &off)) return -1;
    *utc_ns = (mm__days_from_civil(y, m, d) * 86400 - off) * INT64_C(1000000000) + ns_of_day;
    return 0;
}
