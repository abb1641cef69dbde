/* pool.c - the thread pool: pinned workers, fork-join.
 *
 * Worker 0 is the caller; workers 1..n-1 are threads pinned to the allowed
 * CPUs: worker i to the i-th CPU after the one the caller runs on when the
 * pool starts (in the process's affinity mask, round robin), so that the
 * caller keeps its CPU to itself.
 *
 * Fork: the caller writes the job (fn, ctx, nth), sets `pending` to nth-1,
 * then bumps each participating worker's own `go` word (one cache line per
 * worker). Workers that do not take part are not woken at all.
 * Join: each worker runs its share and decrements `pending`; the caller, after
 * its own share, waits for 0.
 * Waiting spins on the atomic for a while (the run options' spin_us,
 * PZ_SPIN_US, default 200 microseconds: between the layers of a net a worker is back at work well within that)
 * and then sleeps on a futex. A sleeper announces itself in a flag that the
 * other side reads after its own update (both seq_cst), so no wake is lost.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "rt/pool.h"

typedef struct {
    _Alignas(PZ_POOL_ALIGN) _Atomic uint32_t go;   /* bumped once per job for this worker */
    _Atomic uint32_t sleeping;                 /* the worker is (about to be) in futex_wait */
    pz_pool *pool;
    int id;
    pthread_t thread;
    bool started;
} pz_worker;

struct pz_pool {
    int n;
    pz_worker *w;                 /* w[1..n-1]; w[0] is unused (the caller) */
    /* the current job, written by the caller before it bumps `go` */
    pz_task_fn fn;
    void *ctx;
    int nth;
    _Alignas(PZ_POOL_ALIGN) _Atomic uint32_t pending;   /* workers of the job still running */
    _Atomic uint32_t caller_sleeping;
    _Atomic int stop;
    int64_t spin_ns;              /* how long to spin before sleeping */
    int pin;                      /* workers pinned (run options) */
    int first;                    /* cpus[first]: the caller's CPU, no worker's */
    int held;                     /* the caller is held on cpus[first] (pz_pool_hold) */
    cpu_set_t caller_mask;        /* its affinity before, restored by pz_pool_release */
    int ncpu;
    int cpus[1024];               /* the allowed CPUs, in order */
};

static void futex_wait(_Atomic uint32_t *addr, uint32_t val)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *addr)
{
    syscall(SYS_futex, (uint32_t *)addr, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spinning: pause, read the clock every 64 rounds; after a while yield the
 * CPU (the thread we wait for may have been scheduled onto ours: the caller
 * is not pinned); after spin_ns, give up (the caller then sleeps). */
#define YIELD_AFTER_NS 5000

typedef struct {
    int64_t start;
    unsigned rounds;
} spinner;

static bool spin_step(spinner *s, int64_t spin_ns)
{
    cpu_relax();
    if (++s->rounds % 64) return true;
    int64_t t = now_ns();
    if (!s->start) s->start = t;
    if (t - s->start > spin_ns) return false;
    if (t - s->start > YIELD_AFTER_NS) sched_yield();
    return true;
}

/* Waits until *word != old (spin, then sleep); returns the new value. */
static uint32_t wait_while_equal(_Atomic uint32_t *word, uint32_t old, _Atomic uint32_t *sleeping,
                                 int64_t spin_ns)
{
    uint32_t v;
    spinner sp = {0, 0};
    do {
        v = atomic_load_explicit(word, memory_order_acquire);
        if (v != old) return v;
    } while (spin_ns > 0 && spin_step(&sp, spin_ns));
    for (;;) {
        atomic_store(sleeping, 1);
        v = atomic_load(word);
        if (v != old) break;
        futex_wait(word, old);
        v = atomic_load(word);
        if (v != old) break;
    }
    atomic_store(sleeping, 0);
    return v;
}

static void *worker_main(void *arg)
{
    pz_worker *w = arg;
    pz_pool *p = w->pool;
    uint32_t seen = 0;   /* go starts at 0 and is bumped only after the thread exists */
    for (;;) {
        seen = wait_while_equal(&w->go, seen, &w->sleeping, p->spin_ns);
        if (atomic_load_explicit(&p->stop, memory_order_acquire)) break;
        p->fn(p->ctx, w->id, p->nth);
        if (atomic_fetch_sub(&p->pending, 1) == 1 && atomic_load(&p->caller_sleeping))
            futex_wake(&p->pending);
    }
    return NULL;
}

static void pin_thread(pthread_t t, int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(t, sizeof set, &set);   /* best effort: unpinned still works */
}

pz_pool *pz_pool_new(int nthreads)
{
    pz_run_options o = PZ_RUN_OPTIONS_DEFAULT;
    return pz_pool_start(nthreads, o.spin_us, o.pin);
}

pz_pool *pz_pool_start(int nthreads, long long spin_us, int pin)
{
    if (nthreads < 1) nthreads = 1;
    pz_pool *p = NULL;
    if (posix_memalign((void **)&p, PZ_POOL_ALIGN, sizeof *p)) return NULL;
    memset(p, 0, sizeof *p);
    p->n = nthreads;

    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        for (int c = 0; c < CPU_SETSIZE && p->ncpu < (int)(sizeof p->cpus / sizeof p->cpus[0]); c++)
            if (CPU_ISSET(c, &set)) p->cpus[p->ncpu++] = c;
    }
    if (p->ncpu == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        p->ncpu = n > 0 ? (int)(n < 1024 ? n : 1024) : 1;
        for (int c = 0; c < p->ncpu; c++) p->cpus[c] = c;
    }

    /* Spinning is what makes fork-join fast, but with more workers than CPUs
     * a spinner steals the time of the thread it waits for. */
    p->spin_ns = (int64_t)spin_us * 1000;
    if (p->n > p->ncpu) p->spin_ns = 0;

    /* Worker i goes to the i-th allowed CPU after the caller's: the caller
     * is not pinned, and a worker pinned to the CPU it runs on would share
     * that CPU with it (each then waits for the other's time slice, and a
     * fork-join takes many times longer: bench/RESULTS.md, 'pool: pinning'). */
    int first = 0, me = sched_getcpu();
    for (int c = 0; c < p->ncpu; c++)
        if (p->cpus[c] == me) first = c;
    p->first = first;
    p->pin = pin;
    if (p->n > 1) {
        if (posix_memalign((void **)&p->w, PZ_POOL_ALIGN, sizeof(pz_worker) * (size_t)p->n)) {
            free(p);
            return NULL;
        }
        memset(p->w, 0, sizeof(pz_worker) * (size_t)p->n);
        for (int i = 1; i < p->n; i++) {
            pz_worker *w = &p->w[i];
            w->pool = p;
            w->id = i;
            if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
                p->n = i;   /* run with the workers we have */
                break;
            }
            w->started = true;
            if (pin) pin_thread(w->thread, p->cpus[(first + i) % p->ncpu]);
        }
    }
    return p;
}

void pz_pool_free(pz_pool *p)
{
    if (!p) return;
    atomic_store(&p->stop, 1);
    for (int i = 1; i < p->n; i++) {
        atomic_fetch_add(&p->w[i].go, 1);
        futex_wake(&p->w[i].go);
    }
    for (int i = 1; i < p->n; i++)
        if (p->w[i].started) pthread_join(p->w[i].thread, NULL);
    free(p->w);
    free(p);
}

/* The caller is worker 0 and not pinned: once it moves (the scheduler puts
 * a thread woken from the join's futex next to its waker, or another net's
 * pool was started on another CPU) it shares a pinned worker's CPU and every
 * fork-join of the run waits for time slices ('pool: pinning' in
 * bench/RESULTS.md). So a run holds the caller on its own CPU and gives its
 * mask back after (three system calls a run). */
void pz_pool_hold(pz_pool *p)
{
    if (!p || p->n < 2 || !p->pin || p->held || p->n > p->ncpu) return;
    int home = p->cpus[p->first];
    if (sched_getaffinity(0, sizeof p->caller_mask, &p->caller_mask) ||
        !CPU_ISSET(home, &p->caller_mask))
        return;   /* a caller kept off that CPU by its own mask: left as it is */
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(home, &one);
    if (sched_setaffinity(0, sizeof one, &one) == 0) p->held = 1;
}

void pz_pool_release(pz_pool *p)
{
    if (!p || !p->held) return;
    sched_setaffinity(0, sizeof p->caller_mask, &p->caller_mask);
    p->held = 0;
}

int pz_pool_home_cpu(const pz_pool *p)
{
    return p ? p->cpus[p->first] : -1;
}

int pz_pool_size(const pz_pool *p)
{
    return p ? p->n : 1;
}

void pz_pool_run(pz_pool *p, int nth, pz_task_fn fn, void *ctx)
{
    if (!p || nth > p->n) nth = p ? p->n : 1;
    if (nth <= 1) {
        fn(ctx, 0, 1);
        return;
    }
    p->fn = fn;
    p->ctx = ctx;
    p->nth = nth;
    atomic_store_explicit(&p->pending, (uint32_t)(nth - 1), memory_order_relaxed);
    for (int i = 1; i < nth; i++) {
        pz_worker *w = &p->w[i];
        atomic_fetch_add(&w->go, 1);   /* seq_cst: publishes the job, then reads `sleeping` */
        if (atomic_load(&w->sleeping)) futex_wake(&w->go);
    }
    fn(ctx, 0, nth);
    /* join: spin, then sleep on `pending` */
    spinner sp = {0, 0};
    while (atomic_load_explicit(&p->pending, memory_order_acquire) != 0 &&
           spin_step(&sp, p->spin_ns))
        ;
    uint32_t v;
    while ((v = atomic_load_explicit(&p->pending, memory_order_acquire)) != 0) {
        atomic_store(&p->caller_sleeping, 1);
        v = atomic_load(&p->pending);
        if (v != 0) futex_wait(&p->pending, v);
        atomic_store(&p->caller_sleeping, 0);
    }
}

/* ---- barrier ------------------------------------------------------------- */

/* The last worker to arrive resets the count and bumps the generation; the
 * others spin until the generation moves (they are all in the same
 * fork-join, so the wait is short; yielding covers more workers than CPUs). */
void pz_barrier_wait(pz_barrier *b, int nth)
{
    if (nth <= 1) return;
    uint32_t gen = atomic_load_explicit(&b->gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->count, 1, memory_order_acq_rel) + 1 == (uint32_t)nth) {
        atomic_store_explicit(&b->count, 0, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->gen, 1, memory_order_release);
        return;
    }
    unsigned rounds = 0;
    while (atomic_load_explicit(&b->gen, memory_order_acquire) == gen) {
        cpu_relax();
        if (++rounds % 256 == 0) sched_yield();
    }
}
