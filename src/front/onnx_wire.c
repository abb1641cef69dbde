/* onnx_wire.c - a check of the protobuf wire format before decoding: how
 * deeply messages nest.
 *
 * protobuf-c decodes a message inside a message by calling itself, with no
 * limit. ONNX messages can nest without end (a graph holds nodes, a node
 * holds attributes, an attribute holds a graph; a sequence type holds a
 * type), so a file of a few hundred kilobytes can nest 100000 levels deep and
 * overflow the stack inside the decoder. This walks the bytes first, with
 * protobuf-c's own descriptors telling which fields are messages, and refuses
 * nesting deeper than ONNX_MAX_NESTING levels (Google's protobuf library
 * refuses beyond 100 as well).
 *
 * The walk only counts depth: a malformed byte sequence ends it quietly and
 * is left to the decoder to report. It reads every byte at most once per
 * level it lies in, and its own recursion stops at the limit. */
#include "onnx_internal.h"

#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads a varint at *p (< end); 0 when it is cut short or longer than 10 bytes. */
int onnx_wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t x = 0;
    for (int shift = 0; shift < 70 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 63);
        if (!(b & 0x80)) {
            *v = x;
            return 1;
        }
    }
    return 0;
}

/* Returns the depth reached below this message (capped at limit + 1). */
static int walk(const uint8_t *p, const uint8_t *end, const ProtobufCMessageDescriptor *desc,
                int depth, int limit)
{
    int deepest = depth;
    while (p < end) {
        uint64_t key, n;
        if (!onnx_wire_varint(&p, end, &key)) return deepest;
        unsigned wire = (unsigned)(key & 7);
        uint64_t num = key >> 3;
        switch (wire) {
        case 0:
            if (!onnx_wire_varint(&p, end, &n)) return deepest;
            break;
        case 1:
            if (end - p < 8) return deepest;
            p += 8;
            break;
        case 5:
            if (end - p < 4) return deepest;
            p += 4;
            break;
        case 2: {
            if (!onnx_wire_varint(&p, end, &n) || n > (uint64_t)(end - p)) return deepest;
            const ProtobufCFieldDescriptor *f =
                num <= 0x1fffffff ? protobuf_c_message_descriptor_get_field(desc, (unsigned)num)
                                  : NULL;
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                if (depth + 1 > limit) return depth + 1;
                int d = walk(p, p + n, f->descriptor, depth + 1, limit);
                if (d > deepest) deepest = d;
                if (deepest > limit) return deepest;
            }
            p += n;
            break;
        }
        default: /* groups (3, 4) and invalid wire types: the decoder refuses them */
            return deepest;
        }
    }
    return deepest;
}

pz_status onnx_check_nesting(const void *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                             const char *what, pz_err *err)
{
    const uint8_t *p = buf;
    if (walk(p, p + len, desc, 1, ONNX_MAX_NESTING) > ONNX_MAX_NESTING)
        return pz_fail(err, PZ_ERR_INPUT, "%s: its protobuf messages nest more than %d levels "
                       "deep (a graph inside a node inside a graph ..., or a type inside a "
                       "type ...)", what, ONNX_MAX_NESTING);
    return PZ_OK;
}

/* The wire fields this walk reads: ModelProto.graph 7; GraphProto.input 11,
 * initializer 5; ValueInfoProto.name 1, type 2; TensorProto.name 8;
 * TypeProto.sequence_type 4, optional_type 9. */
typedef struct {
    const uint8_t *p;
    size_t n;
} wire_span;

/* The first length-delimited field `field` of message [p, end) at or after
 * *at; advances *at past it. 0 when there is none. */
static int next_field(const uint8_t **at, const uint8_t *end, uint64_t field, wire_span *out)
{
    const uint8_t *p = *at;
    while (p < end) {
        uint64_t key, n;
        if (!onnx_wire_varint(&p, end, &key)) return 0;
        switch (key & 7) {
        case 0: if (!onnx_wire_varint(&p, end, &n)) return 0; break;
        case 1: if (end - p < 8) return 0; p += 8; break;
        case 5: if (end - p < 4) return 0; p += 4; break;
        case 2:
            if (!onnx_wire_varint(&p, end, &n) || n > (uint64_t)(end - p)) return 0;
            if (key >> 3 == field) {
                out->p = p;
                out->n = (size_t)n;
                *at = p + n;
                return 1;
            }
            p += n;
            break;
        default: return 0;
        }
    }
    return 0;
}

static int span_is(wire_span a, wire_span b)
{
    return a.n == b.n && !memcmp(a.p, b.p, a.n);
}

static int input_kinds(const void *model, size_t len, int *kinds, int max)
{
    const uint8_t *at = model, *end = at + len;
    wire_span graph, in, init, name, iname, type, t;
    if (!next_field(&at, end, 7, &graph)) return 0;
    int n = 0;
    const uint8_t *gi = graph.p, *gend = graph.p + graph.n;
    while (n < max && next_field(&gi, gend, 11, &in)) {
        const uint8_t *q = in.p;
        name.n = 0;
        next_field(&q, in.p + in.n, 1, &name);
        /* an input that is also an initializer is a constant, not given */
        int is_init = 0;
        for (const uint8_t *ii = graph.p; !is_init && next_field(&ii, gend, 5, &init);) {
            const uint8_t *r = init.p;
            is_init = next_field(&r, init.p + init.n, 8, &iname) && span_is(iname, name);
        }
        if (is_init) continue;
        int kind = 0;
        q = in.p;
        if (next_field(&q, in.p + in.n, 2, &type)) {
            const uint8_t *r = type.p;
            if (next_field(&r, type.p + type.n, 4, &t)) kind = 1;
            r = type.p;
            if (next_field(&r, type.p + type.n, 9, &t)) kind = 2;
        }
        kinds[n++] = kind;
    }
    return n;
}

int onnx_input_kinds(const char *path, int *kinds, int max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    int n = 0;
    if (!fstat(fd, &st) && st.st_size > 0) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map != MAP_FAILED) {
            n = input_kinds(map, (size_t)st.st_size, kinds, max);
            munmap(map, (size_t)st.st_size);
        }
    }
    close(fd);
    return n;
}
