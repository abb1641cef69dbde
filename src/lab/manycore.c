/* manycore.c - the probes of the many-core model (see manycore.h). */
#include "manycore.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../rt/pz_rt.h"
#include "../util/json.h"
#include "../util/util.h"
#include "lab.h"
#include "quality.h"

/* Without a second CPU the 2-worker fork-join cannot be measured: this
 * default (a cache-line round trip between cores, order of magnitude) is
 * taken instead. */
#define SYNC_US_DEFAULT 0.5

/* Without sysconf's answer: 1 MiB of L2 a core, 32 MiB of L3. */
#define L2_DEFAULT (1024.0 * 1024.0)
#define L3_DEFAULT (32.0 * 1024.0 * 1024.0)

static void empty_task(void *ctx, int ith, int nth)
{
    (void)ctx;
    (void)ith;
    (void)nth;
}

/* The least mean time of one fork-join over batches of `per` runs. */
static double sync_probe(int workers)
{
    pz_pool *p = pz_pool_new(workers);
    if (!p) return SYNC_US_DEFAULT;
    const int per = 2000, batches = 9;
    double best = 1e30;
    pz_pool_run(p, workers, empty_task, NULL);   /* workers started and warm */
    for (int b = 0; b < batches; b++) {
        double t0 = util_now_s();
        for (int i = 0; i < per; i++) pz_pool_run(p, workers, empty_task, NULL);
        double us = (util_now_s() - t0) * 1e6 / per;
        if (us < best) best = us;
    }
    pz_pool_free(p);
    return best;
}

/* Copy bandwidth of one core over a working set of `bytes` (two halves,
 * copied back and forth), GB/s counting the bytes read and written; the
 * best of `reps` passes after a warm-up pass. 0 when out of memory. */
static double copy_probe(size_t bytes, int reps)
{
    size_t half = bytes / 2;
    char *a = malloc(half), *b = malloc(half);
    if (!a || !b) {
        free(a);
        free(b);
        return 0;
    }
    memset(a, 1, half);
    memset(b, 2, half);
    double best = 0;
    for (int r = 0; r <= reps; r++) {
        double t0 = util_now_s();
        memcpy(r & 1 ? a : b, r & 1 ? b : a, half);
        double s = util_now_s() - t0;
        if (r > 0 && s > 0 && 2.0 * (double)half / s / 1e9 > best) best = 2.0 * (double)half / s / 1e9;
    }
    /* keep the copies from being dropped as dead stores */
    volatile char sink = a[half / 3] ^ b[half / 5];
    (void)sink;
    free(a);
    free(b);
    return best;
}

/* The probes, with a load-window tick between them when w is given. */
static void probe_all(lab_manycore *c, lab_window *w)
{
    memset(c, 0, sizeof *c);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    c->host_cores = n > 0 ? (int)n : 1;
    long l2 = -1, l3 = -1;
#ifdef _SC_LEVEL2_CACHE_SIZE
    l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    c->l2_bytes = l2 > 0 ? (double)l2 : L2_DEFAULT;
    c->l3_bytes = l3 > 0 ? (double)l3 : L3_DEFAULT;
    c->sync_us[0] = 0;
    c->sync_us[1] = sync_probe(1);
    c->sync_us[2] = c->host_cores >= 2 ? sync_probe(2) : SYNC_US_DEFAULT;
    if (w) lab_window_tick(w);
    /* working sets: half the L2; 4x the L2 (in L3 when the L3 holds it); and
     * twice the L3, at least 256 MiB, at most 1 GiB (DRAM) */
    double dram = 2 * c->l3_bytes;
    if (dram < 256.0 * 1024 * 1024) dram = 256.0 * 1024 * 1024;
    if (dram > 1024.0 * 1024 * 1024) dram = 1024.0 * 1024 * 1024;
    c->bw_l2 = copy_probe((size_t)(c->l2_bytes / 2), 200);
    c->bw_l3 = copy_probe((size_t)(c->l2_bytes * 4), 40);
    if (w) lab_window_tick(w);
    c->bw_dram = copy_probe((size_t)dram, 2);
    /* out of memory: the next level's figure, a lower bound */
    if (c->bw_dram <= 0) c->bw_dram = c->bw_l3 > 0 ? c->bw_l3 / 2 : 5;
    if (c->bw_l3 <= 0) c->bw_l3 = c->bw_dram;
    if (c->bw_l2 <= 0) c->bw_l2 = c->bw_l3;
}

void lab_manycore_probe(lab_manycore *c)
{
    probe_all(c, NULL);
}

/* Probes checked as characterize checks a study (quality.c): the FMA probe
 * on every core before and after, the load window around. A disturbed pass
 * is measured again once the cores are free, up to QUIET_TRIES passes; the
 * last pass's figures are kept either way. Returns 1 when a pass was quiet;
 * else 0 with c->noisy saying what disturbed it. A fork-join timed while
 * another process holds a core waits for that process's time slice, and a
 * cached figure would stand for every later simulation. */
enum { QUIET_TRIES = 3 };

static int probe_quiet(lab_manycore *c)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = n > 0 ? (int)n : 1;
    lab_quality q = {0};
    for (int a = 1; a <= QUIET_TRIES; a++) {
        lab_probe before, after;
        lab_window w;
        lab_probe_run(threads, &before);
        lab_window_begin(&w, threads);
        probe_all(c, &w);
        lab_window_end(&w);
        lab_probe_run(threads, &after);
        q.attempts = a;
        lab_quality_judge(&q, &before, &after, &w, NULL, 0);
        if (q.quiet) return 1;
        snprintf(c->noisy, sizeof c->noisy, "%s", q.why);
        if (a < QUIET_TRIES) lab_wait_quiet(threads, q.tol, 2.0);
    }
    return 0;
}

/* The cache file: the default profile's folder, this file's name. */
static void cache_path(char *buf, size_t size)
{
    lab_default_profile_path(buf, size);
    char *slash = strrchr(buf, '/');
    size_t at = slash ? (size_t)(slash - buf) + 1 : 0;
    snprintf(buf + at, size - at, "manycore-v1-%ldcpu.json", sysconf(_SC_NPROCESSORS_ONLN));
}

static const char *const KEYS[] = {"sync_us_1", "sync_us_2", "bw_l2_gbs", "bw_l3_gbs",
                                   "bw_dram_gbs", "l2_bytes", "l3_bytes"};
enum { N_KEYS = 7 };

static double *field(lab_manycore *c, int i)
{
    double *f[N_KEYS] = {&c->sync_us[1], &c->sync_us[2], &c->bw_l2, &c->bw_l3, &c->bw_dram,
                         &c->l2_bytes, &c->l3_bytes};
    return f[i];
}

/* 0 when path holds every key as a positive number (sync: >= 0). */
static int read_cache(const char *path, lab_manycore *c)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char text[4096];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    json_value *root = NULL;
    pz_err err = {0};
    if (json_parse(text, len, path, &root, &err)) return -1;
    int bad = 0;
    for (int i = 0; i < N_KEYS && !bad; i++) {
        const json_value *v = json_get(root, KEYS[i]);
        bad = !v || v->type != JSON_NUMBER || !(v->num >= 0) || (i >= 2 && !(v->num > 0));
        if (!bad) *field(c, i) = v->num;
    }
    json_free(root);
    return bad ? -1 : 0;
}

int lab_manycore_load(lab_manycore *c, char *path, size_t size)
{
    cache_path(path, size);
    memset(c, 0, sizeof *c);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    c->host_cores = n > 0 ? (int)n : 1;
    if (read_cache(path, c) == 0) return 1;
    if (!probe_quiet(c)) return -1;
    char text[1024];
    int len = snprintf(text, sizeof text, "{\"paleozoic_manycore\": 1");
    for (int i = 0; i < N_KEYS; i++)
        len += snprintf(text + len, sizeof text - (size_t)len, ",\n \"%s\": %.6g", KEYS[i], *field(c, i));
    len += snprintf(text + len, sizeof text - (size_t)len, "}\n");
    pz_err err = {0};
    lab_write_atomic(path, text, (size_t)len, 1, &err);
    return 0;
}
