/*
 * ref_getter.c — a trivial C getter with CAValueGetNumber's signature,
 * built by run.sh into a small shared library so that bench_ctypes.py can
 * call it through ctypes exactly like the Quartzite getter: the same
 * argument and return conversions, only the body differs.
 */
#include <stdint.h>
#include <stdlib.h>

typedef struct RefBox {
    uint64_t refcount;
    uint32_t tag;
    double number;
} RefBox;

void *qzbench_box_create(double number)
{
    RefBox *b = calloc(1, sizeof *b);
    if (b) {
        b->refcount = 1;
        b->tag = 0x515a0001u;
        b->number = number;
    }
    return b;
}

double qzbench_box_get(const void *p)
{
    return ((const RefBox *)p)->number;
}

void qzbench_box_release(void *p)
{
    free(p);
}
