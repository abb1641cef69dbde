/* svg.c - minimal SVG charts (see svg.h). */
#include "svg.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "../gen/text.h"
#include "lab.h"

/* Text from the outside world (model and layer names) escaped for XML. */
static void put_text(gen_text *b, const char *t)
{
    for (; t && *t; t++) {
        if (*t == '<') gt_printf(b, "&lt;");
        else if (*t == '>') gt_printf(b, "&gt;");
        else if (*t == '&') gt_printf(b, "&amp;");
        else if ((unsigned char)*t < 0x20) gt_printf(b, " ");
        else gt_printf(b, "%c", *t);
    }
}

static const char *COLORS[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

enum { W = 720, H = 440, L = 70, R = 170, T = 40, B = 55 };

static void header(gen_text *b, const char *title, int height)
{
    gt_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
        "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, height);
    gt_printf(b, "<text x=\"%d\" y=\"22\" font-size=\"15\" text-anchor=\"middle\">", (W - R + L) / 2);
    put_text(b, title);
    gt_printf(b, "</text>\n");
}

static double nice_step(double span)
{
    double raw = span / 5, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

pz_status svg_write_plot(const char *path, const svg_plot *p, const svg_series *s, int n_series,
                         pz_err *err)
{
    double x0 = INFINITY, x1 = -INFINITY, y0 = 0, y1 = -INFINITY;
    for (int k = 0; k < n_series; k++)
        for (int i = 0; i < s[k].n; i++) {
            double x = p->log_x ? log10(s[k].x[i]) : s[k].x[i], y = s[k].y[i];
            if (!isfinite(x) || !isfinite(y)) continue;
            if (x < x0) x0 = x;
            if (x > x1) x1 = x;
            if (y < y0) y0 = y;
            if (y > y1) y1 = y;
        }
    if (!isfinite(x0)) x0 = 0, x1 = 1;
    if (!isfinite(y1) || y1 <= y0) y1 = y0 + 1;
    if (x1 <= x0) x1 = x0 + 1;
    y1 *= 1.08;
    gen_text b = {0};
    gt_puts(&b, "");
    header(&b, p->title, H);
    int pw = W - L - R, ph = H - T - B;
#define PX(x) (L + ((x) - x0) / (x1 - x0) * pw)
#define PY(y) (T + ph - ((y) - y0) / (y1 - y0) * ph)
    gt_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n", L, T, pw, ph);
    double ys = nice_step(y1 - y0);
    for (double y = ceil(y0 / ys) * ys; y <= y1 + 1e-9; y += ys)
        gt_printf(&b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" "
            "y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L, L + pw, PY(y), PY(y), L - 5, PY(y) + 4, y);
    double xs = p->log_x ? 1 : nice_step(x1 - x0);
    if (p->log_x && x1 - x0 < 2) xs = 0.5;
    for (double x = ceil(x0 / xs) * xs; x <= x1 + 1e-9; x += xs) {
        gt_printf(&b, "<line y1=\"%d\" y2=\"%d\" x1=\"%.1f\" x2=\"%.1f\" stroke=\"#ddd\"/><text y=\"%d\" "
            "x=\"%.1f\" text-anchor=\"middle\">", T, T + ph, PX(x), PX(x), T + ph + 16, PX(x));
        if (p->log_x) gt_printf(&b, "1e%g", x);
        else gt_printf(&b, "%g", x);
        gt_printf(&b, "</text>\n");
    }
    gt_printf(&b, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", L + pw / 2, H - 12);
    put_text(&b, p->xlabel);
    gt_printf(&b, "</text>\n<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">", T + ph / 2);
    put_text(&b, p->ylabel);
    gt_printf(&b, "</text>\n");
    if (isfinite(p->vline_x)) {
        double x = p->log_x ? log10(p->vline_x) : p->vline_x;
        if (x >= x0 && x <= x1) {
            gt_printf(&b, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\" stroke=\"#900\" "
                "stroke-dasharray=\"5,4\"/><text x=\"%.1f\" y=\"%d\" fill=\"#900\">", PX(x), PX(x), T, T + ph, PX(x) + 4, T + 14);
            put_text(&b, p->vline_label);
            gt_printf(&b, "</text>\n");
        }
    }
    for (int k = 0; k < n_series; k++) {
        const char *col = COLORS[k % 10];
        if (s[k].lines) {
            gt_printf(&b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\" points=\"", col);
            for (int i = 0; i < s[k].n; i++) {
                double x = p->log_x ? log10(s[k].x[i]) : s[k].x[i];
                if (isfinite(x) && isfinite(s[k].y[i])) gt_printf(&b, "%.1f,%.1f ", PX(x), PY(s[k].y[i]));
            }
            gt_printf(&b, "\"/>\n");
        }
        for (int i = 0; i < s[k].n; i++) {
            double x = p->log_x ? log10(s[k].x[i]) : s[k].x[i];
            if (isfinite(x) && isfinite(s[k].y[i]))
                gt_printf(&b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", PX(x), PY(s[k].y[i]), col);
        }
        gt_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
            L + pw + 12, T + 6 + 18 * k, col, L + pw + 27, T + 15 + 18 * k);
        put_text(&b, s[k].name);
        gt_printf(&b, "</text>\n");
    }
#undef PX
#undef PY
    gt_printf(&b, "</svg>\n");
    pz_status st = lab_write_atomic(path, b.s, b.n, 0, err);
    free(b.s);
    return st;
}

/* A caption cut into lines of at most CAP_CHARS characters, at spaces. */
enum { CAP_CHARS = 118, CAP_LINE = 14 };

/* The length of the caption line starting at c[at] (len: strlen(c)). */
static size_t caption_cut(const char *c, size_t at, size_t len)
{
    size_t cut = len - at <= CAP_CHARS ? len - at : CAP_CHARS;
    if (at + cut < len)
        while (cut > CAP_CHARS / 2 && c[at + cut] != ' ') cut--;
    return cut;
}

/* Writes the caption's lines from y down (when b) and returns their count. */
static int put_caption(gen_text *b, const char *c, int y)
{
    int lines = 0;
    for (size_t len = c ? strlen(c) : 0, at = 0; at < len; lines++, y += CAP_LINE) {
        size_t cut = caption_cut(c, at, len);
        if (b) {
            char line[CAP_CHARS + 1];
            memcpy(line, c + at, cut);
            line[cut] = 0;
            gt_printf(b, "<text x=\"10\" y=\"%d\" font-size=\"10.5\" fill=\"#333\">", y);
            put_text(b, line);
            gt_printf(b, "</text>\n");
        }
        at += cut;
        while (at < len && c[at] == ' ') at++;
    }
    return lines;
}

pz_status svg_write_bars(const char *path, const char *title, const char *ylabel,
                         const char *const *groups, int n_groups, const char *const *series,
                         int n_series, const double *v, pz_err *err)
{
    return svg_write_bars_caption(path, title, ylabel, NULL, groups, n_groups, series, n_series,
                                  v, err);
}

pz_status svg_write_bars_caption(const char *path, const char *title, const char *ylabel,
                                 const char *caption, const char *const *groups, int n_groups,
                                 const char *const *series, int n_series, const double *v,
                                 pz_err *err)
{

    double y1 = 0;
    for (int i = 0; i < n_groups * n_series; i++)
        if (isfinite(v[i]) && v[i] > y1) y1 = v[i];
    if (y1 <= 0) y1 = 1;
    y1 *= 1.1;
    gen_text b = {0};
    gt_puts(&b, "");
    header(&b, title, H + put_caption(NULL, caption, 0) * CAP_LINE + (caption ? 6 : 0));
    int pw = W - L - R, ph = H - T - B;
    gt_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n", L, T, pw, ph);
    double ys = nice_step(y1);
    for (double y = 0; y <= y1 + 1e-9; y += ys) {
        double py = T + ph - y / y1 * ph;
        gt_printf(&b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"%d\" "
            "y=\"%.1f\" text-anchor=\"end\">%g</text>\n", L, L + pw, py, py, L - 5, py + 4, y);
    }
    double gw = (double)pw / (n_groups ? n_groups : 1), bw = gw * 0.8 / (n_series ? n_series : 1);
    for (int g = 0; g < n_groups; g++) {
        for (int s = 0; s < n_series; s++) {
            double val = v[g * n_series + s];
            if (!isfinite(val)) continue;
            double h = val / y1 * ph, x = L + g * gw + gw * 0.1 + s * bw;
            gt_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"><title>%.2f</title></rect>\n",
                x, T + ph - h, bw * 0.95, h, COLORS[s % 10], val);
        }
        gt_printf(&b, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", L + g * gw + gw / 2, T + ph + 16);
        put_text(&b, groups[g]);
        gt_printf(&b, "</text>\n");
    }
    /* the baseline (speed-up 1) */
    if (y1 > 1) gt_printf(&b, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#000\" stroke-dasharray=\"3,3\"/>\n",
                    L, L + pw, T + ph - 1 / y1 * ph, T + ph - 1 / y1 * ph);
    for (int s = 0; s < n_series; s++) {
        gt_printf(&b, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">",
            L + pw + 12, T + 6 + 18 * s, COLORS[s % 10], L + pw + 27, T + 15 + 18 * s);
        put_text(&b, series[s]);
        gt_printf(&b, "</text>\n");
    }
    gt_printf(&b, "<text transform=\"translate(16,%d) rotate(-90)\" text-anchor=\"middle\">", T + ph / 2);
    put_text(&b, ylabel);
    gt_printf(&b, "</text>\n");
    put_caption(&b, caption, H + 4);
    gt_printf(&b, "</svg>\n");
    pz_status st = lab_write_atomic(path, b.s, b.n, 0, err);
    free(b.s);
    return st;
}
