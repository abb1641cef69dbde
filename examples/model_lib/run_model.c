/* run_model.c - a compiled model's library called from a C program.
 *
 *   paleozoic build resnet18.onnx --lib -o lib      # lib/libresnet18.so, .a, resnet18.h
 *   cc run_model.c -DMODEL=resnet18 -Ilib $(pkg-config --cflags --libs paleozoic) \
 *      lib/libresnet18.so -Wl,-rpath,lib -o run_resnet18
 *   ./run_resnet18 --input x.pb --output y.pb --threads 1 --top 5
 *
 * MODEL names the model (the NAME of NAME.h and libNAME.so); every call goes
 * through NAME.h. The model's .so carries its own copy of the runtime; the
 * runtime found by pkg-config is used here only for pz_io.h (reading and
 * writing TensorProto files) and the run options. Inputs come from --input
 * files in the model's order, one per model input as ONNX types it (NAME.h's
 * NAME_input_values: a TensorProto, or a SequenceProto / OptionalProto whose
 * tensors are the entries first .. first + n - 1 of the flat NAME_inputs that
 * NAME_run takes); --output writes each output the same way, --top K prints the
 * K best classes of the first output, as the executable `paleozoic build`
 * makes does, so the two can be compared byte for byte. --weights FILE picks
 * the weights (default: NAME.weights, or those linked in). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pz_io.h>

#ifndef MODEL
#error "compile with -DMODEL=NAME (the model's C name, as in NAME.h)"
#endif
#define STR_(x) #x
#define STR(x) STR_(x)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define API(x) CAT(MODEL, x)      /* API(_create) is NAME_create */
#include STR(MODEL.h)

#define MAX_IO 64

static int die(const char *what, const char *detail)
{
    fprintf(stderr, "run_model: error: %s%s\n", what, detail);
    return 2;
}

int main(int argc, char **argv)
{
    const char *in[MAX_IO] = {0}, *out[MAX_IO] = {0}, *weights = NULL;
    int n_in = 0, n_out = 0, threads = 1, top = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc) return die("a value must follow ", a);
        if (!strcmp(a, "--input") && n_in < MAX_IO) in[n_in++] = argv[++i];
        else if (!strcmp(a, "--output") && n_out < MAX_IO) out[n_out++] = argv[++i];
        else if (!strcmp(a, "--weights")) weights = argv[++i];
        else if (!strcmp(a, "--threads")) threads = atoi(argv[++i]);
        else if (!strcmp(a, "--top")) top = atoi(argv[++i]);
        else return die("unknown option ", a);
    }
    /* the counts as the library exports them (data symbols), not the macros */
    int ni = API(_n_inputs), no = API(_n_outputs);
    int nvi = API(_n_input_values), nvo = API(_n_output_values);
    if (n_in != nvi || ni > MAX_IO || no > MAX_IO)
        return die("give one --input per model input, in order; model: ", paleozoic_model_name());

    pz_io_tensor x[MAX_IO];
    pz_io_value vals[MAX_IO];
    const void *inputs[MAX_IO];
    void *outputs[MAX_IO];
    char err[512];
    for (int v = 0; v < nvi; v++)
        if (pz_io_read_value(in[v], API(_input_values)[v].kind, &vals[v], err, sizeof err))
            return die(err, "");
    /* a sequence's length, an optional's presence, each tensor's type and
     * shape: as the library was built (NAME_run takes no other) */
    if (API(_check_values)(vals, nvi, err, sizeof err)) return die(err, "");
    for (int v = 0; v < nvi; v++) {
        for (int k = 0; k < vals[v].n; k++) x[API(_input_values)[v].first + k] = vals[v].t[k];
        vals[v].n = 0;   /* the tensors moved to x */
        pz_io_value_free(&vals[v]);
    }
    for (int i = 0; i < ni; i++) inputs[i] = x[i].data;
    for (int i = 0; i < no; i++) {
        const API(_io) *io = &API(_outputs)[i];
        size_t n = pz_dtype_size(io->dtype);
        for (int d = 0; d < io->rank; d++) n *= (size_t)io->dims[d];
        outputs[i] = calloc(n ? n : 1, 1);
    }

    pz_run_options opts;
    if (pz_io_run_options_env(&opts)) return 2;   /* PZ_ISA, ...: as the executable does */
    MODEL *net = API(_create)(weights, threads, &opts, err, sizeof err);
    if (!net) return die(err, "");
    API(_run)(net, inputs, outputs);

    int rc = 0;
    for (int v = 0; v < n_out && v < nvo; v++) {
        /* the run's shape: NonZero, Unique, ... give run-time shapes */
        const API(_value) *val = &API(_output_values)[v];
        pz_io_tensor t[MAX_IO];
        memset(t, 0, sizeof t);
        for (int k = 0; k < val->n; k++) {
            t[k].dtype = API(_outputs)[val->first + k].dtype;
            API(_output_shape)(net, val->first + k, &t[k].rank, t[k].dims);
            t[k].data = outputs[val->first + k];
        }
        pz_io_value y = {val->kind, val->inner, val->n, t};
        if (pz_io_write_value(out[v], val->name, &y, err, sizeof err)) rc = die(err, "");
    }
    API(_destroy)(net);
    if (top > 0 && no && API(_outputs)[0].dtype == PZ_F32) {
        /* the first output's K largest entries per row of its last dim, ties
         * by index, printed as the executable prints them */
        const API(_io) *io = &API(_outputs)[0];
        int64_t classes = io->rank ? io->dims[io->rank - 1] : 1, n = 1;
        for (int d = 0; d < io->rank; d++) n *= io->dims[d];
        for (int64_t b = 0; classes > 0 && b < n / classes; b++) {
            const float *row = (const float *)outputs[0] + b * classes;
            printf("top-%d (output %s, image %lld):", top, io->name, (long long)b);
            int64_t prev = -1;
            for (int j = 0; j < top && j < classes; j++) {
                int64_t best = -1;   /* the largest entry below the previous pick */
                for (int64_t c = 0; c < classes; c++) {
                    int below = prev < 0 || row[c] < row[prev] || (row[c] == row[prev] && c > prev);
                    if (below && (best < 0 || row[c] > row[best])) best = c;
                }
                if (best < 0) break;
                printf(" %lld (%.4f)", (long long)best, row[best]);
                prev = best;
            }
            printf("\n");
        }
    }
    printf("%s: %d inputs, %d outputs\n", paleozoic_model_name(), ni, no);
    for (int i = 0; i < ni; i++) pz_io_tensor_free(&x[i]);
    for (int i = 0; i < no; i++) free(outputs[i]);
    return rc;
}
