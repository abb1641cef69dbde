/* text.h - a growing text buffer and the C-literal helpers the emitters share. */
#ifndef PZ_GEN_TEXT_H
#define PZ_GEN_TEXT_H

#include <stddef.h>

#include "../ops/op.h"

typedef struct {
    char *s;
    size_t n, cap;
} gen_text;

void gt_printf(gen_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gt_puts(gen_text *t, const char *s);
/* s as a C string literal, quotes included (escapes \\ \" and non-printables). */
void gt_cstr(gen_text *t, const char *s);
/* s inside a C comment: "*" "/" cannot close it, control bytes become '?'. */
void gt_comment(gen_text *t, const char *s);
void gt_free(gen_text *t);

/* A float as a C literal that reads back bit-exactly ("0.5f", "-INFINITY"). */
void gt_float(gen_text *t, float v);
/* A double as a C literal that reads back bit-exactly. */
void gt_double(gen_text *t, double v);
/* "{1, 64, 56, 56}" without braces: the dims joined by ", ". */
void gt_dims(gen_text *t, const int64_t *dims, int rank);
/* The sum of coef[S] times the product of the D[k] with bit k in S, k < n,
 * as C ("192 * D[0]", "D[1] - 2"). */
void gt_open_expr(gen_text *t, const int64_t *coef, int n);
/* PZ_F32, PZ_I64, ... for an element type. */
const char *gen_dtype_macro(int dtype);

/* The params of a lowered layer as designated initializers:
 * ".nsp = 2, .group = 1, .kernel = {3, 3}, ...". Fields equal to zero are
 * left out (a compound literal zeroes them); sep goes between fields
 * (", " on one line, or ";\n    p.field = " in the raw style). With open
 * dims (plan.h's gen_open), the fields of layer li that change with them
 * are printed as expressions of D[k]. */
struct gen_open;
void gen_params_fields(gen_text *t, const op_lowered *low, const struct gen_open *open, int li);
/* The same params as one assignment per field: "<var>.nsp = 2;\n" ... with
 * `indent` before each line (the raw emission's explicit configuration). */
void gen_params_assign(gen_text *t, const op_lowered *low, const char *var, const char *indent);

/* Lines of C text: all non-blank lines, and code lines (non-blank lines that
 * are not only a comment). */
void gen_count_lines(const char *s, int *total, int *code);

#endif
