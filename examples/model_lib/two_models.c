/* two_models.c - two compiled models' shared objects in one process.
 *
 *   cc two_models.c -ldl -o two_models
 *   ./two_models A/libfoo.so A/foo.weights B/libbar.so B/bar.weights IN.pb OUTA.pb OUTB.pb
 *
 * Each .so carries its own hidden copy of the runtime; this loads both with
 * dlopen (RTLD_LOCAL, then the second with RTLD_GLOBAL: neither may take the
 * other's symbols), finds each model's NAME by its paleozoic_model_name,
 * then NAME_create / _run / _destroy and the I/O tables by dlsym, runs both
 * models on the same float32 input (raw bytes: the file's last
 * numel*4 bytes are the TensorProto's raw_data) and writes each first output
 * as raw float32. A weights argument "-" passes NULL (weights linked in). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANK 8   /* PZ_MAX_RANK of pz_rt.h */

typedef struct {
    const char *name;
    int dtype;
    int rank;
    int64_t dims[MAX_RANK];
} model_io;

typedef void *(*create_fn)(const char *, int, const void *, char *, size_t);
typedef void (*run_fn)(void *, const void *const *, void *const *);
typedef void (*destroy_fn)(void *);

static void *sym(void *h, const char *name, const char *suffix)
{
    char s[256];
    snprintf(s, sizeof s, "%s%s", name, suffix);
    void *p = dlsym(h, s);
    if (!p) fprintf(stderr, "two_models: %s: %s\n", s, dlerror());
    return p;
}

static size_t numel(const model_io *io)
{
    size_t n = 1;
    for (int d = 0; d < io->rank; d++) n *= (size_t)io->dims[d];
    return n;
}

static int run_one(void *h, const char *weights, const char *in_pb, const char *out_path)
{
    const char *(*model_name)(void) = (const char *(*)(void))dlsym(h, "paleozoic_model_name");
    if (!model_name) return fprintf(stderr, "two_models: no paleozoic_model_name\n"), 1;
    const char *name = model_name();
    create_fn create = (create_fn)sym(h, name, "_create");
    run_fn run = (run_fn)sym(h, name, "_run");
    destroy_fn destroy = (destroy_fn)sym(h, name, "_destroy");
    const model_io *ins = sym(h, name, "_inputs"), *outs = sym(h, name, "_outputs");
    const int *n_in = sym(h, name, "_n_inputs"), *n_out = sym(h, name, "_n_outputs");
    if (!create || !run || !destroy || !ins || !outs || !n_in || !n_out) return 1;
    if (*n_in != 1 || *n_out < 1 || ins[0].dtype != 1 || outs[0].dtype != 1)
        return fprintf(stderr, "two_models: %s: want one float input, float outputs\n", name), 1;

    size_t nx = numel(&ins[0]), ny = numel(&outs[0]);
    float *x = malloc(nx * 4), *y = calloc(ny, 4);
    FILE *f = fopen(in_pb, "rb");
    int ok = f && !fseek(f, -(long)(nx * 4), SEEK_END) && fread(x, 4, nx, f) == nx;
    if (f) fclose(f);
    if (!ok) return fprintf(stderr, "two_models: cannot read %zu floats from %s\n", nx, in_pb), 1;
    void **outputs = calloc((size_t)*n_out, sizeof *outputs);
    outputs[0] = y;
    for (int i = 1; i < *n_out; i++) outputs[i] = calloc(numel(&outs[i]) * 8 + 1, 1);

    char err[512];
    void *net = create(strcmp(weights, "-") ? weights : NULL, 1, NULL, err, sizeof err);
    if (!net) return fprintf(stderr, "two_models: %s: %s\n", name, err), 1;
    run(net, (const void *const[]){x}, outputs);
    destroy(net);
    f = fopen(out_path, "wb");
    ok = f && fwrite(y, 4, ny, f) == ny;
    if (f) ok &= fclose(f) == 0;
    printf("%s: %zu outputs written to %s\n", name, ny, out_path);
    for (int i = 0; i < *n_out; i++) free(outputs[i]);
    free(outputs);
    free(x);
    return !ok;
}

int main(int argc, char **argv)
{
    if (argc != 8) {
        fprintf(stderr, "usage: %s A.so A.weights|- B.so B.weights|- IN.pb OUTA OUTB\n", argv[0]);
        return 2;
    }
    void *a = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    void *b = dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL);
    if (!a || !b) return fprintf(stderr, "two_models: dlopen: %s\n", dlerror()), 1;
    /* interleaved: both instances alive at once, each with its own runtime */
    int rc = run_one(a, argv[2], argv[5], argv[6]) | run_one(b, argv[4], argv[5], argv[7]);
    rc |= run_one(a, argv[2], argv[5], argv[6]);
    dlclose(b);
    dlclose(a);
    return rc;
}
