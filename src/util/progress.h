/* progress.h - one line on stderr for long work (tune, bench, characterize,
 * quantize, build): what is running, how far it is, and an estimate of the
 * time left. Drawn only when stderr is a terminal (or PZ_PROGRESS=1; a
 * PZ_PROGRESS=0 turns it off), so logs and pipes get nothing extra.
 *
 *   pz_progress_begin("oracle", planned);     // total 0: unknown
 *   ... pz_progress_step(1); ...              // one unit done
 *   pz_progress_note("oracle: %d builds\n", n); // a message: clears the line first
 *   pz_progress_end();
 *
 * Begin/end nest (an inner task shows while it runs, then the outer one
 * again); a thread redraws the line every quarter second so that the time
 * moves during one long step (a C compiler run). Every call is a no-op when
 * nothing is shown. */
#ifndef PZ_UTIL_PROGRESS_H
#define PZ_UTIL_PROGRESS_H

#include <stdio.h>

void pz_progress_begin(const char *what, int total);
void pz_progress_total(int total);       /* the current task's total, once known */
void pz_progress_step(int n);            /* n more units of the current task done */
void pz_progress_detail(const char *s);  /* what the current unit is (copied) */
void pz_progress_end(void);
/* fprintf(stderr, ...) that first clears a drawn line */
void pz_progress_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* the line as it would be drawn now (for tests); "" when no task runs */
void pz_progress_format(char *buf, size_t size);

#endif
