/* quality.h - whether a profile can be trusted: the machine it describes
 * (machine.c) and how quiet the machine was while it was measured
 * (quality.c).
 *
 *   lab_machine me;  lab_machine_read(&me);        // this machine
 *   lab_probe before; lab_probe_run(cores, &before);  // FMA peak, core share
 *   lab_window w;    lab_window_begin(&w, cores);
 *   ... the study, calling lab_window_tick(&w) between its timings ...
 *   lab_window_end(&w);  lab_probe_run(cores, &after);
 *   lab_quality q;   lab_quality_judge(&q, &before, &after, &w, spreads, n);
 *   if (!q.quiet) ... q.why says what was disturbed ...
 */
#ifndef PZ_LAB_QUALITY_H
#define PZ_LAB_QUALITY_H

#include <stddef.h>

#include "../gen/text.h"
#include "../util/json.h"

/* ---- machine.c: the machine a profile describes --------------------------- */

typedef struct {
    char cpu[128];          /* /proc/cpuinfo "model name" (or "unknown") */
    int logical_cores;      /* online CPUs */
    int cache_kib[4];       /* L1d, L2, L3 of cpu0 (sysfs), 0 where unknown */
    char isa[160];          /* the instruction sets the kernels choose by,
                             * space-separated, e.g. "avx2 fma avx512f ..." */
} lab_machine;

void lab_machine_read(lab_machine *m);
/* "  \"machine\": {...}" (no trailing comma or newline) */
void lab_machine_json(gen_text *b, const lab_machine *m);
/* Reads the "machine" member of a profile's root object into m. Returns 0,
 * or -1 when the profile has none (an older profile) or it is malformed. */
int lab_machine_parse(const json_value *root, lab_machine *m);
/* 0 when a and b are the same machine; otherwise 1 and why says the first
 * difference ("CPU \"X\" here, \"Y\" in the profile"). */
int lab_machine_differs(const lab_machine *here, const lab_machine *prof, char *why, size_t n);

/* ---- quality.c: the FMA probe, the load window, the verdict --------------- */

typedef struct {
    int threads;
    double peak_gflops;     /* per core: FMA FLOP per second of the thread's own CPU time */
    double share;           /* the worst thread's CPU time over wall time (1: a core of its own) */
    double spread;          /* burst-to-burst relative spread of the rate (max-min)/median */
} lab_probe;

/* Runs the FMA probe on `threads` threads at once (a few bursts of ~10 ms
 * each): every thread a chain of independent FMAs, timed by the wall clock
 * and its own CPU clock. */
void lab_probe_run(int threads, lab_probe *p);

typedef struct {
    int threads;            /* the study's, for the probes of lab_window_tick */
    double last_tick, min_share;    /* the worst core share of those probes */
    int ticks;
    double wall0, cpu0;     /* at begin: wall s, our process's CPU s */
    unsigned long long stat0[10];   /* /proc/stat "cpu" fields */
    long nivcsw0;
    int have_stat;
    /* at end */
    double wall, cpu;       /* seconds of the window, our CPU s */
    double others_cores;    /* CPU time of every other process / wall: cores they used */
    double steal;           /* stolen time / (wall x online CPUs) */
    double preempt_per_s;   /* our threads' involuntary context switches per second */
} lab_window;

void lab_window_begin(lab_window *w, int threads);
/* Called between a study's timings: a short probe once a second at most. */
void lab_window_tick(lab_window *w);
void lab_window_end(lab_window *w);

typedef struct {
    int quiet;              /* 1: the study may be trusted */
    double tol;             /* the relative disturbance allowed (see lab_quality_judge) */
    double peak_before, peak_after, share_before, share_after, probe_spread;
    double share_during;    /* the worst of the probes during the study */
    double spread_median, spread_p90;   /* of the study's repeated timings */
    double others_cores, steal, preempt_per_s;
    int attempts;           /* studies measured (1 + the re-measurements) */
    char why[256];          /* what was disturbed, when not quiet */
} lab_quality;

/* The verdict on a study, from the probes before and after it, the window
 * around it and the relative spreads of its n repeated timings. */
void lab_quality_judge(lab_quality *q, const lab_probe *before, const lab_probe *after,
                       const lab_window *w, double *spreads, int n);
/* Probes every quarter second, up to `seconds`, until every probe thread
 * gets 1 - tol of a core: 1 then, 0 if the machine stayed busy. */
int lab_wait_quiet(int threads, double tol, double seconds);
/* One line on stderr: the figures and the verdict. */
void lab_quality_print(const lab_quality *q);
/* "  \"quality\": {...}" */
void lab_quality_json(gen_text *b, const lab_quality *q);

#endif
