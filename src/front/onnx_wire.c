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

/* Reads a varint at *p (< end); 0 when it is cut short or longer than 10 bytes. */
static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
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
        if (!read_varint(&p, end, &key)) return deepest;
        unsigned wire = (unsigned)(key & 7);
        uint64_t num = key >> 3;
        switch (wire) {
        case 0:
            if (!read_varint(&p, end, &n)) return deepest;
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
            if (!read_varint(&p, end, &n) || n > (uint64_t)(end - p)) return deepest;
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
