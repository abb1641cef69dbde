/* profile_tables.c - the profile's measured layers and fused chains (see
 * profile_tables.h), read from the JSON that characterize writes:
 *   "mp_list": [1, 2, ...],
 *   "layers": [{"kind": "conv"|"depthwise"|"fc", "c_in", "c_out", "kernel"
 *               (conv), "k", "n" (fc), "ops", "ms": [per MP, null: not timed]}],
 *   "fusion": [{"chain": "conv"|"inverted_residual", "c", "hw", "block",
 *               "mp", "gain" (over the same chain in blocks of 1 at that MP)}] */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "../util/json.h"
#include "../util/util.h"
#include "lab.h"
#include "profile_tables.h"

static double num_at(const json_value *o, const char *key)
{
    const json_value *v = json_get(o, key);
    return v && v->type == JSON_NUMBER ? v->num : NAN;
}

static int read_layers(const json_value *root, lab_profile_tables *t)
{
    const json_value *mpl = json_get(root, "mp_list"), *ls = json_get(root, "layers");
    if (!mpl || mpl->type != JSON_ARRAY || !ls || ls->type != JSON_ARRAY) return 0;
    for (int j = 0; j < mpl->n && t->n_mp < LAB_TABLE_MAX_MP; j++) {
        const json_value *v = &mpl->items[j];
        if (v->type != JSON_NUMBER || v->num < 1 || v->num > 1 << 20) return 0;
        t->mp[t->n_mp++] = (int)v->num;
    }
    t->pts = pz_xcalloc((size_t)ls->n + 1, sizeof *t->pts);
    for (int i = 0; i < ls->n; i++) {
        const json_value *l = &ls->items[i], *kind = json_get(l, "kind"), *ms = json_get(l, "ms");
        if (!kind || kind->type != JSON_STRING || !ms || ms->type != JSON_ARRAY) continue;
        lab_layer_point p = {0};
        double c;
        if (!strcmp(kind->str, "fc")) {
            p.kind = LAB_LAYER_FC;
            c = sqrt(num_at(l, "k") * num_at(l, "n"));
        } else {
            p.kind = !strcmp(kind->str, "depthwise") ? LAB_LAYER_DEPTHWISE : LAB_LAYER_CONV;
            if (strcmp(kind->str, "depthwise") && strcmp(kind->str, "conv")) continue;
            c = sqrt(num_at(l, "c_in") * num_at(l, "c_out"));
            double k = num_at(l, "kernel");
            p.kernel = isfinite(k) ? (int)k : 0;
        }
        double ops = num_at(l, "ops");
        if (!(c > 0) || !(ops > 0)) continue;
        p.log2_c = log2(c);
        p.log2_ops = log2(ops);
        int timed = 0;
        for (int j = 0; j < LAB_TABLE_MAX_MP; j++) {
            p.ms[j] = NAN;
            if (j < t->n_mp && j < ms->n && ms->items[j].type == JSON_NUMBER && ms->items[j].num > 0)
                p.ms[j] = ms->items[j].num, timed++;
        }
        if (timed) t->pts[t->n_pts++] = p;
    }
    return 0;
}

/* Whether fusion entry q is a fused block (more than one layer) of chain
 * kind `name` with a gain, at MP mp (0: any). */
static int fused_entry(const json_value *q, const char *name, int mp)
{
    const json_value *ch = json_get(q, "chain");
    return ch && ch->type == JSON_STRING && !strcmp(ch->str, name) && num_at(q, "block") > 1 &&
           num_at(q, "gain") > 0 && (mp == 0 || num_at(q, "mp") == mp);
}

/* Per chain kind, at the largest MP any chain of that kind was fused at:
 * each chain's (c, hw) best gain over its blocks of more than one layer,
 * then the median over the chains. */
static void read_fusion(const json_value *root, lab_profile_tables *t)
{
    const json_value *fs = json_get(root, "fusion");
    if (!fs || fs->type != JSON_ARRAY) return;
    double *key = pz_xmalloc(((size_t)fs->n + 1) * 2 * sizeof *key), *best = pz_xmalloc(((size_t)fs->n + 1) * sizeof *best);
    for (int k = 0; k < LAB_N_CHAIN_KINDS; k++) {
        static const char *NAME[LAB_N_CHAIN_KINDS] = {"conv", "inverted_residual"};
        int top = 0, n = 0;
        for (int i = 0; i < fs->n; i++)
            if (fused_entry(&fs->items[i], NAME[k], 0) && num_at(&fs->items[i], "mp") > top)
                top = (int)num_at(&fs->items[i], "mp");
        for (int i = 0; i < fs->n && top > 0; i++) {
            const json_value *q = &fs->items[i];
            if (!fused_entry(q, NAME[k], top)) continue;
            double c = num_at(q, "c"), hw = num_at(q, "hw");
            int j = 0;
            while (j < n && !(key[2 * j] == c && key[2 * j + 1] == hw)) j++;
            if (j == n) key[2 * n] = c, key[2 * n + 1] = hw, best[n++] = num_at(q, "gain");
            else best[j] = fmax(best[j], num_at(q, "gain"));
        }
        t->n_chains[k] = n;
        t->gain[k] = n ? util_median(best, n) : NAN;
    }
    free(key);
    free(best);
}

pz_status lab_profile_tables_load(const char *path, lab_profile_tables *t, pz_err *err)
{
    memset(t, 0, sizeof *t);
    for (int k = 0; k < LAB_N_CHAIN_KINDS; k++) t->gain[k] = NAN;
    char def[4096];
    if (!path) {
        lab_default_profile_path(def, sizeof def);
        path = def;
    }
    FILE *f = fopen(path, "rb");
    if (!f) return pz_fail(err, PZ_ERR_INPUT, "%s: cannot open the target profile: %s", path, strerror(errno));
    size_t cap = 1 << 16, len = 0;
    char *s = pz_xmalloc(cap);
    for (size_t k; (k = fread(s + len, 1, cap - len, f)) > 0;) {
        len += k;
        if (len == cap) s = pz_xrealloc(s, cap *= 2);
        if (len > (64u << 20)) break;   /* no profile is this large */
    }
    fclose(f);
    json_value *root = NULL;
    pz_status st = json_parse(s, len, path, &root, err);
    free(s);
    if (st) return st;
    if (root->type == JSON_OBJECT) {
        read_layers(root, t);
        read_fusion(root, t);
    }
    json_free(root);
    return PZ_OK;
}

void lab_profile_tables_free(lab_profile_tables *t)
{
    free(t->pts);
    t->pts = NULL;
    t->n_pts = 0;
}

int lab_fusion_pays(const lab_profile_tables *t, lab_chain_kind k)
{
    return t && t->n_chains[k] > 0 && t->gain[k] >= LAB_FUSE_GAIN_MIN;
}
