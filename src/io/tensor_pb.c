/* tensor_pb.c - onnx.TensorProto files, read and written by hand.
 *
 * The wire format: a message is a sequence of (key, value) pairs, key =
 * field_number << 3 | wire_type; wire type 0 is a varint, 1 a 64-bit word,
 * 2 a length-delimited byte run (strings, bytes, packed repeated scalars),
 * 5 a 32-bit word. The TensorProto fields used here (onnx.proto):
 *   1 dims (int64, repeated)   2 data_type (int32)    4 float_data (packed)
 *   5 int32_data (packed)      7 int64_data (packed)  8 name (string)
 *   9 raw_data (bytes)        10 double_data (packed) 11 uint64_data (packed)
 *  14 data_location (EXTERNAL = 1 is refused)
 */
#include "pz_io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t n, const char *fmt, ...)
{
    if (err && n) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, n, fmt, ap);
        va_end(ap);
    }
    return 1;
}

/* ---- decoding ------------------------------------------------------------ */

typedef struct {
    const uint8_t *p, *end;
    int bad;
} cursor;

static uint64_t get_varint(cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (c->p >= c->end) break;
        uint8_t b = *c->p++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
    c->bad = 1;
    return 0;
}

static uint64_t get_fixed(cursor *c, int bytes)
{
    if (c->end - c->p < bytes) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)c->p[i] << (8 * i);
    c->p += bytes;
    return v;
}

/* A growable array of 64-bit values: every typed field is gathered here as
 * raw bits (floats as their 32-bit pattern, doubles as 64-bit) and converted
 * once the element type is known. */
typedef struct {
    uint64_t *v;
    size_t n, cap;
    int field;          /* which typed field filled it (0: none) */
} values;

static int push(values *a, uint64_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 64;
        uint64_t *v = realloc(a->v, cap * sizeof *v);
        if (!v) return 1;
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
    return 0;
}

/* One value of a repeated scalar field, or a packed run of them. kind: 0
 * varint, 4 fixed32, 8 fixed64. */
static int read_repeated(cursor *c, int wt, int kind, values *a)
{
    if (wt == 2) {
        uint64_t len = get_varint(c);
        if (c->bad || len > (uint64_t)(c->end - c->p)) return c->bad = 1, 0;
        cursor sub = {c->p, c->p + len, 0};
        c->p += len;
        while (sub.p < sub.end && !sub.bad)
            if (push(a, kind ? get_fixed(&sub, kind) : get_varint(&sub))) return 1;
        c->bad |= sub.bad;
        return 0;
    }
    int want = kind == 0 ? 0 : kind == 4 ? 5 : 1;
    if (wt != want) return c->bad = 1, 0;
    uint64_t x = kind ? get_fixed(c, kind) : get_varint(c);
    return c->bad ? 0 : push(a, x);
}

static int skip_field(cursor *c, int wt)
{
    switch (wt) {
    case 0: get_varint(c); break;
    case 1: get_fixed(c, 8); break;
    case 5: get_fixed(c, 4); break;
    case 2: {
        uint64_t len = get_varint(c);
        if (len > (uint64_t)(c->end - c->p)) c->bad = 1;
        else c->p += len;
        break;
    }
    default: c->bad = 1;
    }
    return c->bad;
}

static void *alloc64(size_t nbytes)
{
    size_t n = (nbytes + 63) / 64 * 64;
    void *p = NULL;
    if (posix_memalign(&p, 64, n ? n : 64)) return NULL;
    memset(p, 0, n ? n : 64);
    return p;
}

/* 4- and 2-bit types: packed two or four to a byte in files, which this
 * reader and writer do not do (yet); they refuse them. */
static int packed_subbyte(int dtype)
{
    return dtype == PZ_U4 || dtype == PZ_I4 || dtype == PZ_F4E2M1 || dtype == PZ_U2 || dtype == PZ_I2;
}

/* Converts the typed values into packed elements of dtype. */
static int convert(const values *a, int dtype, void *dst, size_t numel, const char *path,
                   char *err, size_t n)
{
    int want;
    switch (dtype) {
    case PZ_F32: want = 4; break;
    case PZ_F64: want = 10; break;
    case PZ_I64: want = 7; break;
    case PZ_U32: case PZ_U64: want = 11; break;
    default: want = 5;   /* int32_data holds every smaller type, f16 and bf16 as bits */
    }
    if (a->n && a->field != want)
        return fail(err, n, "%s: %s tensor stored in TensorProto field %d, expected field %d", path,
                    pz_dtype_name(dtype), a->field, want);
    if (a->n != numel)
        return fail(err, n, "%s: %zu values for a %s tensor of %zu elements", path, a->n,
                    pz_dtype_name(dtype), numel);
    size_t es = pz_dtype_size(dtype);
    for (size_t i = 0; i < numel; i++) {
        uint64_t x = a->v[i];
        memcpy((char *)dst + i * es, &x, es);   /* little-endian: the low bytes */
    }
    return 0;
}

void pz_io_tensor_free(pz_io_tensor *t)
{
    free(t->name);
    free(t->data);
    memset(t, 0, sizeof *t);
}

static int parse(const uint8_t *buf, size_t len, pz_io_tensor *t, const char *path, char *err,
                 size_t n)
{
    cursor c = {buf, buf + len, 0};
    values typed = {0}, dims = {0};
    const uint8_t *raw = NULL;
    size_t raw_len = 0;
    int dtype = 0, have_raw = 0, rc = 1;
    while (c.p < c.end && !c.bad) {
        uint64_t key = get_varint(&c);
        int field = (int)(key >> 3), wt = (int)(key & 7);
        if (c.bad) break;
        int oom = 0;
        switch (field) {
        case 1: oom = read_repeated(&c, wt, 0, &dims); break;
        case 2:
            if (wt != 0) c.bad = 1;
            else dtype = (int)get_varint(&c);
            break;
        case 4: case 5: case 7: case 10: case 11:
            if (typed.field && typed.field != field) {
                fail(err, n, "%s: values in two typed fields (%d and %d)", path, typed.field, field);
                goto out;
            }
            typed.field = field;
            oom = read_repeated(&c, wt, field == 4 ? 4 : field == 10 ? 8 : 0, &typed);
            break;
        case 8: case 9: {
            uint64_t l = wt == 2 ? get_varint(&c) : 0;
            if (wt != 2 || c.bad || l > (uint64_t)(c.end - c.p)) {
                c.bad = 1;
                break;
            }
            if (field == 8) {
                free(t->name);
                t->name = malloc(l + 1);
                if (!t->name) oom = 1;
                else {
                    memcpy(t->name, c.p, l);
                    t->name[l] = 0;
                }
            } else {
                raw = c.p;
                raw_len = l;
                have_raw = 1;
            }
            c.p += l;
            break;
        }
        case 14:
            if (wt == 0 && get_varint(&c) == 1) {
                fail(err, n, "%s: the tensor's data is external (data_location EXTERNAL): not supported", path);
                goto out;
            }
            break;
        default: skip_field(&c, wt);
        }
        if (oom) {
            fail(err, n, "%s: out of memory", path);
            goto out;
        }
    }
    if (c.bad) {
        fail(err, n, "%s: not a serialized onnx.TensorProto (malformed protobuf)", path);
        goto out;
    }
    if (packed_subbyte(dtype)) {
        fail(err, n, "%s: element type %s (packed sub-byte) is not supported by built programs; "
             "use `paleozoic run`", path, pz_dtype_name(dtype));
        goto out;
    }
    if (pz_dtype_size(dtype) == 0) {
        fail(err, n, "%s: element type %d is not supported", path, dtype);
        goto out;
    }
    if (dims.n > PZ_MAX_RANK) {
        fail(err, n, "%s: rank %zu, at most %d supported", path, dims.n, PZ_MAX_RANK);
        goto out;
    }
    size_t numel = 1, es = pz_dtype_size(dtype);
    for (size_t i = 0; i < dims.n; i++) {
        int64_t d = (int64_t)dims.v[i];
        if (d < 0 || (d && numel > (SIZE_MAX / es) / (uint64_t)d)) {
            fail(err, n, "%s: dim %zu is %lld", path, i, (long long)d);
            goto out;
        }
        numel *= (size_t)d;
        t->dims[i] = d;
    }
    t->dtype = dtype;
    t->rank = (int)dims.n;
    t->nbytes = numel * es;
    /* the sizes agree before anything is allocated: dims are the file's word */
    if (have_raw && typed.n) {
        fail(err, n, "%s: both raw_data and typed values", path);
        goto out;
    }
    if (have_raw ? raw_len != t->nbytes : typed.n != numel) {
        fail(err, n, "%s: %s %zu %s, a %s tensor of %zu elements needs %zu", path,
             have_raw ? "raw_data has" : "the typed values are", have_raw ? raw_len : typed.n,
             have_raw ? "bytes" : "values", pz_dtype_name(dtype), numel,
             have_raw ? t->nbytes : numel);
        goto out;
    }
    t->data = alloc64(t->nbytes);
    if (!t->data) {
        fail(err, n, "%s: out of memory for %zu bytes", path, t->nbytes);
        goto out;
    }
    if (have_raw) memcpy(t->data, raw, raw_len);
    else if (convert(&typed, dtype, t->data, numel, path, err, n)) goto out;
    if (!t->name) t->name = calloc(1, 1);
    rc = t->name ? 0 : fail(err, n, "%s: out of memory", path);
out:
    free(typed.v);
    free(dims.v);
    return rc;
}

/* The whole file into *buf (malloc'd). */
static int slurp(const char *path, uint8_t **buf, size_t *len, char *err, size_t n)
{
    FILE *f = fopen(path, "rb");
    *buf = NULL;
    *len = 0;
    if (!f) return fail(err, n, "%s: %s", path, strerror(errno));
    size_t cap = 0;
    for (;;) {
        if (*len == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            uint8_t *nb = realloc(*buf, cap);
            if (!nb) {
                free(*buf);
                *buf = NULL;
                fclose(f);
                return fail(err, n, "%s: out of memory", path);
            }
            *buf = nb;
        }
        size_t got = fread(*buf + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0) break;
    }
    int ioerr = ferror(f);
    fclose(f);
    if (ioerr) {
        free(*buf);
        *buf = NULL;
        return fail(err, n, "%s: read error", path);
    }
    return 0;
}

int pz_io_read_tensor(const char *path, pz_io_tensor *t, char *err, size_t n)
{
    memset(t, 0, sizeof *t);
    uint8_t *buf;
    size_t len;
    if (slurp(path, &buf, &len, err, n)) return 1;
    int rc = parse(buf, len, t, path, err, n);
    free(buf);
    if (rc) pz_io_tensor_free(t);
    return rc;
}

/* ---- SequenceProto / OptionalProto ---------------------------------------- */

void pz_io_value_free(pz_io_value *v)
{
    for (int i = 0; v->t && i < v->n; i++) pz_io_tensor_free(&v->t[i]);
    free(v->t);
    memset(v, 0, sizeof *v);
}

static const char *const MSG[] = {"TensorProto", "SequenceProto", "OptionalProto"};

/* The tensors of a SequenceProto (seq) or an OptionalProto into v, which
 * has v->kind set; 2 (err unset) when the bytes are not such a message, so
 * that the caller can say what they are. */
static int read_container(const uint8_t *buf, size_t len, int seq, pz_io_value *v,
                          const char *path, char *err, size_t n)
{
    cursor c = {buf, buf + len, 0};
    int held = 0;   /* an optional's values (one at most): field 3 or 5 present */
    while (c.p < c.end && !c.bad) {
        uint64_t key = get_varint(&c);
        int field = (int)(key >> 3), wt = (int)(key & 7);
        if (c.bad) break;
        if (field == 2 && wt == 0) {   /* elem_type: TENSOR 1, SEQUENCE 3 (an optional's) */
            uint64_t e = get_varint(&c);
            if (e > 1 && (e != 3 || seq) && !c.bad)
                return fail(err, n, "%s: a %s of elem_type %llu: only tensors%s are supported",
                            path, seq ? "sequence" : "optional", (unsigned long long)e,
                            seq ? "" : " and sequences of tensors");
            continue;
        }
        if (wt != 2 || (field != 1 && field != 3 && (field != 5 || seq))) return 2;
        uint64_t l = get_varint(&c);
        if (c.bad || l > (uint64_t)(c.end - c.p)) return 2;
        const uint8_t *body = c.p;
        c.p += l;
        if (field == 1) continue;   /* the name */
        if (!seq && held++) return fail(err, n, "%s: an OptionalProto holds one value at most, this file "
                                           "has more (a SequenceProto?)", path);
        if (field == 5) {   /* present, even when the sequence is empty */
            v->inner = PZ_IO_SEQUENCE;
            int rc = read_container(body, (size_t)l, 1, v, path, err, n);
            if (rc) return rc;
            continue;
        }
        pz_io_tensor *t = realloc(v->t, (size_t)(v->n + 1) * sizeof *t);
        if (!t) return fail(err, n, "%s: out of memory", path);
        v->t = t;
        memset(&t[v->n], 0, sizeof *t);
        char label[600];
        snprintf(label, sizeof label, "%s: element %d", path, v->n);
        if (parse(body, (size_t)l, &t[v->n], label, err, n)) {
            pz_io_tensor_free(&t[v->n]);
            return 1;
        }
        v->n++;
    }
    return c.bad ? 2 : 0;
}

/* 1: the bytes read as a SequenceProto or an OptionalProto holding something. */
static int holds_container(const uint8_t *buf, size_t len)
{
    int yes = 0;
    for (int seq = 1; seq >= 0 && !yes; seq--) {
        pz_io_value w = {seq ? PZ_IO_SEQUENCE : PZ_IO_OPTIONAL, PZ_IO_TENSOR, 0, NULL};
        yes = read_container(buf, len, seq, &w, "", NULL, 0) == 0 &&
              (w.n || w.inner == PZ_IO_SEQUENCE);
        pz_io_value_free(&w);
    }
    return yes;
}

int pz_io_read_value(const char *path, int kind, pz_io_value *v, char *err, size_t n)
{
    memset(v, 0, sizeof *v);
    if (kind < PZ_IO_TENSOR || kind > PZ_IO_OPTIONAL)
        return fail(err, n, "%s: value kind %d", path, kind);
    uint8_t *buf;
    size_t len;
    if (slurp(path, &buf, &len, err, n)) return 1;
    v->kind = kind;
    int rc;
    if (kind == PZ_IO_TENSOR) {
        v->t = calloc(1, sizeof *v->t);
        rc = !v->t ? fail(err, n, "%s: out of memory", path) : parse(buf, len, v->t, path, err, n);
        v->n = v->t != NULL;
        if (rc && v->t && holds_container(buf, len))   /* said so */
            fail(err, n, "%s: holds a sequence or an optional (SequenceProto / OptionalProto), "
                 "not a tensor (TensorProto)", path);
    } else {
        v->inner = PZ_IO_TENSOR;
        rc = read_container(buf, len, kind == PZ_IO_SEQUENCE, v, path, err, n);
        pz_io_tensor t = {0};
        if (rc == 2) {
            if (parse(buf, len, &t, path, NULL, 0) == 0)
                fail(err, n, "%s: holds a tensor (TensorProto), not a %s (%s)", path,
                     kind == PZ_IO_SEQUENCE ? "sequence" : "optional", MSG[kind]);
            else
                fail(err, n, "%s: not a serialized onnx.%s of tensors (malformed, or it holds "
                     "maps or sparse tensors)", path, MSG[kind]);
        }
        pz_io_tensor_free(&t);
    }
    free(buf);
    if (rc) pz_io_value_free(v);
    return rc ? 1 : 0;
}

/* ---- encoding ------------------------------------------------------------ */

static void put_varint(FILE *f, uint64_t v)
{
    while (v >= 0x80) {
        fputc((int)(v & 0x7f) | 0x80, f);
        v >>= 7;
    }
    fputc((int)v, f);
}

static size_t varint_len(uint64_t v)
{
    size_t k = 1;
    for (; v >= 0x80; v >>= 7) k++;
    return k;
}

/* A length-delimited field's key and length. */
static void put_len(FILE *f, int field, size_t len)
{
    put_varint(f, (uint64_t)field << 3 | 2);
    put_varint(f, len);
}

/* A tensor that a file can hold, of *nbytes bytes; err otherwise. */
static int check_tensor(const char *path, int dtype, int rank, const int64_t *dims, size_t *nbytes,
                        char *err, size_t n)
{
    size_t es = pz_dtype_size(dtype);
    if (!es) return fail(err, n, "%s: element type %d is not supported", path, dtype);
    if (packed_subbyte(dtype))
        return fail(err, n, "%s: element type %s (packed sub-byte) is not supported by built "
                    "programs; use `paleozoic run`", path, pz_dtype_name(dtype));
    if (rank < 0 || rank > PZ_MAX_RANK) return fail(err, n, "%s: rank %d", path, rank);
    size_t numel = 1;
    for (int i = 0; i < rank; i++) numel *= (size_t)dims[i];
    *nbytes = numel * es;
    return 0;
}

/* The TensorProto's fields: 1 dims (packed), 2 data_type, 8 name, 9 raw_data;
 * put = 0 only counts their bytes. */
static size_t put_tensor(FILE *f, int put, const char *name, int dtype, int rank,
                         const int64_t *dims, const void *data, size_t nbytes)
{
    size_t plen = 0, len = name && *name ? strlen(name) : 0;
    for (int i = 0; i < rank; i++) plen += varint_len((uint64_t)dims[i]);
    size_t size = (rank ? 1 + varint_len(plen) + plen : 0) + 1 + varint_len((uint64_t)dtype) +
                  (len ? 1 + varint_len(len) + len : 0) + 1 + varint_len(nbytes) + nbytes;
    if (!put) return size;
    if (rank) {
        put_len(f, 1, plen);
        for (int i = 0; i < rank; i++) put_varint(f, (uint64_t)dims[i]);
    }
    put_varint(f, 2 << 3 | 0);
    put_varint(f, (uint64_t)dtype);
    if (len) {
        put_len(f, 8, len);
        fputs(name, f);
    }
    put_len(f, 9, nbytes);
    fwrite(data, 1, nbytes, f);
    return size;
}

/* A temporary file beside path (*tmp, malloc'd), renamed over it by
 * commit_temp: on failure nothing is left at path. */
static FILE *open_temp(const char *path, char **tmp, char *err, size_t n)
{
    size_t len = strlen(path);
    *tmp = malloc(len + 16);
    if (!*tmp) return fail(err, n, "%s: out of memory", path), NULL;
    snprintf(*tmp, len + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        fail(err, n, "%s: cannot create a temporary file beside it: %s", path, strerror(errno));
        free(*tmp);
        return NULL;
    }
    mode_t mask = umask(0);   /* mkstemp makes 0600: give the file the usual mode */
    umask(mask);
    FILE *f = fchmod(fd, 0666 & ~mask) ? NULL : fdopen(fd, "wb");
    if (!f) {
        fail(err, n, "%s: %s", path, strerror(errno));
        close(fd);
        unlink(*tmp);
        free(*tmp);
    }
    return f;
}

static int commit_temp(FILE *f, char *tmp, const char *path, char *err, size_t n)
{
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path)) {
        fail(err, n, "%s: write failed: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return 1;
    }
    free(tmp);
    return 0;
}

int pz_io_write_tensor(const char *path, const char *name, int dtype, int rank,
                       const int64_t *dims, const void *data, char *err, size_t n)
{
    size_t nbytes;
    char *tmp;
    if (check_tensor(path, dtype, rank, dims, &nbytes, err, n)) return 1;
    FILE *f = open_temp(path, &tmp, err, n);
    if (!f) return 1;
    put_tensor(f, 1, name, dtype, rank, dims, data, nbytes);
    return commit_temp(f, tmp, path, err, n);
}

/* A SequenceProto's fields: 1 name, 2 elem_type TENSOR, 3 the tensors
 * (unnamed, as `paleozoic run` writes them); put = 0 only counts. */
static size_t put_sequence(FILE *f, int put, const char *name, const pz_io_tensor *t, int count)
{
    size_t len = strlen(name), size = 1 + varint_len(len) + len + 2;
    if (put) {
        put_len(f, 1, len);
        fputs(name, f);
        put_varint(f, 2 << 3 | 0);
        put_varint(f, 1);
    }
    for (int k = 0; k < count; k++) {
        size_t ts = put_tensor(f, 0, NULL, t[k].dtype, t[k].rank, t[k].dims, t[k].data,
                               t[k].nbytes);
        size += 1 + varint_len(ts) + ts;
        if (!put) continue;
        put_len(f, 3, ts);
        put_tensor(f, 1, NULL, t[k].dtype, t[k].rank, t[k].dims, t[k].data, t[k].nbytes);
    }
    return size;
}

int pz_io_write_value(const char *path, const char *name, const pz_io_value *v, char *err,
                      size_t n)
{
    if (v->kind == PZ_IO_TENSOR && v->n == 1)
        return pz_io_write_tensor(path, name, v->t[0].dtype, v->t[0].rank, v->t[0].dims,
                                  v->t[0].data, err, n);
    int seq = v->kind == PZ_IO_SEQUENCE, holds_seq = !seq && v->inner == PZ_IO_SEQUENCE;
    if ((!seq && v->kind != PZ_IO_OPTIONAL) || v->n < 0 || (!seq && !holds_seq && v->n > 1))
        return fail(err, n, "%s: a value of kind %d holding %d tensors", path, v->kind, v->n);
    pz_io_value c = *v;   /* each tensor's byte count, checked */
    c.t = calloc((size_t)(v->n ? v->n : 1), sizeof *c.t);
    if (!c.t) return fail(err, n, "%s: out of memory", path);
    for (int k = 0; k < v->n; k++) {
        c.t[k] = v->t[k];
        if (check_tensor(path, v->t[k].dtype, v->t[k].rank, v->t[k].dims, &c.t[k].nbytes, err, n)) {
            free(c.t);
            return 1;
        }
    }
    char *tmp;
    FILE *f = open_temp(path, &tmp, err, n);
    if (!f) {
        free(c.t);
        return 1;
    }
    if (seq) {
        put_sequence(f, 1, name, c.t, c.n);
    } else {   /* OptionalProto: 1 name, 2 elem_type (none when empty), 3 or 5 the value */
        put_len(f, 1, strlen(name));
        fputs(name, f);
        if (holds_seq || c.n) {
            put_varint(f, 2 << 3 | 0);
            put_varint(f, holds_seq ? 3 : 1);
        }
        if (holds_seq) {
            put_len(f, 5, put_sequence(f, 0, "", c.t, c.n));
            put_sequence(f, 1, "", c.t, c.n);
        } else if (c.n) {
            put_len(f, 3, put_tensor(f, 0, NULL, c.t[0].dtype, c.t[0].rank, c.t[0].dims,
                                     c.t[0].data, c.t[0].nbytes));
            put_tensor(f, 1, NULL, c.t[0].dtype, c.t[0].rank, c.t[0].dims, c.t[0].data,
                       c.t[0].nbytes);
        }
    }
    free(c.t);
    return commit_temp(f, tmp, path, err, n);
}
