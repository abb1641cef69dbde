/* schedule.c - schedule files (see schedule.h). Placeholder until the
 * schedule work lands: every entry point refuses clearly. */
#include "schedule.h"

pz_status sched_parse(const char *text, size_t len, const char *fname, sched *out, pz_err *err)
{
    (void)text;
    (void)len;
    (void)out;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: schedule files are not implemented yet", fname);
}

pz_status sched_load_file(const char *path, sched *out, pz_err *err)
{
    (void)out;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: schedule files are not implemented yet", path);
}

pz_status sched_apply(const sched *s, ir_model *m, int max_mp, pz_err *err)
{
    (void)s;
    (void)m;
    (void)max_mp;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "schedule files are not implemented yet");
}

void sched_free(sched *s)
{
    (void)s;
}

pz_status sched_write_file(const ir_model *m, const char *strategy, const char *path, pz_err *err)
{
    (void)m;
    (void)strategy;
    return pz_fail(err, PZ_ERR_UNSUPPORTED, "%s: schedule files are not implemented yet", path);
}
