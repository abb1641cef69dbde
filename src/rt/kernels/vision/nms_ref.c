/* nms_ref.c - reference NonMaxSuppression, as ONNX Runtime computes it: per
 * batch and class, the boxes whose score is above score_threshold (when
 * given) by descending score (ties: lower index first), each kept unless
 * its IoU with one kept before is above iou_threshold, at most max_out.
 * Corners may come in either order (min/max); a box pair with no overlap
 * or no union area is never suppressed. */
#include <string.h>

#include "rt/kernels/kernels.h"

typedef struct {
    float y1, x1, y2, x2;
} corners;

static corners box_at(const float *b, int center)
{
    corners c;
    if (center) {   /* [xc, yc, w, h] */
        c.x1 = b[0] - b[2] / 2, c.x2 = b[0] + b[2] / 2;
        c.y1 = b[1] - b[3] / 2, c.y2 = b[1] + b[3] / 2;
    } else {
        c.y1 = b[0] < b[2] ? b[0] : b[2], c.y2 = b[0] < b[2] ? b[2] : b[0];
        c.x1 = b[1] < b[3] ? b[1] : b[3], c.x2 = b[1] < b[3] ? b[3] : b[1];
    }
    return c;
}

static int suppresses(corners a, corners b, float iou_th)
{
    float iy1 = a.y1 > b.y1 ? a.y1 : b.y1, iy2 = a.y2 < b.y2 ? a.y2 : b.y2;
    float ix1 = a.x1 > b.x1 ? a.x1 : b.x1, ix2 = a.x2 < b.x2 ? a.x2 : b.x2;
    float inter = (iy2 - iy1 > 0 ? iy2 - iy1 : 0) * (ix2 - ix1 > 0 ? ix2 - ix1 : 0);
    if (inter <= 0) return 0;
    float ua = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
    if (ua <= 0) return 0;
    return inter / ua > iou_th;
}

/* Stable merge sort of v by descending s[v]: equal scores keep index order. */
static void sort_desc(const float *s, int64_t *v, int64_t *tmp, int64_t len)
{
    for (int64_t w = 1; w < len; w *= 2) {
        for (int64_t lo = 0; lo < len; lo += 2 * w) {
            int64_t mid = lo + w < len ? lo + w : len, hi = lo + 2 * w < len ? lo + 2 * w : len;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi) tmp[k++] = s[v[j]] > s[v[i]] ? v[j++] : v[i++];
            while (i < mid) tmp[k++] = v[i++];
            while (j < hi) tmp[k++] = v[j++];
        }
        memcpy(v, tmp, (size_t)len * sizeof *v);
    }
}

int64_t pz_f32_nms__ref(const pz_nms_params *p, int64_t nb, int64_t nc, int64_t nbox,
                        const float *boxes, const float *scores, float iou_th, float score_th,
                        int has_score_th, int64_t *sel, int64_t *scratch)
{
    if (p->max_out <= 0 || nbox == 0) return 0;   /* scratch may be NULL */
    int64_t *cand = scratch, *tmp = scratch + nbox, *kept = scratch + 2 * nbox, count = 0;
    for (int64_t b = 0; b < nb; b++) {
        const float *bx = boxes + b * nbox * 4;
        for (int64_t c = 0; c < nc; c++) {
            const float *sc = scores + (b * nc + c) * nbox;
            int64_t m = 0, nk = 0;
            for (int64_t i = 0; i < nbox; i++)
                if (!has_score_th || sc[i] > score_th) cand[m++] = i;
            sort_desc(sc, cand, tmp, m);
            for (int64_t k = 0; k < m && nk < p->max_out; k++) {
                corners a = box_at(bx + cand[k] * 4, p->center_point_box);
                int drop = 0;
                for (int64_t j = 0; j < nk && !drop; j++)
                    drop = suppresses(a, box_at(bx + kept[j] * 4, p->center_point_box), iou_th);
                if (drop) continue;
                kept[nk++] = cand[k];
                sel[count * 3] = b, sel[count * 3 + 1] = c, sel[count * 3 + 2] = cand[k];
                count++;
            }
        }
    }
    return count;
}
