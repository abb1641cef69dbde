/* quality.c - how quiet the machine was while a study measured it.
 *
 * Three witnesses, because each misses something the others see:
 *   - the FMA probe, before and after the study, on as many threads as the
 *     study uses: each thread's CPU time over wall time is the share of a
 *     core it got (another runnable process on the cores lowers it), and
 *     its FMA rate per second of its own CPU time is the core's peak (a
 *     busy SMT sibling, a clock that changed, lower it);
 *   - the window around the study: CPU time of every other process
 *     (/proc/stat's busy time less our getrusage), time stolen by the
 *     hypervisor (/proc/stat's steal) and our threads' involuntary context
 *     switches (getrusage), which see a load that came and went between
 *     the probes;
 *   - the spread of the study's own repeated timings.
 * lab_quality_judge turns them into a verdict; its rule is stated there. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(PZ_SCALAR)
#include <immintrin.h>
#endif

#include "../util/util.h"
#include "lab.h"
#include "quality.h"

enum { BURSTS = 5, MAX_THREADS = 256 };
#define BURST_S 0.010   /* one burst: long against a clock read, short against the study */

/* ---- the FMA probe ---------------------------------------------------------- */

/* iters rounds of 8 independent FMA chains; returns the FLOP done. The
 * chains converge (a = 0.999 a + 0.001) so nothing grows or turns denormal. */
#if defined(__x86_64__) && !defined(PZ_SCALAR)
__attribute__((target("avx512f"))) static double fma_avx512(long iters, float *sink)
{
    const __m512 m = _mm512_set1_ps(0.999f), c = _mm512_set1_ps(0.001f);
    __m512 a[8];
    for (int i = 0; i < 8; i++) a[i] = _mm512_set1_ps((float)i);
    for (long k = 0; k < iters; k++)
        for (int i = 0; i < 8; i++) a[i] = _mm512_fmadd_ps(a[i], m, c);
    for (int i = 1; i < 8; i++) a[0] = _mm512_add_ps(a[0], a[i]);
    *sink += _mm512_reduce_add_ps(a[0]);
    return (double)iters * 8 * 16 * 2;
}

__attribute__((target("avx2,fma"))) static double fma_avx2(long iters, float *sink)
{
    const __m256 m = _mm256_set1_ps(0.999f), c = _mm256_set1_ps(0.001f);
    __m256 a[8];
    for (int i = 0; i < 8; i++) a[i] = _mm256_set1_ps((float)i);
    for (long k = 0; k < iters; k++)
        for (int i = 0; i < 8; i++) a[i] = _mm256_fmadd_ps(a[i], m, c);
    float t[8];
    for (int i = 1; i < 8; i++) a[0] = _mm256_add_ps(a[0], a[i]);
    _mm256_storeu_ps(t, a[0]);
    for (int i = 0; i < 8; i++) *sink += t[i];
    return (double)iters * 8 * 8 * 2;
}
#endif

static double fma_scalar(long iters, float *sink)
{
    float a[8];
    for (int i = 0; i < 8; i++) a[i] = (float)i;
    for (long k = 0; k < iters; k++)
        for (int i = 0; i < 8; i++) a[i] = a[i] * 0.999f + 0.001f;
    for (int i = 0; i < 8; i++) *sink += a[i];
    return (double)iters * 8 * 2;
}

typedef double (*fma_fn)(long, float *);

static fma_fn pick_fma(void)
{
#if defined(__x86_64__) && !defined(PZ_SCALAR)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return fma_avx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return fma_avx2;
#endif
    return fma_scalar;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct {
    pthread_barrier_t *start;
    fma_fn fn;
    int bursts;
    double rate[BURSTS];    /* FLOP per CPU second of each burst */
    double share[BURSTS];   /* its CPU time over its wall time */
    double cpu, wall;
    float sink;
} probe_thread;

static void *probe_main(void *arg)
{
    probe_thread *t = arg;
    pthread_barrier_wait(t->start);
    for (int b = 0; b < t->bursts; b++) {
        double w0 = util_now_s(), c0 = thread_cpu_s(), flop = 0, w1;
        do flop += t->fn(2000, &t->sink);
        while ((w1 = util_now_s()) - w0 < BURST_S);
        double cpu = thread_cpu_s() - c0;
        t->rate[b] = cpu > 0 ? flop / cpu : 0;
        t->share[b] = cpu / (w1 - w0);
        t->cpu += cpu;
        t->wall += w1 - w0;
    }
    return NULL;
}

static void probe_n(int threads, int bursts, lab_probe *p);

void lab_probe_run(int threads, lab_probe *p)
{
    probe_n(threads, BURSTS, p);
}

static void probe_n(int threads, int bursts, lab_probe *p)
{
    if (threads < 1) threads = 1;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    memset(p, 0, sizeof *p);
    probe_thread *t = pz_xcalloc((size_t)threads, sizeof *t);
    pthread_t *id = pz_xcalloc((size_t)threads, sizeof *id);
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    fma_fn fn = pick_fma();
    int started = 1;
    for (int i = 0; i < threads; i++) t[i].start = &start, t[i].fn = fn, t[i].bursts = bursts;
    for (int i = 1; i < threads; i++)
        if (pthread_create(&id[i], NULL, probe_main, &t[i])) break;
        else started++;
    if (started < threads) {   /* too few threads: the barrier would never open */
        pthread_barrier_destroy(&start);
        pthread_barrier_init(&start, NULL, (unsigned)started);
    }
    probe_main(&t[0]);
    for (int i = 1; i < started; i++) pthread_join(id[i], NULL);
    pthread_barrier_destroy(&start);
    /* the peak and its spread over the bursts in which the thread ran at
     * least half the time: a rate timed over less CPU time than that is
     * the switches' more than the core's */
    double rates[MAX_THREADS * BURSTS], all[MAX_THREADS * BURSTS];
    int n = 0, na = 0;
    p->threads = started;
    p->share = 1;
    for (int i = 0; i < started; i++) {
        for (int b = 0; b < bursts; b++) {
            all[na++] = t[i].rate[b];
            if (t[i].share[b] >= 0.5) rates[n++] = t[i].rate[b];
        }
        double share = t[i].wall > 0 ? t[i].cpu / t[i].wall : 0;
        if (share < p->share) p->share = share;
    }
    if (n < 3) {   /* hardly a core of its own: the peak of all bursts, no spread */
        p->peak_gflops = util_median(all, na) * 1e-9;
        p->spread = 0;
    } else {
        double lo = rates[0], hi = rates[0];
        for (int i = 0; i < n; i++) lo = fmin(lo, rates[i]), hi = fmax(hi, rates[i]);
        double med = util_median(rates, n);
        p->peak_gflops = med * 1e-9;
        p->spread = med > 0 ? (hi - lo) / med : 0;
    }
    free(t);
    free(id);
}

/* ---- the window around a study ---------------------------------------------- */

static int read_stat(unsigned long long v[10])
{
    memset(v, 0, 10 * sizeof v[0]);
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return -1;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    fclose(f);
    return n >= 8 ? 0 : -1;
}

static double self_cpu_s(long *nivcsw)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *nivcsw = ru.ru_nivcsw;
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

void lab_window_begin(lab_window *w, int threads)
{
    memset(w, 0, sizeof *w);
    w->threads = threads;
    w->min_share = 1;
    w->last_tick = util_now_s();
    w->have_stat = read_stat(w->stat0) == 0;
    w->cpu0 = self_cpu_s(&w->nivcsw0);
    w->wall0 = util_now_s();
}

/* A short probe (2 bursts, 20 ms) once a second at most: about 2% of the
 * study's time, and a load that stays a second is seen. */
void lab_window_tick(lab_window *w)
{
    if (util_now_s() - w->last_tick < 1.0) return;
    lab_probe p;
    probe_n(w->threads, 2, &p);
    w->min_share = fmin(w->min_share, p.share);
    w->ticks++;
    w->last_tick = util_now_s();
}

void lab_window_end(lab_window *w)
{
    long nivcsw;
    w->wall = util_now_s() - w->wall0;
    w->cpu = self_cpu_s(&nivcsw) - w->cpu0;
    w->preempt_per_s = w->wall > 0 ? (double)(nivcsw - w->nivcsw0) / w->wall : 0;
    unsigned long long v[10];
    if (!w->have_stat || read_stat(v) || w->wall <= 0) return;
    double tick = (double)sysconf(_SC_CLK_TCK), d[10];
    for (int i = 0; i < 10; i++) d[i] = (double)(v[i] - w->stat0[i]) / (tick > 0 ? tick : 100);
    /* user nice system idle iowait irq softirq steal guest guest_nice;
     * guest time is already in user and nice */
    double busy = d[0] + d[1] + d[2] + d[5] + d[6];
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    w->others_cores = fmax(0, busy - w->cpu) / w->wall;
    w->steal = d[7] / (w->wall * (double)(ncpu > 0 ? ncpu : 1));
}

/* ---- the verdict -------------------------------------------------------------- */

void lab_quality_judge(lab_quality *q, const lab_probe *before, const lab_probe *after,
                       const lab_window *w, double *spreads, int n)
{
    int attempts = q->attempts;
    memset(q, 0, sizeof *q);
    q->attempts = attempts;
    q->peak_before = before->peak_gflops, q->peak_after = after->peak_gflops;
    q->share_before = before->share, q->share_after = after->share;
    q->probe_spread = fmax(before->spread, after->spread);
    q->others_cores = w->others_cores, q->steal = w->steal, q->preempt_per_s = w->preempt_per_s;
    q->spread_median = q->spread_p90 = NAN;
    if (n > 0) {
        q->spread_median = util_median(spreads, n);   /* sorts */
        q->spread_p90 = spreads[(int)floor(0.9 * (n - 1))];
    }
    /* The rule. The tolerance is what the probe itself moves on this
     * machine, three times its burst-to-burst spread before the study, and
     * never under the 2% by which the profile's own decisions tell timings
     * apart (LAB_FUSE_GAIN_MIN): a disturbance inside it changes nothing
     * the profile concludes; nor over five times that: a probe that moves
     * more is itself sharing its core. The study is disturbed when
     *   - a probe thread got less than 1 - tol of a core, before, during
     *     (lab_window_tick) or after (another runnable process shared the
     *     cores),
     *   - the FMA peak after is off the one before by more than tol (a
     *     busy SMT sibling, a clock that changed),
     *   - the hypervisor stole more than tol of the machine's time,
     *   - the study's median timing spread exceeds 5 tol: its runs moved
     *     far more than a quiet core does (a load between the probes; a
     *     small layer's runs spread by more than the probe's bursts even
     *     on a quiet machine, hence the factor: bench/RESULTS.md,
     *     'characterize: a study on shared cores'). */
    const double res = LAB_FUSE_GAIN_MIN - 1, tol = fmin(5 * res, fmax(res, 3 * before->spread));
    q->tol = tol;
    const double share = fmin(fmin(before->share, after->share), w->min_share);
    q->share_during = w->min_share;
    if (share < 1 - tol)
        snprintf(q->why, sizeof q->why, "a probe thread got %.0f%% of a core %s the study: another process "
                 "ran on the cores", 100 * share, share == before->share ? "before" : share == after->share ?
                 "after" : "during");
    else if (fabs(after->peak_gflops / before->peak_gflops - 1) > tol)
        snprintf(q->why, sizeof q->why, "the FMA peak moved from %.1f to %.1f GFLOP/s per core during the study",
                 before->peak_gflops, after->peak_gflops);
    else if (w->steal > tol)
        snprintf(q->why, sizeof q->why, "the hypervisor stole %.0f%% of the machine's time", 100 * w->steal);
    else if (q->spread_median > 5 * tol)
        snprintf(q->why, sizeof q->why, "the repeated timings spread by %.0f%% (median), over 5 x %.0f%%",
                 100 * q->spread_median, 100 * tol);
    q->quiet = !q->why[0];
}

static void jnum(gen_text *b, const char *key, double v, const char *sep)
{
    if (isfinite(v)) gt_printf(b, "\"%s\": %.4g%s", key, v, sep);
    else gt_printf(b, "\"%s\": null%s", key, sep);
}

void lab_quality_json(gen_text *b, const lab_quality *q)
{
    gt_printf(b, "  \"quality\": {\"quiet\": %s, \"attempts\": %d, ", q->quiet ? "true" : "false", q->attempts);
    jnum(b, "tolerance", q->tol, ", ");
    jnum(b, "peak_before_gflops", q->peak_before, ", ");
    jnum(b, "peak_after_gflops", q->peak_after, ", ");
    jnum(b, "core_share_before", q->share_before, ", ");
    jnum(b, "core_share_after", q->share_after, ", ");
    jnum(b, "core_share_during_min", q->share_during, ", ");
    jnum(b, "probe_spread", q->probe_spread, ",\n              ");
    jnum(b, "timing_spread_median", q->spread_median, ", ");
    jnum(b, "timing_spread_p90", q->spread_p90, ", ");
    jnum(b, "others_cores", q->others_cores, ", ");
    jnum(b, "steal", q->steal, ", ");
    jnum(b, "preemptions_per_s", q->preempt_per_s, "");
    gt_printf(b, ", \"why\": \"%s\"}", q->why);
}

void lab_quality_print(const lab_quality *q)
{
    fprintf(stderr, "characterize: study %d: FMA peak %.1f -> %.1f GFLOP/s per core, core share %.2f, %.2f, %.2f, "
            "timing spread %.3f (p90 %.3f), other processes %.2f cores, steal %.3f, %.0f preemptions/s: %s%s\n",
            q->attempts, q->peak_before, q->peak_after, q->share_before, q->share_during, q->share_after, q->spread_median,
            q->spread_p90, q->others_cores, q->steal, q->preempt_per_s, q->quiet ? "quiet" : "not quiet: ", q->why);
}

int lab_wait_quiet(int threads, double tol, double seconds)
{
    double t0 = util_now_s();
    do {
        struct timespec ts = {0, 250 * 1000 * 1000};
        nanosleep(&ts, NULL);
        lab_probe p;
        lab_probe_run(threads, &p);
        if (p.share >= 1 - tol) return 1;
    } while (util_now_s() - t0 < seconds);
    return 0;
}
