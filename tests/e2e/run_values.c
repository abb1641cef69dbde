/* run_values.c - NAME_run_values of a `build --lib` of a model with a
 * sequence input (tests/parts/40-sequences.sh): the values of any sequence
 * length, planned at run time inside the library.
 *
 *   cc run_values.c -DMODEL=NAME -IDIR -ISDK/include DIR/libNAME.so SDK/libpzio.a ...
 *   ./run_values IN.pb... -- OUT.pb...
 *
 * One file per input value (NAME_input_values' kinds), then one per output
 * value, written as the executable writes them (pz_io_write_value). */
#include <stdio.h>
#include <string.h>

#include <pz_io.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(x) CAT(MODEL, x)
#include STR(MODEL.h)

#define MAX_V 16

int main(int argc, char **argv)
{
    pz_io_value in[MAX_V], out[MAX_V];
    char err[1024];
    int n_in = 0, i = 1;
    for (; i < argc && strcmp(argv[i], "--") && n_in < MAX_V; i++, n_in++)
        if (n_in >= API(_n_input_values) ||
            pz_io_read_value(argv[i], API(_input_values)[n_in].kind, &in[n_in], err, sizeof err)) {
            fprintf(stderr, "run_values: error: %s: %s\n", argv[i], n_in < API(_n_input_values) ? err : "too many inputs");
            return 2;
        }
    int n_out = API(_n_output_values);
    if (n_out > MAX_V || argc - i - 1 != n_out) {
        fprintf(stderr, "run_values: error: give %d output files after --\n", n_out);
        return 2;
    }
    int rc = API(_run_values)(in, n_in, out, n_out, 1, NULL, err, sizeof err);
    if (rc) fprintf(stderr, "run_values: error: %s\n", err);
    for (int v = 0; !rc && v < n_out; v++)
        if (pz_io_write_value(argv[i + 1 + v], API(_output_values)[v].name, &out[v], err, sizeof err)) {
            fprintf(stderr, "run_values: error: %s\n", err);
            rc = 2;
        }
    for (int v = 0; !rc && v < n_out; v++) pz_io_value_free(&out[v]);
    for (int v = 0; v < n_in; v++) pz_io_value_free(&in[v]);
    return rc;
}
