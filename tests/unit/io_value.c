/* io_value.c - pz_io_read_value / pz_io_write_value (src/io/tensor_pb.c):
 * sequences and optionals written and read back (element types, shapes and
 * bytes, an empty sequence, an empty optional, an optional holding an empty
 * sequence), a file of one kind read as another refused with a sentence,
 * and every byte of a SequenceProto and an OptionalProto file overwritten
 * with hostile values (and every truncation) read as each kind: it must
 * return, and what it accepts must be self-consistent (ASan in the
 * sanitizer build). Which bytes the format holds is checked against ONNX's
 * own files by tests/parts/40-sequences.sh. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/io/pz_io.h"
#include "test_check.h"

static char dir[] = "/tmp/pz-io-value-XXXXXX";

static void path_of(char *p, size_t n, const char *name)
{
    snprintf(p, n, "%s/%s", dir, name);
}

static pz_io_tensor tensor(int dtype, int rank, const int64_t *dims, void *data)
{
    pz_io_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dtype;
    t.rank = rank;
    for (int i = 0; i < rank; i++) t.dims[i] = dims[i];
    t.data = data;
    return t;
}

/* v written to `name`, read back as `kind`: the same kind, inner, tensors. */
static void round_trip(const char *what, const pz_io_value *v, const char *name)
{
    char p[256], err[512];
    path_of(p, sizeof p, name);
    checkf(pz_io_write_value(p, "v", v, err, sizeof err) == 0, "%s: write: %s", what, err);
    pz_io_value r;
    if (pz_io_read_value(p, v->kind, &r, err, sizeof err)) {
        checkf(0, "%s: read: %s", what, err);
        return;
    }
    checkf(r.kind == v->kind && r.inner == v->inner && r.n == v->n,
           "%s: read kind %d inner %d n %d, wrote %d %d %d", what, r.kind, r.inner, r.n, v->kind,
           v->inner, v->n);
    for (int k = 0; k < r.n && k < v->n; k++) {
        const pz_io_tensor *a = &r.t[k], *b = &v->t[k];
        size_t nb = pz_dtype_size(b->dtype);
        for (int d = 0; d < b->rank; d++) nb *= (size_t)b->dims[d];
        int same = a->dtype == b->dtype && a->rank == b->rank && a->nbytes == nb &&
                   !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)b->rank) &&
                   (nb == 0 || !memcmp(a->data, b->data, nb));
        checkf(same, "%s: element %d differs", what, k);
    }
    pz_io_value_free(&r);
}

/* Reading file `name` as `kind` fails with `want` in the message. */
static void refused(const char *what, const char *name, int kind, const char *want)
{
    char p[256], err[512] = "";
    path_of(p, sizeof p, name);
    pz_io_value r;
    int rc = pz_io_read_value(p, kind, &r, err, sizeof err);
    checkf(rc != 0 && strstr(err, want), "%s: rc %d, message \"%s\", wanted \"%s\"", what, rc, err,
           want);
    checkf(r.n == 0 && r.t == NULL, "%s: a refused read leaves an empty value", what);
    if (!rc) pz_io_value_free(&r);
}

static unsigned char *slurp(const char *name, size_t *len)
{
    char p[256];
    path_of(p, sizeof p, name);
    FILE *f = fopen(p, "rb");
    unsigned char *buf = malloc(1 << 16);
    *len = f ? fread(buf, 1, 1 << 16, f) : 0;
    if (f) fclose(f);
    return buf;
}

/* Every byte of file `name` set to each hostile value, and every prefix,
 * read as each kind: returns, and an accepted value is consistent. */
static void hostile(const char *name)
{
    static const unsigned char VALUES[] = {0x00, 0x01, 0x02, 0x03, 0x05, 0x0a, 0x12, 0x1a, 0x2a,
                                           0x7f, 0x80, 0xff};
    size_t len;
    unsigned char *orig = slurp(name, &len), *buf = malloc(len + 1);
    char p[256], err[512];
    path_of(p, sizeof p, "hostile.pb");
    int bad = 0, runs = 0;
    for (size_t i = 0; i <= len; i++) {
        for (size_t v = 0; v <= sizeof VALUES; v++) {
            memcpy(buf, orig, len);
            size_t n = len;
            if (v < sizeof VALUES) {
                if (i == len) continue;
                buf[i] = VALUES[v];
            } else {
                n = i;   /* the prefix */
            }
            FILE *f = fopen(p, "wb");
            fwrite(buf, 1, n, f);
            fclose(f);
            for (int kind = PZ_IO_TENSOR; kind <= PZ_IO_OPTIONAL; kind++) {
                pz_io_value r;
                runs++;
                if (pz_io_read_value(p, kind, &r, err, sizeof err)) {
                    bad |= r.n != 0 || r.t != NULL || err[0] == 0;
                    continue;
                }
                for (int k = 0; k < r.n; k++) {
                    size_t nb = pz_dtype_size(r.t[k].dtype);
                    for (int d = 0; d < r.t[k].rank; d++) nb *= (size_t)r.t[k].dims[d];
                    bad |= nb != r.t[k].nbytes || (nb && !r.t[k].data);
                }
                bad |= r.kind != kind || (kind == PZ_IO_TENSOR && r.n != 1) ||
                       (kind == PZ_IO_OPTIONAL && r.inner == PZ_IO_TENSOR && r.n > 1);
                pz_io_value_free(&r);
            }
        }
    }
    checkf(!bad, "hostile %s: %d reads, an inconsistent result or an unexplained refusal", name,
           runs);
    free(orig);
    free(buf);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    int64_t a[4] = {1, -2, 3, 1LL << 40};
    float b[6] = {0.5f, -1, 2, 3, 4, 1e30f};
    unsigned char c = 7;
    const int64_t d4[] = {4}, d23[] = {2, 3}, d0[] = {0};
    pz_io_tensor ts[3] = {tensor(PZ_I64, 1, d4, a), tensor(PZ_F32, 2, d23, b),
                          tensor(PZ_U8, 0, NULL, &c)};
    pz_io_tensor empty = tensor(PZ_F32, 1, d0, b);

    pz_io_value seq = {PZ_IO_SEQUENCE, PZ_IO_TENSOR, 3, ts};
    round_trip("sequence of 3 (int64 [4], float32 [2,3], uint8 scalar)", &seq, "seq.pb");
    pz_io_value seq0 = {PZ_IO_SEQUENCE, PZ_IO_TENSOR, 0, NULL};
    round_trip("empty sequence", &seq0, "seq0.pb");
    pz_io_value seqe = {PZ_IO_SEQUENCE, PZ_IO_TENSOR, 1, &empty};
    round_trip("sequence of one empty tensor", &seqe, "seqe.pb");
    pz_io_value opt = {PZ_IO_OPTIONAL, PZ_IO_TENSOR, 1, &ts[1]};
    round_trip("optional holding a tensor", &opt, "opt.pb");
    pz_io_value opt0 = {PZ_IO_OPTIONAL, PZ_IO_TENSOR, 0, NULL};
    round_trip("empty optional", &opt0, "opt0.pb");
    pz_io_value opts = {PZ_IO_OPTIONAL, PZ_IO_SEQUENCE, 2, ts};
    round_trip("optional holding a sequence of 2", &opts, "opts.pb");
    pz_io_value opts0 = {PZ_IO_OPTIONAL, PZ_IO_SEQUENCE, 0, NULL};
    round_trip("optional holding an empty sequence", &opts0, "opts0.pb");
    pz_io_value one = {PZ_IO_TENSOR, PZ_IO_TENSOR, 1, &ts[1]};
    round_trip("a tensor", &one, "t.pb");

    refused("a sequence read as a tensor", "seq.pb", PZ_IO_TENSOR, "holds a sequence or an optional");
    /* the name read as a tensor's packed dims (8 bytes, 8 dims): a huge shape, no data (it
     * must be refused before anything that size is allocated) */
    char p[256], err[512];
    path_of(p, sizeof p, "named.pb");
    checkf(pz_io_write_value(p, "sequence", &seq, err, sizeof err) == 0, "named: %s", err);
    refused("a sequence named \"sequence\" read as a tensor", "named.pb", PZ_IO_TENSOR,
            "holds a sequence or an optional");
    refused("a tensor read as a sequence", "t.pb", PZ_IO_SEQUENCE, "holds a tensor (TensorProto), not a sequence");
    refused("a tensor read as an optional", "t.pb", PZ_IO_OPTIONAL, "holds a tensor (TensorProto), not a");
    refused("a sequence of 3 read as an optional", "seq.pb", PZ_IO_OPTIONAL, "one value at most");
    refused("an optional of a sequence read as a sequence", "opts.pb", PZ_IO_SEQUENCE, "a sequence of elem_type 3");
    refused("a missing file", "none.pb", PZ_IO_SEQUENCE, "none.pb");
    path_of(p, sizeof p, "bad.pb");
    pz_io_tensor sub = tensor(PZ_I4, 1, d4, a);   /* packed 4-bit: refused, nothing written */
    pz_io_value badv = {PZ_IO_SEQUENCE, PZ_IO_TENSOR, 1, &sub};
    checkf(pz_io_write_value(p, "v", &badv, err, sizeof err) != 0 && access(p, F_OK) != 0,
           "a sequence of int4: refused, no file");
    pz_io_value two = {PZ_IO_OPTIONAL, PZ_IO_TENSOR, 2, ts};
    checkf(pz_io_write_value(p, "v", &two, err, sizeof err) != 0 && access(p, F_OK) != 0,
           "an optional of two tensors: refused, no file");

    hostile("seq.pb");
    hostile("opts.pb");

    const char *files[] = {"seq.pb", "seq0.pb", "seqe.pb", "opt.pb", "opt0.pb", "opts.pb",
                           "opts0.pb", "t.pb", "hostile.pb", "named.pb"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        path_of(p, sizeof p, files[i]);
        unlink(p);
    }
    rmdir(dir);
    return test_summary("io_value");
}
