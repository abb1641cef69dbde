/* image_jp2.c - JPEG 2000 (a JP2 file or a bare J2K codestream) through
 * libopenjp2, read from memory: 1 (gray) or 3+ (RGB, alpha dropped)
 * components at full resolution; samples of more than 8 bits to their high
 * 8, signed ones shifted to unsigned. Errors come through the codec's own
 * handler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openjpeg-2.5/openjpeg.h>

#include "rt/kernels/image/image.h"

typedef struct {
    const uint8_t *buf;
    OPJ_UINT64 n, pos;
    char *err;
    size_t errsize;
    int failed;
} jp2_src;

static OPJ_SIZE_T jp2_read(void *dst, OPJ_SIZE_T len, void *user)
{
    jp2_src *s = user;
    if (s->pos >= s->n) return (OPJ_SIZE_T)-1;   /* the end of the stream */
    OPJ_UINT64 k = len < s->n - s->pos ? len : s->n - s->pos;
    memcpy(dst, s->buf + s->pos, (size_t)k);
    s->pos += k;
    return (OPJ_SIZE_T)k;
}

static OPJ_OFF_T jp2_skip(OPJ_OFF_T off, void *user)
{
    jp2_src *s = user;
    if (off < 0 && (OPJ_UINT64)-off > s->pos) off = -(OPJ_OFF_T)s->pos;
    if (off > 0 && (OPJ_UINT64)off > s->n - s->pos) off = (OPJ_OFF_T)(s->n - s->pos);
    s->pos += (OPJ_UINT64)off;
    return off;
}

static OPJ_BOOL jp2_seek(OPJ_OFF_T off, void *user)
{
    jp2_src *s = user;
    if (off < 0 || (OPJ_UINT64)off > s->n) return OPJ_FALSE;
    s->pos = (OPJ_UINT64)off;
    return OPJ_TRUE;
}

static void jp2_error(const char *msg, void *user)
{
    jp2_src *s = user;
    if (!s->failed) {
        char m[200];
        snprintf(m, sizeof m, "%s", msg);
        size_t k = strlen(m);
        if (k && m[k - 1] == '\n') m[k - 1] = 0;
        snprintf(s->err, s->errsize, "a JPEG 2000 image that libopenjp2 cannot decode: %s", m);
    }
    s->failed = 1;
}

static void jp2_quiet(const char *msg, void *user)
{
}

/* Sample v of a component of prec bits (signed when sgnd) as 8 bits. */
static uint8_t jp2_sample(OPJ_INT32 v, const opj_image_comp_t *c)
{
    if (c->sgnd) v += 1 << (c->prec - 1);
    if (c->prec > 8) v >>= c->prec - 8;
    else if (c->prec < 8) v <<= 8 - c->prec;
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

int pz_image_jp2(const uint8_t *buf, size_t n, int64_t max_pixels, pz_image *im, char *err,
                 size_t errsize)
{
    jp2_src src = {buf, n, 0, err, errsize, 0};
    int j2k = buf[0] == 0xff;
    opj_codec_t *codec = opj_create_decompress(j2k ? OPJ_CODEC_J2K : OPJ_CODEC_JP2);
    opj_stream_t *st = opj_stream_create(1 << 16, OPJ_TRUE);
    opj_image_t *img = NULL;
    int rc = 1;
    if (!codec || !st) {
        snprintf(err, errsize, "out of memory for libopenjp2");
        goto done;
    }
    opj_set_error_handler(codec, jp2_error, &src);
    opj_set_warning_handler(codec, jp2_quiet, &src);
    opj_set_info_handler(codec, jp2_quiet, &src);
    opj_stream_set_user_data(st, &src, NULL);
    opj_stream_set_user_data_length(st, n);
    opj_stream_set_read_function(st, jp2_read);
    opj_stream_set_skip_function(st, jp2_skip);
    opj_stream_set_seek_function(st, jp2_seek);
    opj_dparameters_t par;
    opj_set_default_decoder_parameters(&par);
    if (!opj_setup_decoder(codec, &par) || !opj_read_header(st, codec, &img)) {
        if (!src.failed) snprintf(err, errsize, "a JPEG 2000 image that libopenjp2 cannot read");
        goto done;
    }
    /* the size before the pixels are decoded (and allocated) */
    int64_t hh = (int64_t)img->y1 - img->y0, ww = (int64_t)img->x1 - img->x0;
    if (pz_image_check_size(hh, ww, max_pixels, err, errsize)) goto done;
    if (!opj_decode(codec, st, img) || !opj_end_decompress(codec, st)) {
        if (!src.failed) snprintf(err, errsize, "a JPEG 2000 image that libopenjp2 cannot decode");
        goto done;
    }
    if (img->numcomps < 1) {
        snprintf(err, errsize, "a JPEG 2000 image without components");
        goto done;
    }
    int nc = img->numcomps >= 3 ? 3 : 1;
    const opj_image_comp_t *c0 = &img->comps[0];
    for (int k = 0; k < nc; k++) {
        const opj_image_comp_t *c = &img->comps[k];
        if (!c->data || c->w != c0->w || c->h != c0->h || c->prec < 1 || c->prec > 31) {
            snprintf(err, errsize, "a JPEG 2000 image with subsampled or odd components: not read");
            goto done;
        }
    }
    if (pz_image_alloc(im, c0->h, c0->w, max_pixels, err, errsize)) goto done;
    for (size_t i = 0; i < (size_t)c0->w * c0->h; i++)
        for (int ch = 0; ch < 3; ch++) {
            const opj_image_comp_t *c = &img->comps[nc == 3 ? ch : 0];
            im->rgb[3 * i + ch] = jp2_sample(c->data[i], c);
        }
    rc = 0;
done:
    if (img) opj_image_destroy(img);
    if (st) opj_stream_destroy(st);
    if (codec) opj_destroy_codec(codec);
    return rc;
}
