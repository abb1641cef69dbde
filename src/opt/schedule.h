/* schedule.h - schedule files: every knob of every F-Block, as JSON (the
 * format is documented in README.md, "Schedule files").
 *
 *   sched s;
 *   if (sched_parse(text, len, "s.json", &s, &err)) ...   // syntax and schema
 *   if (sched_apply(&s, model, max_mp, &err)) ...         // against a model
 *   sched_free(&s);
 *   sched_write_file(model, "strategy-name", "out.json", &err);  // atomic
 *
 * Every error names the file, and the block (index and layer names) and key
 * at fault.
 */
#ifndef PZ_OPT_SCHEDULE_H
#define PZ_OPT_SCHEDULE_H

#include "../ir/model.h"

typedef struct {
    int first, count;          /* layers [first, first + count) */
    int mp;
    ir_split split;
    int strip;                 /* 0 = auto */
    ir_precision precision;
} sched_block;

typedef struct {
    char *model;               /* graph name it was made for (may be NULL) */
    char *strategy;            /* who made it (may be NULL) */
    int n_layers;              /* layer count it was made for (-1: not stated) */
    sched_block *blocks;
    int n_blocks;
} sched;

pz_status sched_parse(const char *text, size_t len, const char *fname, sched *out, pz_err *err);
pz_status sched_load_file(const char *path, sched *out, pz_err *err);
/* Checks s against m (layer count, partition, MP in [1, max_mp], strip) and
 * sets m's blocks and knobs. */
pz_status sched_apply(const sched *s, ir_model *m, int max_mp, pz_err *err);
void sched_free(sched *s);
/* Writes m's blocks and knobs as a schedule file (temporary name, renamed). */
pz_status sched_write_file(const ir_model *m, const char *strategy, const char *path,
                           pz_err *err);

#endif
