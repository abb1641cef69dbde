/* progress.c - the progress line (progress.h). One process-wide stack of
 * tasks under a mutex; a detached ticker thread redraws while a task runs.
 * The estimate is linear: elapsed / done * (total - done), over the current
 * task's units (a unit of an oracle is one timed build, of quantize one
 * calibration input). */
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"

#define DEPTH 4

typedef struct {
    char what[48];
    char detail[96];
    int total, done;
    double t0;
} task;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static task stack[DEPTH];
static int depth;        /* tasks begun and not ended (may exceed DEPTH: not shown) */
static int drawn;        /* a line is on the terminal */
static int enabled = -1; /* -1: not decided yet */
static int ticker_on;
static double last_draw;

static int is_enabled(void)
{
    if (enabled < 0) {
        const char *e = getenv("PZ_PROGRESS");
        enabled = e && *e ? strcmp(e, "0") != 0 : isatty(STDERR_FILENO);
    }
    return enabled;
}

static void fmt_time(char *b, size_t n, double s)
{
    if (s < 0) s = 0;
    long t = (long)(s + 0.5);
    if (t >= 3600) snprintf(b, n, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
    else snprintf(b, n, "%ld:%02ld", t / 60, t % 60);
}

/* under mu: every task's name and count, outermost first ("best > timing 9
 * schedules 12/135"), the outermost task's elapsed time, and the time left
 * by the outermost task whose count has a total (its units are the coarsest,
 * so its estimate covers the inner ones). */
static void format_locked(char *buf, size_t size)
{
    buf[0] = 0;
    int n = depth < DEPTH ? depth : DEPTH;
    if (n <= 0) return;
    size_t used = 0;
    double now = util_now_s(), left = -1;
    for (int i = 0; i < n && used < size; i++) {
        const task *t = &stack[i];
        char count[32] = "";
        if (t->total > 0) snprintf(count, sizeof count, " %d/%d", t->done, t->total);
        else if (t->done > 0) snprintf(count, sizeof count, " %d", t->done);
        used += (size_t)snprintf(buf + used, size - used, "%s%s%s", i ? " > " : "", t->what, count);
        if (left < 0 && t->total > 0 && t->done > 0 && t->done < t->total)
            left = (now - t->t0) / t->done * (t->total - t->done);
    }
    char e[32], l[32];
    fmt_time(e, sizeof e, now - stack[0].t0);
    if (used < size) used += (size_t)snprintf(buf + used, size - used, ", %s elapsed", e);
    if (left >= 0 && used < size) {
        fmt_time(l, sizeof l, left);
        used += (size_t)snprintf(buf + used, size - used, ", about %s left", l);
    }
    const char *d = stack[n - 1].detail;
    if (d[0] && used < size) snprintf(buf + used, size - used, " (%s)", d);
}

static void clear_locked(void)
{
    if (drawn) fputs("\r\033[K", stderr);
    drawn = 0;
}

static void draw_locked(void)
{
    char line[240];
    format_locked(line, sizeof line);
    if (!line[0]) return;
    line[120] = 0;   /* one terminal line of a wide window */
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
    drawn = 1;
    last_draw = util_now_s();
}

static void *ticker(void *arg)
{
    (void)arg;
    for (;;) {
        usleep(250000);
        pthread_mutex_lock(&mu);
        if (depth > 0) draw_locked();
        pthread_mutex_unlock(&mu);
    }
    return NULL;
}

void pz_progress_begin(const char *what, int total)
{
    if (!is_enabled()) return;
    pthread_mutex_lock(&mu);
    if (depth < DEPTH) {
        task *t = &stack[depth];
        snprintf(t->what, sizeof t->what, "%s", what);
        t->detail[0] = 0;
        t->total = total > 0 ? total : 0;
        t->done = 0;
        t->t0 = util_now_s();
    }
    depth++;
    if (!ticker_on) {
        pthread_t th;
        if (pthread_create(&th, NULL, ticker, NULL) == 0) {
            pthread_detach(th);
            ticker_on = 1;
        }
    }
    draw_locked();
    pthread_mutex_unlock(&mu);
}

static task *top_locked(void)
{
    return depth > 0 && depth <= DEPTH ? &stack[depth - 1] : NULL;
}

void pz_progress_total(int total)
{
    if (!is_enabled()) return;
    pthread_mutex_lock(&mu);
    task *t = top_locked();
    if (t) t->total = total > 0 ? total : 0;
    pthread_mutex_unlock(&mu);
}

void pz_progress_step(int n)
{
    if (!is_enabled()) return;
    pthread_mutex_lock(&mu);
    task *t = top_locked();
    if (t) {
        t->done += n;
        if (util_now_s() - last_draw > 0.1) draw_locked();   /* a terminal needs no more */
    }
    pthread_mutex_unlock(&mu);
}

void pz_progress_detail(const char *s)
{
    if (!is_enabled()) return;
    pthread_mutex_lock(&mu);
    task *t = top_locked();
    if (t) snprintf(t->detail, sizeof t->detail, "%s", s ? s : "");
    pthread_mutex_unlock(&mu);
}

void pz_progress_end(void)
{
    if (!is_enabled()) return;
    pthread_mutex_lock(&mu);
    if (depth > 0) depth--;
    clear_locked();
    if (depth > 0) draw_locked();
    pthread_mutex_unlock(&mu);
}

void pz_progress_note(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (!is_enabled()) {
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        return;
    }
    pthread_mutex_lock(&mu);
    clear_locked();
    vfprintf(stderr, fmt, ap);
    pthread_mutex_unlock(&mu);
    va_end(ap);
}

void pz_progress_format(char *buf, size_t size)
{
    pthread_mutex_lock(&mu);
    format_locked(buf, size);
    pthread_mutex_unlock(&mu);
}
