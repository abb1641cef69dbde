/* svg.h - minimal SVG charts for `characterize` and `bench`: x/y plots with
 * several series (lines and/or points), and grouped bar charts. The text is
 * built in memory and written atomically. */
#ifndef PZ_LAB_SVG_H
#define PZ_LAB_SVG_H

#include "../ir/status.h"

typedef struct {
    const char *name;
    const double *x, *y;
    int n;
    int lines;          /* 1: join the points */
} svg_series;

typedef struct {
    const char *title, *xlabel, *ylabel;
    int log_x;          /* x axis in log10 */
    double vline_x;     /* a dashed vertical marker at this x (NAN: none) */
    const char *vline_label;
} svg_plot;

pz_status svg_write_plot(const char *path, const svg_plot *p, const svg_series *s, int n_series,
                         pz_err *err);

/* Bars: groups (e.g. networks) x series (e.g. strategies); v[g * n_series + s]. */
pz_status svg_write_bars(const char *path, const char *title, const char *ylabel,
                         const char *const *groups, int n_groups, const char *const *series,
                         int n_series, const double *v, pz_err *err);
/* The same with a caption under the chart (may be NULL), cut into lines at
 * spaces: what the figure assumes. */
pz_status svg_write_bars_caption(const char *path, const char *title, const char *ylabel,
                                 const char *caption, const char *const *groups, int n_groups,
                                 const char *const *series, int n_series, const double *v,
                                 pz_err *err);

#endif
