/* onnx_tensor.c - onnx.TensorProto <-> ir_tensor: raw_data, typed fields,
 * external data files, and the .pb tensor files of the ONNX test data. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "onnx.pb-c.h"
#include "onnx_internal.h"
#include "../rt/pz_strings.h"

/* Little-endian host assumed (x86-64, aarch64): raw_data is copied as is. */

static pz_status check_count(const char *what, size_t have, int64_t need, pz_err *err)
{
    if ((int64_t)have != need)
        return pz_fail(err, PZ_ERR_INPUT, "%s: has %zu values, its shape needs %lld", what, have,
                       (long long)need);
    return PZ_OK;
}

/* The 4- and 2-bit types are packed in files, low bits first; in memory
 * they are one element per byte (see ir/dtype.h). Bytes a file needs: */
static size_t file_bytes(int dt, int64_t numel)
{
    int bits = ir_dtype_file_bits(dt);
    return (size_t)(((uint64_t)numel * (uint64_t)bits + 7) / 8);
}

/* Unpacks numel elements of a packed type from src into one byte each:
 * int4/int2 sign-extended, uint4/uint2 and float4e2m1 as they are. */
static void unpack_small(int dt, const uint8_t *src, int64_t numel, uint8_t *dst)
{
    int bits = ir_dtype_file_bits(dt), per = 8 / bits;
    unsigned mask = (1u << bits) - 1;
    int sign = dt == IR_I4 || dt == IR_I2;
    for (int64_t i = 0; i < numel; i++) {
        unsigned v = (src[i / per] >> (bits * (int)(i % per))) & mask;
        if (sign && (v >> (bits - 1))) v |= ~mask & 0xFFu;   /* sign-extend to the byte */
        dst[i] = (uint8_t)v;
    }
}

/* The inverse: packs numel one-byte elements into ceil(numel * bits / 8) bytes. */
static void pack_small(int dt, const uint8_t *src, int64_t numel, uint8_t *dst)
{
    int bits = ir_dtype_file_bits(dt), per = 8 / bits;
    unsigned mask = (1u << bits) - 1;
    memset(dst, 0, file_bytes(dt, numel));
    for (int64_t i = 0; i < numel; i++)
        dst[i / per] |= (uint8_t)((src[i] & mask) << (bits * (int)(i % per)));
}

/* location must be a plain relative path inside model_dir: no absolute path,
 * no "..", and after resolving links it must still lie inside model_dir. */
static pz_status external_path(const char *what, const char *model_dir, const char *location,
                               char *out, size_t size, pz_err *err)
{
    if (!model_dir)
        return pz_fail(err, PZ_ERR_INPUT, "%s: external data \"%s\" but the model was not "
                       "loaded from a file", what, location);
    if (!location[0] || location[0] == '/' || strstr(location, ".."))
        return pz_fail(err, PZ_ERR_INPUT, "%s: external data location \"%s\" is refused: it "
                       "must be a relative path inside the model's folder", what, location);
    char joined[PATH_MAX], real_dir[PATH_MAX], real_file[PATH_MAX];
    if ((size_t)snprintf(joined, sizeof joined, "%s/%s", model_dir, location) >= sizeof joined)
        return pz_fail(err, PZ_ERR_INPUT, "%s: external data path is too long", what);
    if (!realpath(model_dir, real_dir))
        return pz_fail(err, PZ_ERR_INPUT, "%s: cannot resolve the model folder \"%s\": %s", what,
                       model_dir, strerror(errno));
    if (!realpath(joined, real_file))
        return pz_fail(err, PZ_ERR_INPUT, "%s: cannot open external data file \"%s\": %s", what,
                       joined, strerror(errno));
    size_t ld = strlen(real_dir);
    if (strncmp(real_file, real_dir, ld) != 0 || (real_file[ld] != '/' && ld > 1))
        return pz_fail(err, PZ_ERR_INPUT, "%s: external data \"%s\" resolves outside the "
                       "model's folder and is refused", what, location);
    snprintf(out, size, "%s", real_file);
    return PZ_OK;
}

/* Checks the location, the file and the range, then allocates *dst and reads. */
static pz_status read_external(const Onnx__TensorProto *tp, const char *what,
                               const char *model_dir, void **out, size_t nbytes, pz_err *err)
{
    const char *location = NULL;
    int64_t offset = 0, length = -1;
    for (size_t i = 0; i < tp->n_external_data; i++) {
        const char *k = tp->external_data[i]->key, *v = tp->external_data[i]->value;
        if (!k || !v) continue;
        char *end;
        if (!strcmp(k, "location")) location = v;
        else if (!strcmp(k, "offset") || !strcmp(k, "length")) {
            errno = 0;
            long long x = strtoll(v, &end, 10);
            if (errno || *end || x < 0 || end == v)
                return pz_fail(err, PZ_ERR_INPUT, "%s: external data %s \"%s\" is not a "
                               "non-negative integer", what, k, v);
            if (k[0] == 'o') offset = x;
            else length = x;
        }
    }
    if (!location)
        return pz_fail(err, PZ_ERR_INPUT, "%s: external data has no location", what);
    if (length >= 0 && (uint64_t)length != nbytes)
        return pz_fail(err, PZ_ERR_INPUT, "%s: external data length %lld, its shape needs %zu "
                       "bytes", what, (long long)length, nbytes);
    char path[PATH_MAX];
    if (external_path(what, model_dir, location, path, sizeof path, err)) return err->code;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return pz_fail(err, PZ_ERR_INPUT, "%s: cannot open external data \"%s\": %s", what,
                       path, strerror(errno));
    struct stat st;
    pz_status s = PZ_OK;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        s = pz_fail(err, PZ_ERR_INPUT, "%s: external data \"%s\" is not a regular file", what, path);
        goto out;
    }
    if ((uint64_t)offset > (uint64_t)st.st_size || nbytes > (uint64_t)st.st_size - (uint64_t)offset) {
        s = pz_fail(err, PZ_ERR_INPUT, "%s: external data \"%s\" has %lld bytes, the tensor "
                    "needs %zu at offset %lld (past the end of the file)", what, location,
                    (long long)st.st_size, nbytes, (long long)offset);
        goto out;
    }
    char *dst = pz_xmalloc(nbytes ? nbytes : 1);
    *out = dst;
    for (size_t done = 0; done < nbytes;) {
        ssize_t r = pread(fd, dst + done, nbytes - done, (off_t)(offset + (int64_t)done));
        if (r <= 0) {
            s = pz_fail(err, PZ_ERR_INPUT, "%s: reading external data \"%s\" failed", what, path);
            goto out;
        }
        done += (size_t)r;
    }
out:
    close(fd);
    return s;
}

/* A string tensor: string_data into one block (rt/pz_strings.h), nbytes
 * counting the pointers. An embedded NUL ends a string where it is read. */
static pz_status strings_from_proto(const Onnx__TensorProto *tp, const char *what,
                                    ir_tensor *out, pz_err *err)
{
    if (tp->has_raw_data || (tp->has_data_location &&
                             tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL))
        return pz_fail(err, PZ_ERR_INPUT, "%s: a string tensor holds its values in string_data "
                       "(raw_data and external data are not defined for strings)", what);
    size_t nbytes;
    if (ir_tensor_bytes(out, &nbytes, what, err)) return err->code;
    int64_t numel = ir_tensor_numel(out);
    if (check_count(what, tp->n_string_data, numel, err)) return err->code;
    const char **s = pz_xcalloc((size_t)(numel ? numel : 1), sizeof *s);
    size_t *len = pz_xcalloc((size_t)(numel ? numel : 1), sizeof *len);
    for (int64_t i = 0; i < numel; i++) {
        s[i] = (const char *)tp->string_data[i].data;
        len[i] = tp->string_data[i].len;
    }
    out->data = pz_xcheck(pz_strings_pack(numel, s, len), nbytes);
    out->nbytes = nbytes;
    free(s);
    free(len);
    return PZ_OK;
}

pz_status onnx_tensor_from_proto(Onnx__TensorProto *tp, const char *what, const char *model_dir,
                                 ir_tensor *out, pz_err *err)
{
    memset(out, 0, sizeof *out);
    if (tp->n_dims > IR_MAX_RANK)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: rank %zu is above the supported %d", what,
                       tp->n_dims, IR_MAX_RANK);
    out->rank = (int)tp->n_dims;
    for (size_t i = 0; i < tp->n_dims; i++) out->dims[i] = tp->dims[i];
    out->dtype = (ir_dtype)tp->data_type;
    if (tp->data_type == IR_STRING) return strings_from_proto(tp, what, out, err);
    if (!ir_dtype_supported(tp->data_type))
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: element type %s (%d) is not supported", what,
                       ir_dtype_name(tp->data_type), (int)tp->data_type);
    if (tp->segment)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: segmented tensors are not supported", what);
    size_t nbytes;
    if (ir_tensor_bytes(out, &nbytes, what, err)) return err->code;
    int64_t numel = ir_tensor_numel(out);
    int dt = tp->data_type;

    if (tp->has_data_location && tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        out->nbytes = nbytes;
        if (read_external(tp, what, model_dir, &out->data, nbytes, err)) {
            ir_tensor_free_data(out);
            return err->code;
        }
        return PZ_OK;
    }
    int packed = ir_dtype_file_bits(dt) > 0 && ir_dtype_file_bits(dt) < 8;
    if (packed && tp->has_data_location &&
        tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: external data of the packed type %s is not "
                       "supported", what, ir_dtype_name(dt));
    if (packed && tp->has_raw_data) {
        size_t need = file_bytes(dt, numel);
        if (tp->raw_data.len != need)
            return pz_fail(err, PZ_ERR_INPUT, "%s: raw_data has %zu bytes, its shape %s of %s "
                           "needs %zu (packed %d to a byte)", what, tp->raw_data.len,
                           ir_shape_str(out, (char[128]){0}, 128), ir_dtype_name(dt), need,
                           8 / ir_dtype_file_bits(dt));
        out->data = pz_xmalloc(nbytes ? nbytes : 1);
        out->nbytes = nbytes;
        unpack_small(dt, tp->raw_data.data, numel, out->data);
        return PZ_OK;
    }
    if (tp->has_raw_data) {
        if (tp->raw_data.len != nbytes)
            return pz_fail(err, PZ_ERR_INPUT, "%s: raw_data has %zu bytes, its shape %s of %s "
                           "needs %zu", what, tp->raw_data.len,
                           ir_shape_str(out, (char[128]){0}, 128), ir_dtype_name(dt), nbytes);
        /* Take the decoder's buffer instead of copying it: weights are big. */
        if (nbytes) {
            out->data = tp->raw_data.data;
            tp->raw_data.data = NULL;
            tp->raw_data.len = 0;
        } else {
            out->data = pz_xmalloc(1);
        }
        out->nbytes = nbytes;
        return PZ_OK;
    }
    /* Typed fields: check the count before allocating for the shape. */
    size_t have;
    switch (dt) {
    case IR_F32: have = tp->n_float_data; break;
    case IR_I64: have = tp->n_int64_data; break;
    case IR_F64: have = tp->n_double_data; break;
    case IR_U32: case IR_U64: have = tp->n_uint64_data; break;
    default: have = tp->n_int32_data; break;
    }
    if (packed) {
        /* int32_data holds the packed bytes, one per value */
        if (check_count(what, have, (int64_t)file_bytes(dt, numel), err)) return err->code;
        size_t nb = file_bytes(dt, numel);
        uint8_t *bytes = pz_xmalloc(nb ? nb : 1);
        for (size_t i = 0; i < nb; i++) bytes[i] = (uint8_t)tp->int32_data[i];
        out->data = pz_xmalloc(nbytes ? nbytes : 1);
        out->nbytes = nbytes;
        unpack_small(dt, bytes, numel, out->data);
        free(bytes);
        return PZ_OK;
    }
    if (check_count(what, have, numel, err)) return err->code;
    out->data = pz_xcalloc(nbytes ? nbytes : 1, 1);
    out->nbytes = nbytes;
    if (!nbytes) return PZ_OK;
    switch (dt) {
    case IR_F32: memcpy(out->data, tp->float_data, nbytes); break;
    case IR_I64: memcpy(out->data, tp->int64_data, nbytes); break;
    case IR_F64: memcpy(out->data, tp->double_data, nbytes); break;
    case IR_U32: case IR_U64:
        for (int64_t i = 0; i < numel; i++) ir_store_i64(out->data, dt, (size_t)i, (int64_t)tp->uint64_data[i]);
        break;
    case IR_F16: case IR_BF16: /* bits in int32_data */
        for (int64_t i = 0; i < numel; i++) {
            uint16_t h = (uint16_t)tp->int32_data[i];
            memcpy((char *)out->data + 2 * i, &h, 2);
        }
        break;
    case IR_F8E4M3FN: case IR_F8E4M3FNUZ: case IR_F8E5M2: case IR_F8E5M2FNUZ: case IR_F8E8M0:
        /* the 8-bit codes in int32_data */
        for (int64_t i = 0; i < numel; i++) ((uint8_t *)out->data)[i] = (uint8_t)tp->int32_data[i];
        break;
    default: /* int32, int16, int8, uint16, uint8, bool */
        for (int64_t i = 0; i < numel; i++) ir_store_i64(out->data, dt, (size_t)i, tp->int32_data[i]);
        break;
    }
    return PZ_OK;
}

/* A whole small file into memory. */
static pz_status slurp(const char *path, uint8_t **buf, size_t *len, pz_err *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return pz_fail(err, PZ_ERR_INPUT, "cannot open \"%s\": %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pz_fail(err, PZ_ERR_INPUT, "\"%s\" is not a regular file", path);
    }
    *len = (size_t)st.st_size;
    *buf = pz_xmalloc(*len ? *len : 1);
    for (size_t done = 0; done < *len;) {
        ssize_t r = read(fd, *buf + done, *len - done);
        if (r <= 0) {
            close(fd);
            free(*buf);
            return pz_fail(err, PZ_ERR_INPUT, "reading \"%s\" failed", path);
        }
        done += (size_t)r;
    }
    close(fd);
    return PZ_OK;
}

pz_status onnx_read_tensor_file(const char *path, ir_tensor *out, char **name, pz_err *err)
{
    uint8_t *buf = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    if (name) *name = NULL;
    if (slurp(path, &buf, &len, err)) return err->code;
    char what[512];
    snprintf(what, sizeof what, "tensor file \"%s\"", path);
    if (onnx_check_nesting(buf, len, &onnx__tensor_proto__descriptor, what, err)) {
        free(buf);
        return err->code;
    }
    Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, len, buf);
    free(buf);
    if (!tp)
        return pz_fail(err, PZ_ERR_INPUT, "\"%s\" is not a serialized onnx.TensorProto "
                       "(protobuf decoding failed)", path);
    pz_status s = onnx_tensor_from_proto(tp, what, NULL, out, err);
    if (!s && name) *name = pz_xstrdup(tp->name ? tp->name : "");
    onnx__tensor_proto__free_unpacked(tp, NULL);
    return s;
}

/* The tensors of a serialized SequenceProto (seq = 1) or OptionalProto: the
 * two share field numbers (1 name, 2 elem_type, 3 tensors, 5 a sequence);
 * appends to *ts. *len: onnx_load_opts.given_len's entry. */
static pz_status read_container(const uint8_t *p, const uint8_t *end, int seq, const char *path,
                                ir_tensor **ts, int *n, int *len, pz_err *err)
{
    *len = seq ? 0 : -2;
    while (p < end) {
        uint64_t key, v;
        if (!onnx_wire_varint(&p, end, &key)) goto bad;
        unsigned wire = (unsigned)(key & 7), field = (unsigned)(key >> 3);
        if (wire == 0) {
            if (!onnx_wire_varint(&p, end, &v)) goto bad;
            continue;
        }
        if (wire != 2 || !onnx_wire_varint(&p, end, &v) || v > (uint64_t)(end - p)) goto bad;
        const uint8_t *body = p;
        p += v;
        if (field == 5 && !seq) {
            if (read_container(body, p, 1, path, ts, n, len, err)) return err->code;
            continue;
        }
        if (field != 3) {
            if (field == 1) continue;   /* the name */
            if (field == 8 || field == 9)   /* a TensorProto's name or raw_data */
                return pz_fail(err, PZ_ERR_INPUT, "\"%s\" holds a tensor (TensorProto): the "
                               "model's input is %s, given as a %s", path,
                               seq ? "a sequence" : "an optional",
                               seq ? "SequenceProto" : "OptionalProto");
            return pz_fail(err, PZ_ERR_UNSUPPORTED, "\"%s\": the model's input is %s, and "
                           "this file is not one of tensors (field %u: a TensorProto, or a "
                           "sequence of maps or sequences, which are not supported)", path,
                           seq ? "a sequence" : "an optional", field);
        }
        char what[512];
        snprintf(what, sizeof what, "element %d of \"%s\"", *n, path);
        Onnx__TensorProto *tp = onnx__tensor_proto__unpack(NULL, (size_t)v, body);
        if (!tp) goto bad;
        *ts = pz_xrealloc(*ts, (size_t)(*n + 1) * sizeof **ts);
        memset(&(*ts)[*n], 0, sizeof **ts);
        pz_status s = onnx_tensor_from_proto(tp, what, NULL, &(*ts)[*n], err);
        onnx__tensor_proto__free_unpacked(tp, NULL);
        if (s) return s;
        (*n)++;
        *len = seq ? *len + 1 : -1;
    }
    return PZ_OK;
bad:
    return pz_fail(err, PZ_ERR_INPUT, "\"%s\" is not a serialized onnx.%s (protobuf decoding "
                   "failed)", path, seq ? "SequenceProto" : "OptionalProto");
}

pz_status onnx_read_value_file(const char *path, int kind, ir_tensor **ts, int *n, int *len,
                               pz_err *err)
{
    *ts = NULL;
    *n = 0;
    if (kind == 0) {
        *ts = pz_xcalloc(1, sizeof **ts);
        *len = -1;
        if (onnx_read_tensor_file(path, *ts, NULL, err)) return err->code;
        *n = 1;
        return PZ_OK;
    }
    uint8_t *buf = NULL;
    size_t size = 0;
    if (slurp(path, &buf, &size, err)) return err->code;
    pz_status s = read_container(buf, buf + size, kind == 1, path, ts, n, len, err);
    free(buf);
    return s;
}

/* protobuf-c output sink that appends to a FILE*. */
typedef struct {
    ProtobufCBuffer base;
    FILE *f;
    int failed;
} file_sink;

static void sink_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    file_sink *s = (file_sink *)b;
    if (!s->failed && fwrite(data, 1, len, s->f) != len) s->failed = 1;
}

pz_status onnx_pack_to_file(const ProtobufCMessage *msg, const char *path, pz_err *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()) >= sizeof tmp)
        return pz_fail(err, PZ_ERR_INPUT, "output path \"%s\" is too long", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return pz_fail(err, PZ_ERR_INPUT, "cannot write \"%s\": %s", path, strerror(errno));
    file_sink sink = {{sink_append}, f, 0};
    protobuf_c_message_pack_to_buffer(msg, &sink.base);
    if (fclose(f) != 0) sink.failed = 1;
    if (sink.failed || rename(tmp, path) != 0) {
        unlink(tmp);
        return pz_fail(err, PZ_ERR_INPUT, "writing \"%s\" failed: %s", path, strerror(errno));
    }
    return PZ_OK;
}

/* (raw_data points at t's data: the packed types go through
 * onnx_write_tensor_file, which packs them first.) */
void onnx_tensor_to_proto(const ir_tensor *t, const char *name, Onnx__TensorProto *tp)
{
    onnx__tensor_proto__init(tp);
    tp->n_dims = (size_t)t->rank;
    tp->dims = (int64_t *)t->dims;
    tp->has_data_type = 1;
    tp->data_type = t->dtype;
    tp->name = (char *)(name ? name : "");
    tp->has_raw_data = 1;
    tp->raw_data.len = t->nbytes;
    tp->raw_data.data = t->data;
}

/* tp as a view of t, with the sub-byte types packed into *packed and a
 * string tensor's string_data array made there (NULL when nothing was made;
 * the caller frees it). */
static void tensor_proto_packed(const ir_tensor *t, const char *name, Onnx__TensorProto *tp,
                                uint8_t **packed)
{
    onnx_tensor_to_proto(t, name, tp);
    *packed = NULL;
    if (t->dtype == IR_STRING) {
        int64_t numel = ir_tensor_numel(t);
        ProtobufCBinaryData *sd = pz_xcalloc((size_t)(numel ? numel : 1), sizeof *sd);
        for (int64_t i = 0; i < numel; i++) {
            const char *e = pz_str_at(t->data, i);
            sd[i].data = (uint8_t *)e;
            sd[i].len = strlen(e);
        }
        tp->has_raw_data = 0;
        tp->raw_data.len = 0;
        tp->raw_data.data = NULL;
        tp->n_string_data = (size_t)numel;
        tp->string_data = sd;
        *packed = (uint8_t *)sd;
        return;
    }
    int bits = ir_dtype_file_bits(t->dtype);
    if (bits == 0 || bits >= 8) return;
    int64_t numel = ir_tensor_numel(t);
    size_t nb = file_bytes(t->dtype, numel);
    *packed = pz_xmalloc(nb ? nb : 1);
    pack_small(t->dtype, t->data, numel, *packed);
    tp->raw_data.len = nb;
    tp->raw_data.data = *packed;
}

pz_status onnx_write_tensor_file(const char *path, const ir_tensor *t, const char *name,
                                 pz_err *err)
{
    Onnx__TensorProto tp;
    uint8_t *packed;
    tensor_proto_packed(t, name, &tp, &packed);
    pz_status s = onnx_pack_to_file(&tp.base, path, err);
    free(packed);
    return s;
}

static void put_varint(FILE *f, uint64_t v)
{
    for (; v >= 0x80; v >>= 7) fputc((int)(v & 0x7f) | 0x80, f);
    fputc((int)v, f);
}

/* A length-delimited field: key, length, bytes. */
static void put_bytes(FILE *f, unsigned field, const void *p, size_t n)
{
    put_varint(f, (uint64_t)field << 3 | 2);
    put_varint(f, n);
    fwrite(p, 1, n, f);
}

/* Tensor t as the TensorProto of field `field`. */
static void put_tensor(FILE *f, unsigned field, const ir_tensor *t)
{
    Onnx__TensorProto tp;
    uint8_t *packed;
    tensor_proto_packed(t, "", &tp, &packed);
    size_t sz = onnx__tensor_proto__get_packed_size(&tp);
    uint8_t *buf = pz_xmalloc(sz ? sz : 1);
    onnx__tensor_proto__pack(&tp, buf);
    put_bytes(f, field, buf, sz);
    free(buf);
    free(packed);
}

/* SequenceProto: name 1, elem_type 2 (TENSOR = 1), tensor_values 3. */
static void put_sequence(FILE *f, const char *name, const ir_tensor *ts, int n)
{
    put_bytes(f, 1, name, strlen(name));
    put_varint(f, 2 << 3);
    put_varint(f, 1);
    for (int k = 0; k < n; k++) put_tensor(f, 3, &ts[k]);
}

pz_status onnx_write_value_file(const char *path, int kind, int inner, const char *name,
                                const ir_tensor *ts, int n, pz_err *err)
{
    size_t len = strlen(path) + 8;
    char *tmp = pz_xmalloc(len);
    snprintf(tmp, len, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        free(tmp);
        return pz_fail(err, PZ_ERR_INPUT, "cannot write \"%s\": %s", path, strerror(errno));
    }
    if (kind == 1) {
        put_sequence(f, name, ts, n);
    } else {
        /* OptionalProto: name 1, elem_type 2 (TENSOR 1, SEQUENCE 3; none when
         * empty), tensor_value 3, sequence_value 5 */
        put_bytes(f, 1, name, strlen(name));
        if (inner == 1 || n) {
            put_varint(f, 2 << 3);
            put_varint(f, inner == 1 ? 3 : 1);
        }
        if (inner == 1) {
            char *mem = NULL;
            size_t sz = 0;
            FILE *m = open_memstream(&mem, &sz);
            put_sequence(m, name, ts, n);
            fclose(m);
            put_bytes(f, 5, mem, sz);
            free(mem);
        } else if (n) {
            put_tensor(f, 3, &ts[0]);
        }
    }
    int bad = ferror(f) | fclose(f);
    if (bad || rename(tmp, path)) {
        remove(tmp);
        free(tmp);
        return pz_fail(err, PZ_ERR_INPUT, "cannot write \"%s\": %s", path, strerror(errno));
    }
    free(tmp);
    return PZ_OK;
}
