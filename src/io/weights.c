/* weights.c - NAME.weights, mapped read-only (the layout is in pz_io.h). */
#include "pz_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct pz_weights {
    const uint8_t *map;
    size_t size;
    int borrowed;               /* pz_weights_open_mem: the caller's bytes, not unmapped */
    int count;
    pz_weight *entries;
    int64_t *dims;              /* count * PZ_MAX_RANK */
    char **names;
};

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

static uint64_t rd(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void pz_weights_close(pz_weights *w)
{
    if (!w) return;
    if (w->map && w->size && !w->borrowed) munmap((void *)w->map, w->size);
    if (w->names)
        for (int i = 0; i < w->count; i++) free(w->names[i]);
    free(w->names);
    free(w->entries);
    free(w->dims);
    free(w);
}

/* Checks the index and fills the entries; returns non-zero with err set. */
static int read_index(pz_weights *w, const char *path, uint64_t id, char *err, size_t n)
{
    const uint8_t *h = w->map;
    if (w->size < PZ_WEIGHTS_HEADER || memcmp(h, PZ_WEIGHTS_MAGIC, 8))
        return fail(err, n, "%s: not a paleozoic weights file (bad magic)", path);
    if (rd(h + 8, 4) != PZ_WEIGHTS_VERSION)
        return fail(err, n, "%s: weights file version %u, expected %u", path,
                    (unsigned)rd(h + 8, 4), PZ_WEIGHTS_VERSION);
    uint64_t count = rd(h + 12, 4), fid = rd(h + 16, 8), ioff = rd(h + 24, 8),
             ibytes = rd(h + 32, 8), fbytes = rd(h + 40, 8);
    if (fbytes != w->size || ioff > w->size || ibytes > w->size - ioff || count > ibytes / 96 + 1)
        return fail(err, n, "%s: truncated or corrupt weights file (%zu bytes, header says %llu)",
                    path, w->size, (unsigned long long)fbytes);
    if (pz_fnv1a(PZ_FNV_START, h + ioff, ibytes) != fid)
        return fail(err, n, "%s: the weights index is corrupt (checksum)", path);
    if (id && fid != id)
        return fail(err, n, "%s: these weights belong to another model or batch size "
                    "(id %016llx, the program wants %016llx): compile again", path,
                    (unsigned long long)fid, (unsigned long long)id);
    w->count = (int)count;
    w->entries = calloc(count ? count : 1, sizeof *w->entries);
    w->dims = calloc((count ? count : 1) * PZ_MAX_RANK, sizeof *w->dims);
    w->names = calloc(count ? count : 1, sizeof *w->names);
    if (!w->entries || !w->dims || !w->names) return fail(err, n, "%s: out of memory", path);
    const uint8_t *p = h + ioff, *end = p + ibytes;
    for (uint64_t i = 0; i < count; i++) {
        if (end - p < 8 + 8 + 4 + 4 + 8 * PZ_MAX_RANK + 4) goto corrupt;
        uint64_t off = rd(p, 8), nbytes = rd(p + 8, 8);
        int dtype = (int)rd(p + 16, 4), rank = (int)rd(p + 20, 4);
        int64_t *dims = w->dims + i * PZ_MAX_RANK;
        for (int d = 0; d < PZ_MAX_RANK; d++) dims[d] = (int64_t)rd(p + 24 + 8 * d, 8);
        uint64_t nlen = rd(p + 24 + 8 * PZ_MAX_RANK, 4);
        p += 28 + 8 * PZ_MAX_RANK;
        if ((uint64_t)(end - p) < nlen) goto corrupt;
        if (off % PZ_WEIGHTS_ALIGN || off > ioff || nbytes > ioff - off || rank < 0 ||
            rank > PZ_MAX_RANK || !pz_dtype_size(dtype))
            goto corrupt;
        uint64_t numel = 1;
        for (int d = 0; d < rank; d++) {
            if (dims[d] < 0) goto corrupt;
            numel *= (uint64_t)dims[d];
        }
        if (numel * pz_dtype_size(dtype) != nbytes) goto corrupt;
        w->names[i] = malloc(nlen + 1);
        if (!w->names[i]) return fail(err, n, "%s: out of memory", path);
        memcpy(w->names[i], p, nlen);
        w->names[i][nlen] = 0;
        p += (nlen + 7) / 8 * 8;
        if (p > end) goto corrupt;
        w->entries[i] = (pz_weight){w->names[i], dtype, rank, dims, h + off, nbytes};
    }
    return 0;
corrupt:
    return fail(err, n, "%s: corrupt weights index", path);
}

pz_weights *pz_weights_open(const char *path, uint64_t id, char *err, size_t n)
{
    pz_weights *w = calloc(1, sizeof *w);
    if (!w) return fail(err, n, "%s: out of memory", path), NULL;
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) {
        fail(err, n, "%s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        free(w);
        return NULL;
    }
    w->size = (size_t)st.st_size;
    void *m = w->size ? mmap(NULL, w->size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (m == MAP_FAILED) {
        fail(err, n, "%s: cannot map %zu bytes: %s", path, w->size,
             w->size ? strerror(errno) : "empty file");
        w->size = 0;
        pz_weights_close(w);
        return NULL;
    }
    w->map = m;
    if (read_index(w, path, id, err, n)) {
        pz_weights_close(w);
        return NULL;
    }
    return w;
}

int pz_weights_count(const pz_weights *w)
{
    return w->count;
}

int pz_weights_get(const pz_weights *w, int i, pz_weight *out)
{
    if (i < 0 || i >= w->count) return 1;
    *out = w->entries[i];
    return 0;
}

const void *pz_weights_data(const pz_weights *w, int i)
{
    return i >= 0 && i < w->count ? w->entries[i].data : NULL;
}

int pz_weights_declare(const pz_weights *w, pz_net *net, int *ids, char *err, size_t n)
{
    for (int i = 0; i < w->count; i++) {
        const pz_weight *e = &w->entries[i];
        ids[i] = pz_net_const(net, e->name, e->dtype, e->rank, e->dims, e->data);
        if (i == 0) pz_net_consts_mapped(net, 1);   /* they live in our read-only mapping */
        if (ids[i] < 0) return fail(err, n, "weights entry %d (\"%s\"): refused by the runtime", i, e->name), -1;
    }
    return 0;
}

pz_weights *pz_weights_open_mem(const void *data, size_t size, const char *label, uint64_t id,
                                char *err, size_t n)
{
    pz_weights *w = calloc(1, sizeof *w);
    if (!w) return fail(err, n, "%s: out of memory", label), NULL;
    if (!data || (uintptr_t)data % PZ_WEIGHTS_ALIGN) {
        fail(err, n, "%s: the weights are not %u-byte aligned in memory", label, PZ_WEIGHTS_ALIGN);
        free(w);
        return NULL;
    }
    w->map = data;
    w->size = size;
    w->borrowed = 1;
    if (read_index(w, label, id, err, n)) {
        pz_weights_close(w);
        return NULL;
    }
    return w;
}
