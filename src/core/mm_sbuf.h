/* A growing text buffer (printf appends): the sweep's identity and the CLI's recorded
 * configuration. No I/O; allocation failure is remembered, not reported at once. */
#ifndef MM_SBUF_H
#define MM_SBUF_H

#include <stddef.h>

typedef struct mm__sbuf {
    char *p;         /* NUL-terminated text (NULL until the first append), malloc'd: free(p) */
    size_t len, cap; /* bytes of text; bytes allocated */
    int oom;         /* a growth failed: the text is incomplete and stays so */
} mm__sbuf;

/* Append printf-formatted text (nothing once oom is set). */
void mm__sb_printf(mm__sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
