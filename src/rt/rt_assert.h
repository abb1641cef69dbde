/* rt_assert.h - the runtime's always-on internal invariant (never for user
 * input: a bad model is reported through an error message instead).
 *
 *   PZ_RT_ASSERT(from == 0 || to == 0);
 */
#ifndef PZ_RT_ASSERT_H
#define PZ_RT_ASSERT_H

#include <stdio.h>
#include <stdlib.h>

#define PZ_RT_ASSERT(cond)                                                     \
    do {                                                                       \
        if (!(cond)) {                                                         \
            fprintf(stderr, "paleozoic: internal error: %s:%d: %s\n",         \
                    __FILE__, __LINE__, #cond);                                \
            abort();                                                           \
        }                                                                      \
    } while (0)

#endif
