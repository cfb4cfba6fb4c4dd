/* The sweep's progress line on stderr (sweep_progress.h, docs/sweep.md "Progress"). */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sweep_progress.h"

/* The state whose timer may run, for the fork handlers below (the CLI runs one sweep at a time). */
static sweep_progress_state *g_active;
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;

/* The process engine forks its workers while the timer thread may be printing (stdio, malloc).
 * A child that inherits an allocator lock held by a thread that does not exist in it deadlocks on
 * its first malloc (seen under AddressSanitizer, whose allocator has no fork handlers). The timer
 * does all its work holding mu and holds no other lock while it waits, and it holds mu from the
 * moment it starts (sweep_print_progress waits for that), so holding mu across fork() leaves it
 * either waiting or not yet woken: no lock of its own is inherited half-taken. */
static void atfork_prepare(void)
{
    if (g_active) pthread_mutex_lock(&g_active->mu);
}

static void atfork_release(void)
{
    if (g_active) pthread_mutex_unlock(&g_active->mu);
}

static void atfork_register(void)
{
    pthread_atfork(atfork_prepare, atfork_release, atfork_release);
}

/* "0.4 s", "34 s", "2 min 28 s", "3 h 05 min": a duration in seconds as a log reader reads it. */
static void fmt_dur(double s, char *b, size_t cap)
{
    if (!(s >= 0)) s = 0;
    if (s < 10) {
        snprintf(b, cap, "%.1f s", s);
        return;
    }
    long long t = llround(s);
    if (t < 60)
        snprintf(b, cap, "%lld s", t);
    else if (t < 3600)
        snprintf(b, cap, "%lld min %lld s", t / 60, t % 60);
    else if (t < 86400 * 2)
        snprintf(b, cap, "%lld h %02lld min", t / 3600, t / 60 % 60);
    else
        snprintf(b, cap, "%lld d %lld h", t / 86400, t / 3600 % 24);
}

/* A rate: "35.2", "0.373", "1480". */
static void fmt_rate(double v, char *b, size_t cap)
{
    snprintf(b, cap, v >= 100 ? "%.0f" : "%.3g", v);
}

double sweep_eta_s(int64_t done, int64_t total, double elapsed_s)
{
    if (done <= 0 || !(elapsed_s > 0)) return -1;
    if (done >= total) return 0;
    return (double)(total - done) * elapsed_s / (double)done;
}

void sweep_progress_line(const mm_sweep_progress *p, int64_t paths, double now_s, char *buf,
                         size_t cap)
{
    /* Finished work: chunks are journaled in order, finished ones as soon as a worker is done. */
    double total = (double)p->updates_total, done = (double)p->updates_finished;
    char el[32], eta[48] = "", rate[64] = "", r[32];
    fmt_dur(now_s, el, sizeof el);
    if (p->final) {
        snprintf(eta, sizeof eta, ", done");
    } else {
        double left = sweep_eta_s(p->updates_finished, p->updates_total, now_s);
        char d[32];
        fmt_dur(left, d, sizeof d);
        snprintf(eta, sizeof eta, ", ETA %s", left < 0 ? "--" : d);
    }
    if (p->combos_finished > 0 && now_s > 0) {
        fmt_rate((double)p->combos_finished * (double)(paths > 1 ? paths : 1) / now_s, r, sizeof r);
        snprintf(rate, sizeof rate, ", %s %s/s", r, paths > 1 ? "paths" : "combos");
    }
    char what[32] = "", pathsdone[64] = "";
    if (paths > 1) {
        snprintf(what, sizeof what, " x %" PRId64 " paths", paths);
        snprintf(pathsdone, sizeof pathsdone, ", %" PRId64 "/%" PRId64 " paths",
                 p->combos_finished * paths, p->combos_total * paths);
    }
    snprintf(buf, cap, "sweep: %" PRId64 "/%" PRId64 " combinations%s (%.1f%%)%s%s, elapsed %s%s",
             p->combos_finished, p->combos_total, what, total > 0 ? 100.0 * done / total : 0.0,
             pathsdone, rate, el, eta);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* One line from the last snapshot, at now (seconds since the tapes were loaded); s->mu held. */
static void print_line(sweep_progress_state *s, double now)
{
    char line[320];
    sweep_progress_line(&s->last, s->paths, now, line, sizeof line);
    if (s->tty)
        fprintf(stderr, "\r%s   %s", line, s->last.final ? "\n" : "");
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
    s->printed++;
}

/* The timer: a line every s->every_s seconds from the last snapshot, the time being now (the
 * elapsed time and the ETA move between chunks too). Ends when the final call sets s->stop. */
static void *timer_main(void *arg)
{
    sweep_progress_state *s = arg;
    pthread_mutex_lock(&s->mu);
    s->started = 1;
    pthread_cond_broadcast(&s->cv);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!s->stop) {
        double at = (double)next.tv_sec + 1e-9 * (double)next.tv_nsec + s->every_s;
        next.tv_sec = (time_t)floor(at);
        next.tv_nsec = (long)((at - floor(at)) * 1e9);
        while (!s->stop && pthread_cond_timedwait(&s->cv, &s->mu, &next) == 0) {
        }
        if (s->stop) break;
        print_line(s, s->last.elapsed_s + (mono_s() - s->last_mono));
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

void sweep_progress_init(sweep_progress_state *s, int tty, double every_s, int64_t paths)
{
    memset(s, 0, sizeof *s);
    s->tty = tty;
    s->every_s = every_s;
    s->paths = paths;
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_once(&g_atfork_once, atfork_register);
    g_active = s;
}

void sweep_progress_start(sweep_progress_state *s, int64_t combos, int tapes)
{
    if (!s->tty && s->every_s > 0) return; /* a log gets lines only once the run is long */
    fprintf(stderr, "sweep: %" PRId64 " combinations over %d tape%s: loading%s", combos, tapes,
            tapes == 1 ? "" : "s", s->tty ? "" : "\n");
}

void sweep_print_progress(const mm_sweep_progress *p, void *user)
{
    sweep_progress_state *s = user;
    pthread_mutex_lock(&s->mu);
    s->last = *p;
    s->last_mono = mono_s();
    /* On a terminal and with --progress, every call prints (the library calls at most twice a
     * second); in a log only the timer does, and the final line comes only after other lines. */
    if (s->tty || s->every_s == 0 || (p->final && s->printed)) print_line(s, p->elapsed_s);
    int start = !p->final && !s->timer_on && s->every_s > 0;
    if (p->final) s->stop = 1;
    pthread_cond_signal(&s->cv);
    pthread_mutex_unlock(&s->mu);
    if (start) {
        /* The timer takes no signal: SIGINT and SIGTERM stay with the threads that handle them. */
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        s->timer_on = pthread_create(&s->timer, NULL, timer_main, s) == 0;
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        /* Until the timer holds mu it may be inside the thread library's start-up (allocations):
         * no fork before that (atfork_prepare). */
        pthread_mutex_lock(&s->mu);
        while (s->timer_on && !s->started)
            pthread_cond_wait(&s->cv, &s->mu);
        pthread_mutex_unlock(&s->mu);
    }
    if (p->final && s->timer_on) {
        pthread_join(s->timer, NULL);
        s->timer_on = 0;
    }
}

void sweep_progress_end(sweep_progress_state *s)
{
    if (s->timer_on) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_signal(&s->cv);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->timer, NULL);
        s->timer_on = 0;
    }
    if (g_active == s) g_active = NULL;
    pthread_cond_destroy(&s->cv);
    pthread_mutex_destroy(&s->mu);
}
