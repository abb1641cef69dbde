/* einsum.c - Einsum (opset 12): the equation (e.g. "bij,bjk->bik") parsed
 * at compile time into a label per input axis; labels of the output keep
 * their axes, the others are summed over, a label repeated in one input
 * takes its diagonal. "..." stands for the leading axes left over (aligned
 * on the right across the inputs; their sizes must agree: a broadcast
 * ellipsis is refused). Without "->" the output is the ellipsis then the
 * labels seen once, alphabetically (as numpy).
 *   X0..Xn (n <= 4, one numeric type) -> Y (that type)
 * MACs: the loop nest's products (inputs - 1 per term). A (batched) matrix
 * product in MatMul's layout ("bij,bjk->bik", "ij,jk") runs as MATMUL, its
 * fast kernels; anything else as EINSUM (rt/ops/einsum.c), a reference
 * loop nest. */
#include <string.h>

#include "reduce.h"

#define N_LETTERS 52   /* a-z, A-Z; the ellipsis' axes come after */
static const char LETTERS[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

typedef struct {
    pz_einsum_params rt;
    int64_t size[PZ_EINSUM_MAX_LABELS];
    int64_t terms;                    /* products the loop nest does */
    int as_matmul;                    /* the equation is a (batched) matrix product */
} einsum_params;

static int letter(char c)
{
    if (c >= 'a' && c <= 'z') return c - 'a';
    if (c >= 'A' && c <= 'Z') return 26 + c - 'A';
    return -1;
}

/* One term of the equation: its letters (ellipsis as -1) into sym, count. */
static pz_status parse_term(const ir_node *n, const char *s, size_t len, int *sym, int *count,
                            int *has_ell, pz_err *err)
{
    int k = 0;
    *has_ell = 0;
    for (size_t i = 0; i < len; i++) {
        if (k >= PZ_MAX_RANK + 1)
            return op_err_attr(err, n, "equation", "a term has more than %d labels",
                               PZ_MAX_RANK);
        if (s[i] == '.') {
            if (i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.' || *has_ell)
                return op_err_attr(err, n, "equation", "has a '.' that is not one \"...\" "
                                   "per term");
            *has_ell = 1;
            sym[k++] = -1;
            i += 2;
        } else if (letter(s[i]) >= 0) {
            sym[k++] = letter(s[i]);
        } else {
            return op_err_attr(err, n, "equation", "has the character '%c'", s[i]);
        }
    }
    *count = k;
    return PZ_OK;
}

static pz_status einsum_parse(const ir_graph *g, const ir_node *n, void *params, pz_err *err)
{
    const char *eq;
    if (op_attr_string(n, "equation", NULL, &eq, err)) return err->code;
    if (!eq) return op_err_attr(err, n, "equation", "is required");
    if (n->n_in > PZ_EINSUM_MAX_IN)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Einsum): %d inputs, at most %d are "
                       "supported", n->name, n->n_in, PZ_EINSUM_MAX_IN);
    return PZ_OK;
}

/* 1 when the labels say A [b..., i, j] times B [b..., j, k] or B [j, k]
 * -> Y [b..., i, k], j the one summed label: MatMul's product, in its
 * layout, so the MATMUL kind (its fast kernels) computes it. */
static int is_matmul(const pz_einsum_params *r)
{
    const int O = r->out_rank, j = O;
    if (r->n_in != 2 || O < 2 || r->n_labels != O + 1 || r->in_rank[0] != O) return 0;
    const int *a = r->in_label, *b = r->in_label + PZ_MAX_RANK, rb = r->in_rank[1];
    for (int q = 0; q < O - 1; q++)
        if (a[q] != q) return 0;
    if (a[O - 1] != j) return 0;
    if (rb != O && rb != 2) return 0;
    for (int q = 0; q < rb - 2; q++)
        if (b[q] != q) return 0;
    return b[rb - 2] == j && b[rb - 1] == O - 1;
}

/* The labels of the equation for the inputs' ranks: fills p->rt and p->size. */
static pz_status einsum_plan(const ir_graph *g, const ir_node *n, einsum_params *p, pz_err *err)
{
    const char *eq;
    if (op_attr_string(n, "equation", NULL, &eq, err)) return err->code;
    char s[512];
    size_t m = 0;
    for (const char *c = eq; *c; c++) {
        if (*c == ' ') continue;
        if (m + 1 >= sizeof s)
            return op_err_attr(err, n, "equation", "is longer than %zu characters", sizeof s - 1);
        s[m++] = *c;
    }
    s[m] = 0;
    const char *arrow = strstr(s, "->");
    const size_t lhs_len = arrow ? (size_t)(arrow - s) : m;
    /* symbols: letter 0..51, ellipsis axis e: N_LETTERS + e (from the left
     * of the longest ellipsis) */
    int sym[PZ_EINSUM_MAX_IN][PZ_MAX_RANK], count[PZ_EINSUM_MAX_IN], ell_rank = 0;
    int term = 0;
    size_t start = 0;
    for (size_t i = 0; i <= lhs_len; i++) {
        if (i < lhs_len && s[i] != ',') continue;
        if (term >= n->n_in)
            return op_err_attr(err, n, "equation", "\"%s\" has more terms than the %d inputs", eq,
                               n->n_in);
        int raw[PZ_MAX_RANK + 1], k, ell;
        if (parse_term(n, s + start, i - start, raw, &k, &ell, err)) return err->code;
        const ir_tensor *x = op_in(g, n, term);
        if (!x) return op_err(err, n, "input %d is missing", term);
        const int letters = k - ell, er = x->rank - letters;
        if (er < 0 || (!ell && er != 0))
            return op_err_attr(err, n, "equation", "term %d has %d labels, input %d rank %d",
                               term, letters, term, x->rank);
        if (er > ell_rank) ell_rank = er;
        int a = 0;
        for (int j = 0; j < k; j++) {
            if (raw[j] >= 0) {
                sym[term][a++] = raw[j];
            } else {
                for (int e = 0; e < er; e++) sym[term][a++] = -100 - (er - e);   /* from the right */
            }
        }
        count[term] = a;
        term++;
        start = i + 1;
    }
    if (term != n->n_in)
        return op_err_attr(err, n, "equation", "\"%s\" has %d terms for %d inputs", eq, term,
                           n->n_in);
    /* ellipsis axes: -100 - r (r-th from the right) -> N_LETTERS + ell_rank - r */
    int seen[N_LETTERS + PZ_MAX_RANK] = {0};
    for (int i = 0; i < term; i++)
        for (int a = 0; a < count[i]; a++) {
            if (sym[i][a] <= -100) sym[i][a] = N_LETTERS + ell_rank + (sym[i][a] + 100);
            seen[sym[i][a]]++;
        }
    /* the output's symbols */
    int out[PZ_MAX_RANK + 1], no = 0;
    if (arrow) {
        int raw[PZ_MAX_RANK + 1], k, ell;
        if (parse_term(n, arrow + 2, strlen(arrow + 2), raw, &k, &ell, err)) return err->code;
        for (int j = 0; j < k; j++) {
            if (raw[j] >= 0) {
                if (!seen[raw[j]])
                    return op_err_attr(err, n, "equation", "output label '%c' is in no input",
                                       LETTERS[raw[j]]);
                for (int q = 0; q < no; q++)
                    if (out[q] == raw[j])
                        return op_err_attr(err, n, "equation", "an output label repeats");
                if (no >= PZ_MAX_RANK) goto too_many;
                out[no++] = raw[j];
            } else {
                for (int e = 0; e < ell_rank; e++) {
                    if (no >= PZ_MAX_RANK) goto too_many;
                    out[no++] = N_LETTERS + e;
                }
            }
        }
    } else {
        for (int e = 0; e < ell_rank; e++) out[no++] = N_LETTERS + e;
        for (int c = 0; c < N_LETTERS; c++)
            if (seen[c] == 1) {
                if (no >= PZ_MAX_RANK) goto too_many;
                out[no++] = c;
            }
    }
    /* numbering: the output's symbols, then the summed ones as met */
    int num[N_LETTERS + PZ_MAX_RANK];
    for (int c = 0; c < N_LETTERS + PZ_MAX_RANK; c++) num[c] = -1;
    int nl = 0;
    for (int q = 0; q < no; q++) num[out[q]] = nl++;
    for (int i = 0; i < term; i++)
        for (int a = 0; a < count[i]; a++)
            if (num[sym[i][a]] < 0) {
                if (nl >= PZ_EINSUM_MAX_LABELS)
                    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Einsum): attribute "
                                   "'equation': more than %d distinct labels are not supported",
                                   n->name, PZ_EINSUM_MAX_LABELS);
                num[sym[i][a]] = nl++;
            }
    memset(&p->rt, 0, sizeof p->rt);
    p->rt.n_in = term;
    p->rt.n_labels = nl;
    p->rt.out_rank = no;
    for (int l = 0; l < nl; l++) p->size[l] = -1;
    for (int i = 0; i < term; i++) {
        const ir_tensor *x = op_in(g, n, i);
        p->rt.in_rank[i] = count[i];
        for (int a = 0; a < count[i]; a++) {
            const int l = num[sym[i][a]];
            p->rt.in_label[i * PZ_MAX_RANK + a] = l;
            if (p->size[l] >= 0 && p->size[l] != x->dims[a]) {
                if (sym[i][a] >= N_LETTERS)
                    return pz_fail(err, PZ_ERR_UNSUPPORTED, "node \"%s\" (Einsum): the ellipsis "
                                   "axes have sizes %lld and %lld: broadcasting them is not "
                                   "supported", n->name, (long long)p->size[l],
                                   (long long)x->dims[a]);
                return op_err_attr(err, n, "equation", "a label has sizes %lld and %lld in the "
                                   "inputs", (long long)p->size[l], (long long)x->dims[a]);
            }
            p->size[l] = x->dims[a];
        }
    }
    p->terms = 1;
    for (int l = 0; l < nl; l++) p->terms *= p->size[l];
    p->as_matmul = is_matmul(&p->rt);
    return PZ_OK;
too_many:
    return op_err_attr(err, n, "equation", "the output has more than %d axes", PZ_MAX_RANK);
}

static pz_status einsum_infer(ir_graph *g, ir_node *n, pz_err *err)
{
    einsum_params *p = n->params;
    const ir_tensor *x0 = op_in(g, n, 0);
    for (int i = 0; i < n->n_in; i++) {
        const ir_tensor *x = op_in(g, n, i);
        if (!x) return op_err(err, n, "input %d is missing", i);
        if (op_want_numeric(n, x, "Inputs", 1, 0, err)) return err->code;
        if (x->dtype != x0->dtype)
            return op_err(err, n, "input %d has type %s, input 0 %s", i, ir_dtype_name(x->dtype),
                          ir_dtype_name(x0->dtype));
    }
    if (einsum_plan(g, n, p, err)) return err->code;
    int64_t dims[IR_MAX_RANK];
    for (int a = 0; a < p->rt.out_rank; a++) dims[a] = p->size[a];
    op_set_out(g, n, 0, x0->dtype, p->rt.out_rank, dims);
    return PZ_OK;
}

static void einsum_cost(const ir_graph *g, const ir_node *n, ir_cost *c)
{
    const einsum_params *p = n->params;
    c->macs = p->terms * (p->rt.n_in > 1 ? p->rt.n_in - 1 : 1);
}

static pz_status einsum_lower(const ir_graph *g, const ir_node *n, op_lowered *out, pz_err *err)
{
    const einsum_params *p = n->params;
    if (p->as_matmul) {
        pz_matmul_params mp = {.act = {.kind = PZ_ACT_NONE}};
        op_lowered_init(out, n, PZ_OP_MATMUL, &mp, sizeof mp);
        return PZ_OK;
    }
    op_lowered_init(out, n, PZ_OP_EINSUM, &p->rt, sizeof p->rt);
    return PZ_OK;
}

const op_def op_einsum = {
    .name = "Einsum",
    .min_in = 1, .max_in = 16, .min_out = 1, .max_out = 1,
    .params_size = sizeof(einsum_params),
    .parse = einsum_parse,
    .infer = einsum_infer,
    .cost = einsum_cost,
    .lower = einsum_lower,
};
