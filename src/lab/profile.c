/* profile.c - the target profile: what the strategies know of this machine
 * (pz_machine), read from the JSON that `paleozoic characterize` writes.
 * With no --target, the default profile comes from a cache file, made on
 * first use by a ~10-second measurement (characterize level 0). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "characterize.h"
#include "../util/json.h"
#include "lab.h"

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

static pz_status parse_profile(const char *path, pz_machine *mc, pz_err *err)
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
    json_free(root);
    if (bad) return err->code;
    mc->opcount_critical = v[0];
    mc->mp_alpha = v[1];
    mc->mp_beta = v[2];
    mc->mp_gamma = v[3];
    mc->peak_gflops = v[4];
    return PZ_OK;
}

pz_status lab_profile_load(const char *path, int cores, pz_machine *mc, pz_err *err)
{
    memset(mc, 0, sizeof *mc);
    if (path) {
        if (parse_profile(path, mc, err)) return err->code;
    } else {
        char def[4096];
        lab_default_profile_path(def, sizeof def);
        pz_err quiet = {0};
        if (access(def, R_OK) || parse_profile(def, mc, &quiet)) {
            long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
            fprintf(stderr, "paleozoic: no --target profile given and none cached: measuring this "
                    "machine for about 10 s (cached in %s; `paleozoic characterize -o FILE` makes "
                    "a full profile)\n", def);
            if (lab_characterize(0, ncpu > 0 ? (int)ncpu : 1, def, 0, 1, mc, err)) {
                if (mc->opcount_critical <= 0) return err->code;
                /* measured, but the cache could not be written: go on without it */
                fprintf(stderr, "paleozoic: warning: %s\n", err->msg);
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
    char def[4096];
    if (!path) {
        lab_default_profile_path(def, sizeof def);
        if (access(def, R_OK))
            return pz_fail(err, PZ_ERR_INPUT, "no profile cached in %s", def);
        path = def;
    }
    if (parse_profile(path, mc, err)) return err->code;
    mc->cores = cores;
    return PZ_OK;
}
