/* Units of the command line: time formatting and strict numbers (src/cli/cli_util.c), and the sweep
 * config reader (src/cli/sweep_config.c) on text in memory. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_keys.h"
#include "sweep_config.h"

Test(cli_units, fmt_time_covers_the_whole_int64_range)
{
    char buf[96];
    cli_fmt_time(INT64_MIN, buf, sizeof buf);
    cr_assert_str_eq(buf, "1677-09-21T00:12:43.145224192Z");
    cli_fmt_time(INT64_MAX, buf, sizeof buf);
    cr_assert_str_eq(buf, "2262-04-11T23:47:16.854775807Z");
    cli_fmt_time(-1, buf, sizeof buf);
    cr_assert_str_eq(buf, "1969-12-31T23:59:59.999999999Z");
    cli_fmt_time(0, buf, sizeof buf);
    cr_assert_str_eq(buf, "1970-01-01T00:00:00.000000000Z");
}

/* The sweep's summary rates (issue 28): a slow sweep's rate is not "0", an empty one's is "-". */
Test(cli_units, rates_are_never_rounded_to_zero)
{
    char b[32];
    cr_assert_str_eq(cli_fmt_rate(0.4, b, sizeof b), "0.4");
    cr_assert_str_eq(cli_fmt_rate(0.000123456, b, sizeof b), "0.000123");
    cr_assert_str_eq(cli_fmt_rate(99.94, b, sizeof b), "99.9");
    cr_assert_str_eq(cli_fmt_rate(123456.7, b, sizeof b), "123457");
    cr_assert_str_eq(cli_fmt_rate(0, b, sizeof b), "-");
    cr_assert_str_eq(cli_fmt_rate(-1, b, sizeof b), "-");
    cr_assert_str_eq(cli_fmt_rate(INFINITY, b, sizeof b), "-");
}

Test(cli_units, strict_numbers)
{
    int64_t v;
    uint64_t u;
    double d;
    cr_assert_eq(cli_i64("t", "x", "010", 0, 100, &v), 0);
    cr_assert_eq(v, 10, "a leading zero is decimal");
    cr_assert_eq(cli_i64("t", "x", "-9223372036854775808", INT64_MIN, INT64_MAX, &v), 0);
    cr_assert_eq(v, INT64_MIN);
    const char *bad_i[] = {"",    " 1",  "1 ", "+1", "0x10", "1e3", "9223372036854775808",
                           "1.0", "--1", "-",  NULL};
    for (int i = 0; bad_i[i]; i++)
        cr_assert_eq(cli_i64("t", "x", bad_i[i], INT64_MIN, INT64_MAX, &v), -1, "'%s'", bad_i[i]);
    cr_assert_eq(cli_u64("t", "x", "18446744073709551615", &u), 0);
    cr_assert_eq(u, UINT64_MAX);
    const char *bad_u[] = {"-1", " -1", "18446744073709551616", "0x1", " 1", NULL};
    for (int i = 0; bad_u[i]; i++)
        cr_assert_eq(cli_u64("t", "x", bad_u[i], &u), -1, "'%s'", bad_u[i]);
    const char *good_f[] = {"1", "-1.5", ".5", "5.", "1e3", "1E-3", "+2", NULL};
    for (int i = 0; good_f[i]; i++)
        cr_assert_eq(cli_f64("t", "x", good_f[i], -1e9, 1e9, &d), 0, "'%s'", good_f[i]);
    const char *bad_f[] = {"", ".", "e3", "1e", "0x1p3", "inf", "nan", " 1", "1 ", "1e400", NULL};
    for (int i = 0; bad_f[i]; i++)
        cr_assert_eq(cli_f64("t", "x", bad_f[i], -1e300, 1e300, &d), -1, "'%s'", bad_f[i]);
}

Test(cli_units, markout_horizons)
{
    int64_t m[MM_MARKOUTS];
    cr_assert_eq(cli_markouts("t", "x", "1,2,3", m), 0);
    cr_assert(m[0] == 1 && m[1] == 2 && m[2] == 3);
    const char *bad[] = {"1,1,2",  "1,2",  "1,2,3,4", "0,1,2", "1,2,1000000000000000001",
                         "1, 2,3", "1,,2", NULL};
    for (int i = 0; bad[i]; i++)
        cr_assert_eq(cli_markouts("t", "x", bad[i], m), -1, "'%s'", bad[i]);
}

static int parse(cli_sweep_config *c, const char *text)
{
    cli_sweep_config_init(c);
    return cli_sweep_config_parse_mem(c, text, strlen(text), "m.ini");
}

Test(cli_units, config_reads_every_section_comments_bom_and_crlf)
{
    cli_sweep_config c;
    const char *t =
        "\xEF\xBB\xBF; comment\r\n# another\r\n[input]\r\nfiles = a.h5, b.h5 ; "
        "inline\r\nsymbols=X,Y\r\n"
        "[grid]\r\nspread = 1:3:1\r\n\r\n[params]\r\n  queue: power\r\n[run]\r\nseed = 7\r\n";
    cr_assert_eq(parse(&c, t), 0, "%s", c.err);
    cr_assert_eq(c.n_files, 2);
    cr_assert_str_eq(c.files[1], "b.h5");
    cr_assert_eq(c.n_symbols, 2);
    cr_assert_eq(c.n_grid, 1);
    cr_assert_str_eq(c.grid[0].val, "1:3:1");
    cr_assert_str_eq(c.grid[0].origin, "m.ini:7");
    cr_assert_eq(c.n_sets, 1);
    cr_assert_str_eq(c.sets[0].key, "queue");
    cr_assert_str_eq(c.sets[0].val, "power");
    cr_assert_str_eq(c.seed, "7");
    cli_sweep_config_free(&c);
}

Test(cli_units, config_lines_have_no_length_limit)
{
    size_t n = 100000;
    char *t = malloc(n + 64);
    int len = snprintf(t, 64, "[input]\nfiles = ");
    for (size_t i = (size_t)len; i < n; i += 2)
        t[i] = 'a', t[i + 1] = ',';
    snprintf(t + n, 64, "\n[grid]\nbogus line\n");
    cli_sweep_config c;
    cr_assert_eq(parse(&c, t), MM_EUSAGE);
    cr_assert_str_eq(c.err, "m.ini:4: 'bogus line' is not key = value");
    cli_sweep_config_free(&c);
    free(t);
}

Test(cli_units, config_errors_name_their_line)
{
    struct {
        const char *text, *err;
    } cases[] = {
        {"[grid]\nspread = 1\nspread = 2\n",
         "m.ini:3: [grid] spread: key given twice (first at m.ini:2)"},
        {"[grid]\nspread = 1\n[grid]\nspread = 2\n",
         "m.ini:4: [grid] spread: key given twice (first at m.ini:2)"},
        {"[nope]\n", "m.ini:1: unknown section [nope] (input, grid, params or run)"},
        {"[run]\nfoo = 1\n", "m.ini:2: [run] foo: unknown key"},
        {"[run\n", "m.ini:1: '[run' is not a section header [name]"},
        {"[run] x\n", "m.ini:1: '[run] x' is not a section header [name]"},
        {"seed = 1\n", "m.ini:1: seed: key outside a section"},
        {"[run]\n= 1\n", "m.ini:2: '= 1' has no key before '='"},
        {"[run]\nseed\n", "m.ini:2: 'seed' is not key = value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_sweep_config c;
        cr_assert_eq(parse(&c, cases[i].text), MM_EUSAGE, "case %zu", i);
        cr_assert_str_eq(c.err, cases[i].err);
        cli_sweep_config_free(&c);
    }
    cli_sweep_config c;
    cli_sweep_config_init(&c);
    cr_assert_eq(cli_sweep_config_parse_mem(&c, "[run]\nseed = 1\0\n", 15, "m.ini"), MM_EUSAGE);
    cr_assert_str_eq(c.err, "m.ini:2: a NUL byte in the line (not a text file?)");
    cli_sweep_config_free(&c);
}

Test(cli_units, flags_override_the_file_but_not_each_other)
{
    cli_sweep_config c;
    cr_assert_eq(parse(&c, "[grid]\nspread = 1,2\n[params]\ninv_limit = 3\n"), 0);
    cr_assert_eq(cli_sweep_config_add_flag_kv(&c, "--set", "spread=4"), 0, "%s", c.err);
    cr_assert_eq(c.n_grid, 0, "the flag replaced the file's axis");
    cr_assert_eq(cli_sweep_config_add_flag_kv(&c, "--grid", "inv_limit=1,2"), 0, "%s", c.err);
    cr_assert_eq(c.n_sets, 1);
    cr_assert_str_eq(c.sets[0].key, "spread");
    cr_assert_eq(cli_sweep_config_add_flag_kv(&c, "--grid", "inv_limit=5"), MM_EUSAGE);
    cr_assert_str_eq(c.err, "--grid inv_limit: key given twice");
    cr_assert_eq(cli_sweep_config_add_flag_kv(&c, "--grid", "spread=5"), MM_EUSAGE);
    cr_assert_str_eq(c.err, "--grid spread: key given both as --grid and as --set");
    cr_assert_eq(cli_sweep_config_add_flag_kv(&c, "--grid", "=5"), MM_EUSAGE);
    cr_assert_eq(cli_sweep_config_add_flag_kv(&c, "--grid", "spread"), MM_EUSAGE);
    cr_assert_eq(cli_sweep_config_check(&c), 0);
    cli_sweep_config_free(&c);
    cr_assert_eq(parse(&c, "[grid]\nspread = 1,2\n[params]\nspread = 3\n"), 0);
    cr_assert_eq(cli_sweep_config_check(&c), MM_EUSAGE);
    cr_assert_str_eq(c.err, "spread: both an axis (m.ini:2) and a fixed value (m.ini:4)");
    cli_sweep_config_free(&c);
}

Test(cli_units, keys_have_one_canonical_spelling)
{
    char b[64];
    cr_assert_str_eq(cli_key_canon("inv-limit", b, sizeof b), "inv_limit");
    cr_assert_str_eq(cli_key_canon("inv_limit", b, sizeof b), "inv_limit");
    cr_assert_str_eq(cli_key_canon("half-spread", b, sizeof b), "spread");
    cr_assert_str_eq(cli_key_canon("glft-A", b, sizeof b), "glft_A"); /* case kept */
    cr_assert_str_eq(cli_key_canon("sample-ns", b, sizeof b), "sample_ns");
}

Test(cli_units, suggestions_are_close_or_absent)
{
    const char *cmds[] = {"gen", "info", "sweep", "show", NULL};
    cr_assert_str_eq(cli_suggest("swep", cmds, 5), "sweep");
    cr_assert_str_eq(cli_suggest("sohw", cmds, 5), "show"); /* a swap is one edit */
    cr_assert_null(cli_suggest("shxyz", cmds, 5));          /* 3 edits in 5 letters: too far */
    cr_assert_null(cli_suggest("frobnicate", cmds, 5));
    cr_assert_str_eq(cli_suggest_key("inv-limt"), "inv_limit");
    cr_assert_str_eq(cli_suggest_key("half_sprad"), "half_spread");
    cr_assert_str_eq(cli_suggest_key("latency-n"), "latency_ns");
    cr_assert_null(cli_suggest_key("zzzzzz"));
}

Test(cli_units, strategies_read_their_own_keys)
{
    cr_assert_eq(cli_key_strategy("spread"), 0);
    cr_assert_eq(cli_key_strategy("skew"), 0);
    cr_assert_eq(cli_key_strategy("as_gamma"), 1);
    cr_assert_eq(cli_key_strategy("glft_Q"), 2);
    cr_assert_eq(cli_key_strategy("inv_limit"), -1);
    cr_assert_eq(cli_key_strategy("latency_ns"), -1);
}

Test(cli_units, objectives_split_into_a_direction_and_a_name)
{
    char n[64];
    int asc = -1;
    cr_assert_eq(cli_objective_split("pnl", n, sizeof n, &asc), 0);
    cr_assert(!strcmp(n, "pnl") && asc == 0);
    cr_assert_eq(cli_objective_split("max-drawdown", n, sizeof n, &asc), 0);
    cr_assert(!strcmp(n, "max_drawdown") && asc == 1);
    cr_assert_eq(cli_objective_split("max:max_drawdown", n, sizeof n, &asc), 0);
    cr_assert(!strcmp(n, "max_drawdown") && asc == 0);
    cr_assert_eq(cli_objective_split("min:pnl", n, sizeof n, &asc), 0);
    cr_assert(!strcmp(n, "pnl") && asc == 1);
    cr_assert_eq(cli_objective_split("low:pnl", n, sizeof n, &asc), -1);
}

Test(cli_units, shortest_round_trip_numbers)
{
    char b[40];
    cr_assert_str_eq(cli_fmt_shortest(0.1, b, sizeof b), "0.1");
    cr_assert_str_eq(cli_fmt_shortest(60, b, sizeof b), "60");
    cr_assert_str_eq(cli_fmt_shortest(5896800, b, sizeof b), "5896800");
    cr_assert_str_eq(cli_fmt_shortest(1e-7, b, sizeof b), "1e-07");
    cr_assert_str_eq(cli_fmt_shortest(0.30000000000000004, b, sizeof b), "0.30000000000000004");
    cr_assert_str_eq(cli_fmt_shortest(1e300, b, sizeof b), "1e+300");
}

Test(cli_units, config_keys_take_either_spelling)
{
    cli_sweep_config c;
    cli_sweep_config_init(&c);
    const char ini[] = "[grid]\ninv-limit = 1,2\n[params]\nhalf-spread = 3\n[run]\nsample-ns = 5\n";
    cr_assert_eq(cli_sweep_config_parse_mem(&c, ini, sizeof ini - 1, "c.ini"), 0, "%s", c.err);
    cr_assert_str_eq(c.grid[0].key, "inv_limit");
    cr_assert_str_eq(c.sets[0].key, "spread");
    cr_assert_str_eq(c.sample_ns, "5");
    /* A flag in the other spelling replaces the file's key. */
    cr_assert_eq(cli_sweep_config_add_flag_kv(&c, "--grid", "inv_limit=4"), 0, "%s", c.err);
    cr_assert_eq(c.n_grid, 1);
    cr_assert_str_eq(c.grid[0].val, "4");
    cli_sweep_config_free(&c);
}
