/* profile.c - the target profile: what the strategies know of this machine
 * (pz_machine), read from the JSON that `paleozoic characterize` writes.
 * With no --target, the default profile comes from a cache file, made on
 * first use by a ~10-second measurement on 2 cores (characterize level 0;
 * longer with more cores: lab_study_seconds). */
#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "characterize.h"
#include "../util/json.h"
#include "lab.h"
#include "quality.h"
#include "synth.h"

pz_status lab_write_atomic(const char *path, const char *text, size_t len, int mkdirs,
                           pz_err *err)
{
    if (mkdirs) {   /* create each missing parent folder */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        for (char *p = dir + 1; *p; p++)
            if (*p == '/') {
                *p = 0;
                mkdir(dir, 0755);
                *p = '/';
            }
    }
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return pz_fail(err, PZ_ERR_INPUT, "%s: cannot write: %s", path, strerror(errno));
    int ok = fwrite(text, 1, len, f) == len;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path)) {
        int e = errno;
        remove(tmp);
        return pz_fail(err, PZ_ERR_INPUT, "%s: cannot write: %s", path, strerror(e));
    }
    return PZ_OK;
}

/* The study's version is in the cache file's name: a profile cached by an
 * older study (v1: OpCount_critical off one core's plateau, 2.6e5 FLOP here,
 * with which Algorithm 1 never fuses) is measured again, not reused. */
#define STUDY_VERSION 2

void lab_default_profile_path(char *buf, size_t size)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(buf, size, "%s/paleozoic/target-default-v%d-%ldcpu.json", xdg, STUDY_VERSION, ncpu);
    else if (home && home[0])
        snprintf(buf, size, "%s/.cache/paleozoic/target-default-v%d-%ldcpu.json", home, STUDY_VERSION, ncpu);
    else
        snprintf(buf, size, "/tmp/paleozoic-cache-%ld/target-default-v%d-%ldcpu.json", (long)getuid(), STUDY_VERSION,
                 ncpu);
}

static char *read_text(const char *path, pz_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        pz_fail(err, PZ_ERR_INPUT, "%s: cannot open the target profile: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *s = pz_xmalloc(cap);
    for (size_t k; (k = fread(s + len, 1, cap - len - 1, f)) > 0;) {
        len += k;
        if (len + 1 == cap) s = pz_xrealloc(s, cap *= 2);
        if (len > (64u << 20)) break;   /* no profile is this large */
    }
    fclose(f);
    s[len] = 0;
    return s;
}

/* The finite number at key `name` of the top-level object. */
static int number(const json_value *root, const char *path, const char *name, double *out,
                  pz_err *err)
{
    const json_value *v = json_get(root, name);
    if (!v) {
        pz_fail(err, PZ_ERR_INPUT, "%s: the target profile has no \"%s\"", path, name);
        return -1;
    }
    if (v->type != JSON_NUMBER) {
        pz_fail(err, PZ_ERR_INPUT, "%s:%d:%d: \"%s\" must be a number, not %s", path, v->line,
                v->col, name, json_type_name(v->type));
        return -1;
    }
    *out = v->num;
    return 0;
}

/* Reads the profile at path into mc; *rec gets its machine record and
 * *has_rec whether it has one (older studies recorded none). */
static pz_status parse_profile(const char *path, pz_machine *mc, lab_machine *rec, int *has_rec,
                               pz_err *err)
{
    char *text = read_text(path, err);
    if (!text) return err->code;
    json_value *root = NULL;
    pz_status st = json_parse(text, strlen(text), path, &root, err);
    free(text);
    if (st) return st;
    double v[5], cores;
    static const char *KEYS[] = {"opcount_critical", "mp_alpha", "mp_beta", "mp_gamma", "peak_gflops"};
    int bad = root->type != JSON_OBJECT || !json_get(root, "paleozoic_target");
    if (bad) pz_fail(err, PZ_ERR_INPUT, "%s: not a Paleozoic target profile (no \"paleozoic_target\" key; "
                     "write one with `paleozoic characterize -o FILE`)", path);
    for (int i = 0; i < 5 && !bad; i++) bad = number(root, path, KEYS[i], &v[i], err);
    if (!bad) bad = number(root, path, "cores", &cores, err);
    if (!bad && !(v[0] > 0)) {
        pz_fail(err, PZ_ERR_INPUT, "%s: \"opcount_critical\" must be positive (got %g)", path, v[0]);
        bad = 1;
    }
    *has_rec = !bad && lab_machine_parse(root, rec) == 0;
    json_free(root);
    if (bad) return err->code;
    mc->opcount_critical = v[0];
    mc->mp_alpha = v[1];
    mc->mp_beta = v[2];
    mc->mp_gamma = v[3];
    mc->peak_gflops = v[4];
    return PZ_OK;
}

/* A profile is used only on the machine it describes. A given file that
 * records another machine is refused, naming the difference; one that
 * records none (written before the record existed) is used as given, with a
 * warning. Returns 0 to use it. */
static pz_status check_given(const char *path, const lab_machine *rec, int has_rec, pz_err *err)
{
    lab_machine me;
    char why[512];
    lab_machine_read(&me);
    if (!has_rec) {
        static int warned;   /* once per process: the CLI checks the file before the strategy reads it */
        if (warned++) return PZ_OK;
        fprintf(stderr, "paleozoic: warning: %s records no machine (an older study): used as given; "
                "`paleozoic characterize --check --target %s` tells whether it describes this one\n", path, path);
        return PZ_OK;
    }
    if (lab_machine_differs(&me, rec, why, sizeof why))
        return pz_fail(err, PZ_ERR_INPUT, "%s: the profile was measured on another machine (%s); measure this "
                       "one with `paleozoic characterize -o FILE`", path, why);
    return PZ_OK;
}

static pz_status load_given(const char *path, pz_machine *mc, pz_err *err)
{
    lab_machine rec;
    int has_rec = 0;
    if (parse_profile(path, mc, &rec, &has_rec, err)) return err->code;
    return check_given(path, &rec, has_rec, err);
}

/* The cached default profile, when there is one and it describes this
 * machine: 0 and mc filled; else -1 and why says what is wrong with it
 * ("" when there is none). */
static int load_default(const char *def, pz_machine *mc, char *why, size_t n)
{
    lab_machine rec, me;
    int has_rec = 0;
    pz_err quiet = {0};
    why[0] = 0;
    if (access(def, R_OK)) return -1;
    if (parse_profile(def, mc, &rec, &has_rec, &quiet)) {
        snprintf(why, n, "%.400s", quiet.msg);
        return -1;
    }
    lab_machine_read(&me);
    if (!has_rec) {
        snprintf(why, n, "it records no machine (an older study)");
        return -1;
    }
    return lab_machine_differs(&me, &rec, why, n) ? -1 : 0;
}

pz_status lab_profile_load(const char *path, int cores, pz_machine *mc, pz_err *err)
{
    memset(mc, 0, sizeof *mc);
    if (path) {
        if (load_given(path, mc, err)) return err->code;
    } else {
        char def[4096], why[512];
        lab_default_profile_path(def, sizeof def);
        if (load_default(def, mc, why, sizeof why)) {
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            if (why[0])
                fprintf(stderr, "paleozoic: the cached profile %s does not describe this machine: %s\n", def, why);
            int ncores = ncpu > 0 ? (int)ncpu : 1;
            fprintf(stderr, "paleozoic: no --target profile given and none cached: measuring this "
                    "machine for about %.0f s (cached in %s; `paleozoic characterize -o FILE` makes "
                    "a full profile)\n", lab_study_seconds(0, ncores), def);
            memset(mc, 0, sizeof *mc);
            if (lab_characterize(0, ncores, def, 0, 1, 0, mc, err)) {
                if (mc->opcount_critical <= 0) return err->code;
                /* measured, but not cached (a busy machine, or the cache
                 * could not be written): this run uses it */
                fprintf(stderr, "paleozoic: warning: %s; this run uses the study, nothing is cached\n", err->msg);
                memset(err, 0, sizeof *err);
            }
        }
    }
    mc->cores = cores;
    return PZ_OK;
}

pz_status lab_profile_load_cached(const char *path, int cores, pz_machine *mc, pz_err *err)
{
    memset(mc, 0, sizeof *mc);
    if (path) {
        if (load_given(path, mc, err)) return err->code;
    } else {
        char def[4096], why[512];
        lab_default_profile_path(def, sizeof def);
        if (load_default(def, mc, why, sizeof why))
            return pz_fail(err, PZ_ERR_INPUT, "no profile of this machine cached in %s%s%s", def,
                           why[0] ? ": " : "", why);
    }
    mc->cores = cores;
    return PZ_OK;
}

/* The number at key of object o, NAN when absent. */
static double num_at(const json_value *o, const char *key)
{
    const json_value *v = o && o->type == JSON_OBJECT ? json_get(o, key) : NULL;
    return v && v->type == JSON_NUMBER ? v->num : NAN;
}

/* A reading now against the recorded one, r = now / recorded, `slow` when
 * a larger r is slower: 1 when it is off by more than tol (why gets what,
 * with r), 0 otherwise; off in the direction a busy machine reads (slower)
 * while it is busy: 0, and *unsure set. */
static int off(double r, double tol, int slow, int busy, int *unsure, char *why, size_t n, const char *what)
{
    if (fabs(log(r)) <= log1p(tol)) return 0;
    if (busy && (slow ? r > 1 : r < 1)) {
        *unsure = 1;
        return 0;
    }
    snprintf(why, n, "%s %.2fx the profile's", what, r);
    return 1;
}

/* Re-times the first layer of `kind` in the profile's "layers" at MP 1 and
 * at the study's largest MP: 1 when one is off its recorded time (off()),
 * 0 otherwise, -1 on a failure (err). */
static int retime_layer(const json_value *root, const char *kind, double tol, int busy, int *unsure, char *why,
                        size_t n, pz_err *err)
{
    const json_value *ls = json_get(root, "layers"), *mps = json_get(root, "mp_list");
    if (!ls || ls->type != JSON_ARRAY || !mps || mps->type != JSON_ARRAY || !mps->n) return 0;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 0; i < ls->n; i++) {
        const json_value *l = &ls->items[i], *k = json_get(l, "kind"), *ms = json_get(l, "ms");
        if (!k || k->type != JSON_STRING || strcmp(k->str, kind) || !ms || ms->type != JSON_ARRAY ||
            ms->n != mps->n)
            continue;
        int c_in = (int)num_at(l, "c_in"), c_out = (int)num_at(l, "c_out"), hw = (int)num_at(l, "hw"),
            kk = (int)num_at(l, "kernel");
        if (c_in < 1 || c_out < 1 || hw < 1 || kk < 1 || c_in > 4096 || c_out > 4096 || hw > 1024 || kk > 7) return 0;
        int js[2] = {0, mps->n - 1};
        for (int a = 0; a < (js[1] ? 2 : 1); a++) {
            const json_value *mp = &mps->items[js[a]], *rec = &ms->items[js[a]];
            if (mp->type != JSON_NUMBER || rec->type != JSON_NUMBER || mp->num < 1 || mp->num > ncpu) continue;
            char what[128];
            snprintf(what, sizeof what, "%s {%d, %d, %dx%d} at MP %d takes", kind, c_in, c_out, hw, hw, (int)mp->num);
            /* stale only when it reproduces: a reading off the record is
             * taken again, up to three in all, and one that agrees clears it
             * (one timing on a shared host moves by more than the study's) */
            int is_off = 1;
            for (int t = 0; t < 3 && is_off; t++) {
                double now = synth_conv_ms(c_in, c_out, hw, kk, !strcmp(kind, "depthwise"), 1, 1, (int)mp->num,
                                           0.1, err);
                if (now < 0) return -1;
                double r = now / rec->num;
                printf("check: %s {%d, %d, %dx%d, %dx%d} MP %d: %.4g ms now, %.4g ms in the profile (%.2fx)\n",
                       kind, c_in, c_out, hw, hw, kk, kk, (int)mp->num, now, rec->num, r);
                is_off = off(r, tol, 1, busy, unsure, why, n, what);
            }
            if (is_off) return 1;
        }
        return 0;
    }
    return 0;
}

/* The rule for --check: the record must name this machine, and the FMA peak
 * and two layers re-timed now must agree with the recorded ones within the
 * study's own tolerance, widened to three times its timings' 90th-percentile
 * spread (a layer re-timed once moves as much as the study's timings did). */
int lab_profile_check(const char *path, char *why, size_t n, pz_err *err)
{
    pz_machine mc;
    lab_machine rec, me;
    int has_rec = 0;
    why[0] = 0;
    if (parse_profile(path, &mc, &rec, &has_rec, err)) return -1;
    lab_machine_read(&me);
    if (!has_rec) {
        snprintf(why, n, "it records no machine (an older study)");
        return 1;
    }
    if (lab_machine_differs(&me, &rec, why, n)) return 1;
    char *text = read_text(path, err);
    json_value *root = NULL;
    if (!text || json_parse(text, strlen(text), path, &root, err)) {
        free(text);
        return -1;
    }
    free(text);
    const json_value *q = json_get(root, "quality");
    double peak = num_at(q, "peak_before_gflops"), tol = num_at(q, "tolerance"),
           p90 = num_at(q, "timing_spread_p90"), cores = num_at(root, "cores");
    int res = 0;
    if (!(peak > 0) || !(tol > 0)) {
        snprintf(why, n, "it records no measurement quality (an older study)");
        res = 1;
        goto out;
    }
    lab_probe p;
    lab_window win;   /* what else ran while the probe did (quality.c's window) */
    lab_window_begin(&win, cores >= 1 && cores <= 4096 ? (int)cores : 1);
    lab_probe_run(cores >= 1 && cores <= 4096 ? (int)cores : 1, &p);
    lab_window_end(&win);
    printf("check: FMA peak %.1f GFLOP/s per core now, %.1f in the profile; core share now %.2f; "
           "other processes %.2f cores\n", p.peak_gflops, peak, p.share, win.others_cores);
    /* a busy machine reads slow: then only a reading faster than the
     * profile's tells it is stale, and a slower one leaves the check unsure.
     * Busy: a probe thread got less than its core, or other processes used
     * half a core or more beside it (on cores that share a physical core,
     * the caches or the clock with the probe's, they slow it without
     * taking its time) */
    int busy = p.share < 1 - tol || win.others_cores >= 0.5, unsure = 0;
    if (busy)
        printf("check: the machine is busy now (a probe thread got %.0f%% of a core, other processes "
               "%.2f cores): a slow reading below proves nothing\n", 100 * p.share, win.others_cores);
    /* every reading is taken and every reason given: on a shared host the
     * peak can be off by noise while a layer is off for real */
    char w[3][256] = {"", "", ""};
    double lt = fmax(tol, 3 * (isfinite(p90) ? p90 : 0));
    int r0 = off(p.peak_gflops / peak, tol, 0, busy, &unsure, w[0], sizeof w[0], "the FMA peak per core is");
    for (int t = 1; t < 3 && r0; t++) { /* stale only when it reproduces */
        lab_probe_run(cores >= 1 && cores <= 4096 ? (int)cores : 1, &p);
        printf("check: FMA peak %.1f GFLOP/s per core again; core share %.2f\n", p.peak_gflops, p.share);
        r0 = off(p.peak_gflops / peak, tol, 0, busy, &unsure, w[0], sizeof w[0], "the FMA peak per core is");
    }
    int r1 = retime_layer(root, "conv", lt, busy, &unsure, w[1], sizeof w[1], err);
    int r2 = r1 < 0 ? -1 : retime_layer(root, "depthwise", lt, busy, &unsure, w[2], sizeof w[2], err);
    if (r1 < 0 || r2 < 0) {
        res = -1;
        goto out;
    }
    res = r0 || r1 || r2;
    for (int k = 0, at = 0; k < 3 && res; k++)
        if (w[k][0] && at < (int)n)
            at += snprintf(why + at, n - (size_t)at, "%s%s", at ? "; " : "", w[k]);
    if (!res && unsure) {
        snprintf(why, n, "the machine is busy now (a probe thread got %.0f%% of a core, other processes "
                 "%.2f cores) and reads slower than the profile", 100 * p.share, win.others_cores);
        res = 2;
    }
out:
    json_free(root);
    return res;
}
