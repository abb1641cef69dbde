/* study_plan.c - what a characterize study times and for how long: the MP
 * list and the time limit, shared by the study (characterize.c) and the
 * messages that announce one (profile.c, cmd_characterize.c). */
#include "characterize.h"

/* The MPs a study on `cores` times: every count up to 8 cores, then the
 * DLFusion list, then the core count. Returns how many (<= LAB_STUDY_MAX_MP). */
int lab_study_mps(int cores, int *mp)
{
    static const int BIG[] = {12, 16, 24, 32};
    int n = 0;
    for (int p = 1; p <= cores && p <= 8; p++) mp[n++] = p;
    for (size_t i = 0; i < PZ_ARRAY_LEN(BIG); i++)
        if (BIG[i] < cores && n < LAB_STUDY_MAX_MP - 1) mp[n++] = BIG[i];
    if (mp[n - 1] != cores) mp[n++] = cores;
    return n;
}

/* The study's time limit: 9, 100 or 1080 s for the two MPs of a 2-core
 * machine, and in proportion to the MPs beyond that (every point is timed
 * at each MP, each timing at least min_time): at 16 cores (10 MPs) a fixed
 * 9 s left 68 of the default study's points out and the MP model came out
 * "every layer at MP 16". */
double lab_study_seconds(int level, int cores)
{
    int mp[LAB_STUDY_MAX_MP], n = lab_study_mps(cores < 1 ? 1 : cores, mp);
    double base = level <= 0 ? 9 : level == 1 ? 100 : 1080;
    return base * (n > 2 ? n / 2.0 : 1.0);
}
