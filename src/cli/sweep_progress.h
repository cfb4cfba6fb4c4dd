/* The sweep's progress on stderr (docs/sweep.md, "Progress"): one line per report,
 *
 *   sweep: 1200/6400 combinations (18.8%), 35.2 combos/s, elapsed 34 s, ETA 2 min 28 s
 *
 * (Monte Carlo: "sweep: 1200/6400 combinations x 200 paths (18.8%), 240000/1280000 paths, 7040
 * paths/s, ...").
 * The percentage and the ETA are of the work: event x combination x path updates, each finished
 * chunk weighted by its cost (a tape's events times its combinations and paths); the ETA is that
 * finished work's rate since the start applied to the work left. Three ways to print:
 *   - a terminal: one line rewritten in place, at every library call (at most twice a second) and
 *     once a second between them;
 *   - a log (stderr not a terminal, or --progress-s N): a plain line every every_s seconds from a
 *     timer thread, so a chunk that runs for an hour still shows the clock move; nothing for a run
 *     shorter than every_s, else a final line too;
 *   - --progress: a plain line at every library call (every_s = 0). */
#ifndef MM_SWEEP_PROGRESS_H
#define MM_SWEEP_PROGRESS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "mmsim/sweep.h"

/* Seconds between the lines of a log unless --progress-s says otherwise (a plain integer literal:
 * the help prints it). */
#define SWEEP_PROGRESS_S_DEFAULT 60

typedef struct sweep_progress_state {
    int tty;        /* 1: rewrite one line in place */
    double every_s; /* > 0: the timer's period; 0: a line per library call (--progress) */
    int64_t paths;  /* per combination (1: not Monte Carlo) */
    pthread_mutex_t mu;
    pthread_cond_t cv; /* CLOCK_MONOTONIC */
    pthread_t timer;
    int timer_on, stop;
    int started;            /* the timer holds mu: set by it, under mu */
    mm_sweep_progress last; /* the library's last report */
    double last_mono;       /* when it came, CLOCK_MONOTONIC seconds */
    int64_t printed;        /* lines printed */
} sweep_progress_state;

void sweep_progress_init(sweep_progress_state *s, int tty, double every_s, int64_t paths);
/* "sweep: N combinations over T tapes: loading", before the library loads anything (a large tape
 * takes seconds); not in a log (every_s > 0 without a terminal). */
void sweep_progress_start(sweep_progress_state *s, int64_t combos, int tapes);
/* The mm_sweep_progress_fn (user: the state). The first call starts the timer, the final one
 * prints the last line (where lines were printed) and stops it. */
void sweep_print_progress(const mm_sweep_progress *p, void *user);
/* Stop the timer if a final call never came, and release the state. */
void sweep_progress_end(sweep_progress_state *s);

/* Seconds left when `done` of `total` units of work took elapsed_s: the rest at the same rate;
 * -1 when nothing is done yet. */
double sweep_eta_s(int64_t done, int64_t total, double elapsed_s);
/* The line for report p at now_s seconds since the tapes were loaded (no newline). */
void sweep_progress_line(const mm_sweep_progress *p, int64_t paths, double now_s, char *buf,
                         size_t cap);

#endif
