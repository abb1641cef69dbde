/* test_check.h - the pass/fail count of a unit test (tests/unit/NAME.c).
 *
 * Each tests/unit/NAME.c is its own test binary (the Makefile builds one per
 * .c), so this header holds the counters and functions themselves (static)
 * and is included once, by the test's .c. tests/run.sh reads the last line
 * of a test's output, `NAME: P passed, F failed`:
 *
 *     #include "test_check.h"
 *
 *     check(y == 2, "add: 1 + 1");
 *     checkf(e <= 1e-5, "%s: error %.3g", what, e);
 *     CHECK(n == 3);                   // FAIL file:line: n == 3
 *     ...
 *     return test_summary("rt_foo");   // prints the counts; 1 on a failure
 *
 * A failed check prints `FAIL <message>`; only the first CHECK_FAIL_LINES are
 * printed (all are counted), so one broken kernel does not bury the rest.
 */
#ifndef PZ_TESTS_TEST_CHECK_H
#define PZ_TESTS_TEST_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

enum { CHECK_FAIL_LINES = 50 };

static int passed, failed;

/* Counts one check; when !ok prints FAIL and the printf-style message. */
__attribute__((format(printf, 2, 3))) static inline void checkf(bool ok, const char *fmt, ...)
{
    if (ok) {
        passed++;
        return;
    }
    if (++failed > CHECK_FAIL_LINES) return;
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

static inline void check(bool ok, const char *what)
{
    checkf(ok, "%s", what);
}

/* A check whose message is its own condition, with file and line. */
#define CHECK(cond) checkf((cond), "%s:%d: %s", __FILE__, __LINE__, #cond)

/* Prints `name: P passed, F failed`; returns the exit status (1 on a failure). */
static inline int test_summary(const char *name)
{
    printf("%s: %d passed, %d failed\n", name, passed, failed);
    return failed ? 1 : 0;
}

#endif
