/* check_values.c - the values a caller read against a compiled model's
 * tables (pz_io_check_values, behind every NAME_check_values). */
#include <stdio.h>

#include "pz_io.h"

int pz_io_check_values(const pz_io_value *in, int n, const pz_io_value_desc *vals, int n_vals,
                       const pz_io_desc *ios, const int (*open)[PZ_MAX_RANK], const char *model,
                       char *err, size_t errsize)
{
    if (n != n_vals) {
        snprintf(err, errsize, "%d input values given, the model takes %d", n, n_vals);
        return 2;
    }
    for (int v = 0; v < n; v++) {
        const pz_io_value_desc *val = &vals[v];
        const pz_io_value *x = &in[v];
        if (x->kind != val->kind || x->n != val->n || (val->n && x->inner != val->inner)) {
            if (val->kind == PZ_IO_SEQUENCE && x->kind == PZ_IO_SEQUENCE)
                snprintf(err, errsize, "input \"%s\": a sequence of %d tensors, this library takes %d "
                         "(%s_run: the build's length; a program `paleozoic build` makes plans "
                         "another length at run time)", val->name, x->n, val->n, model);
            else
                snprintf(err, errsize, "input \"%s\": kind %d holding %d tensors, this library takes "
                         "kind %d holding %d (pz_io.h's PZ_IO_*)", val->name, x->kind, x->n,
                         val->kind, val->n);
            return 2;
        }
        for (int k = 0; k < x->n; k++) {
            const pz_io_desc *io = &ios[val->first + k];
            const pz_io_tensor *t = &x->t[k];
            int ok = t->dtype == io->dtype && t->rank == io->rank;
            for (int d = 0; ok && d < io->rank; d++)   /* an open dim: any (create_at's value) */
                ok = t->dims[d] == io->dims[d] || (open && open[val->first + k][d] > 0);
            if (!ok) {
                snprintf(err, errsize, "input \"%s\" tensor %d: not the element type and shape of "
                         "%s (%s_inputs)", val->name, k, io->name, model);
                return 2;
            }
        }
    }
    return 0;
}
