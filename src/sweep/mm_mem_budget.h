/* The memory a sweep may use and the memory it needs (docs/sweep.md, "Memory"): mm_sweep_run
 * refuses a run that cannot fit before anything is allocated (mem_budget.c). */
#ifndef MM_MEM_BUDGET_H
#define MM_MEM_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "mmsim/mmsim.h"

/* The limits on this process's memory, in bytes; INFINITY where there is none (or it is unknown).
 * phys and cgroup bound every process of the run together (the workers of the process engine
 * included); as and data bound each process on its own (forked workers inherit them). */
typedef struct mm__mem_limits {
    double phys;   /* physical memory: _SC_PHYS_PAGES x _SC_PAGESIZE */
    double as;     /* RLIMIT_AS soft limit (ulimit -v) */
    double data;   /* RLIMIT_DATA soft limit (ulimit -d) */
    double cgroup; /* the smallest memory.max (cgroup v2) or memory.limit_in_bytes (v1) of this
                    * process's cgroup and its ancestors */
    int cgroup_v1; /* 1 when cgroup came from memory.limit_in_bytes */
} mm__mem_limits;

/* Read the limits. proc_cgroup is the process's cgroup list ("/proc/self/cgroup": lines
 * "ID:CONTROLLERS:PATH"), cgroup_root where the hierarchies are mounted ("/sys/fs/cgroup": v2 there
 * or in unified/, v1's memory controller in memory/); tests pass files of their own. A file that
 * cannot be read is no limit. */
void mm__mem_limits_read(mm__mem_limits *l, const char *proc_cgroup, const char *cgroup_root);

/* What a run will hold, as mm_sweep_run plans it. */
typedef struct mm__mem_plan {
    int64_t n_combos;
    int32_t n_tapes;
    int64_t chunk;     /* combinations per chunk */
    int64_t paths;     /* paths per combination */
    int keep_paths;    /* the records hold every path's metrics */
    size_t rec_bytes;  /* one combination's journal record */
    int workers;       /* processes or threads computing chunks */
    int held;          /* chunk results an engine holds per worker (mm__engine.held) */
    int forks;         /* the workers are processes (mm__engine flag MM__ENGINE_FORKS) */
    int64_t syn_max;   /* events of the largest synthetic market's day (0: none) */
    int64_t syn_sum;   /* events of every synthetic market's path-0 day (the parent loads them) */
    int latency_table; /* a latency series: the tape tables take 16 bytes more per event */
} mm__mem_plan;

/* 0 when the plan fits the limits, else MM_EUSAGE with one line in err: what the run needs, which
 * limit it passes, and the setting to lower (mm_sweep_opts.workers, .chunk, .paths, the synthetic
 * market's mm_gen_params.events, or the grid), with how much of it fits. */
int mm__mem_check(const mm__mem_plan *p, const mm__mem_limits *l, mm_error *err);

/* b bytes as "34.0 TB" (decimal units, one decimal) into buf. */
void mm__fmt_bytes(double b, char *buf, size_t cap);

#endif
