/*
 * bench_transaction.c — one transaction of implicit animations through
 * libquartzite.so vs a plain C reference doing the same bookkeeping, same run.
 *
 * What is measured (library side: the C ABI):
 *   CATransactionBegin, then 10 animatable properties set on each of L layers
 *   (position, bounds, anchorPoint, zPosition, opacity, cornerRadius,
 *   borderWidth, shadowOpacity, backgroundColor, transform), each change
 *   running the action search and adding an implicit CABasicAnimation from the
 *   presentation value with the transaction's duration and timing function,
 *   then CATransactionCommit (the changed layers' committed state, the 10 x L
 *   animations start). L = 100, 1,000 and 10,000: 1k, 10k and 100k changes
 *   (the case is 100k: target under 20 ms, cost linear in changes).
 *   The layers are committed children of one root, without animations at the
 *   start of each round (removed, untimed, after each round).
 *
 * The reference is plain C in this file (same flags): per change it keeps a
 * copy of the layer's committed state (on the layer's first change in the
 * transaction), reads the old value as the "from" value, stores the new one,
 * and mallocs an animation record (key, from, to, duration, timing function)
 * appended to the transaction's pending list; at commit it stamps begin times,
 * moves each record onto its layer's animation array (replacing an animation
 * under the same key) and drops the snapshots. It does no validation, no
 * locking, no action search and no boxing of values, so the ratio is the
 * price of the library's generality over the bare bookkeeping.
 *
 * Usage: bench_transaction [--reps R] [--only L]
 *   R rounds (default 7; best round kept); L: only the size with L layers
 *   (100, 1000 or 10000), e.g. for callgrind's per-size instruction counts.
 * Exit status 1 when an animation count is wrong or the library records an error.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <quartzite/quartzite.h>

#define NOINLINE __attribute__((noinline, noipa))

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------------------ */
/* Plain C reference                                                         */

enum { NPROPS = 10 };

typedef struct {
    double position[2], bounds[4], anchor[2], z, opacity, corner, border, shadow;
    double color[4];
    double transform[16];
} RefState;

typedef struct RefAnim {
    int key;
    double from[16], to[16];
    double duration, begin;
    const void *timing;
} RefAnim;

typedef struct {
    RefState state;
    RefState *committed;   /* snapshot while changed in the open transaction */
    RefAnim **anims;
    int nanims, capanims;
    bool in_transaction;
} RefLayer;

typedef struct {
    RefLayer **layers;
    int nlayers, caplayers;
    RefAnim **pending;
    RefLayer **pending_layer;
    int npending, cappending;
    double duration;
    const void *timing;
} RefTransaction;

static const int k_sizes[NPROPS] = { 2, 4, 2, 1, 1, 1, 1, 1, 4, 16 };

static double *ref_field(RefState *s, int key)
{
    switch (key) {
    case 0: return s->position;
    case 1: return s->bounds;
    case 2: return s->anchor;
    case 3: return &s->z;
    case 4: return &s->opacity;
    case 5: return &s->corner;
    case 6: return &s->border;
    case 7: return &s->shadow;
    case 8: return s->color;
    default: return s->transform;
    }
}

NOINLINE static void ref_set(RefTransaction *t, RefLayer *l, int key, const double *value)
{
    if (!l->in_transaction) {
        l->in_transaction = true;
        l->committed = malloc(sizeof *l->committed);
        *l->committed = l->state;
        if (t->nlayers == t->caplayers) {
            t->caplayers = t->caplayers ? 2 * t->caplayers : 64;
            t->layers = realloc(t->layers, (size_t)t->caplayers * sizeof *t->layers);
        }
        t->layers[t->nlayers++] = l;
    }
    RefAnim *a = malloc(sizeof *a);
    a->key = key;
    int n = k_sizes[key];
    memcpy(a->from, ref_field(l->committed, key), (size_t)n * sizeof(double));
    memcpy(ref_field(&l->state, key), value, (size_t)n * sizeof(double));
    memcpy(a->to, value, (size_t)n * sizeof(double));
    a->duration = t->duration;
    a->timing = t->timing;
    a->begin = 0;
    if (t->npending == t->cappending) {
        t->cappending = t->cappending ? 2 * t->cappending : 256;
        t->pending = realloc(t->pending, (size_t)t->cappending * sizeof *t->pending);
        t->pending_layer = realloc(t->pending_layer, (size_t)t->cappending * sizeof *t->pending_layer);
    }
    t->pending_layer[t->npending] = l;
    t->pending[t->npending++] = a;
}

NOINLINE static void ref_commit(RefTransaction *t, double now)
{
    for (int i = 0; i < t->npending; i++) {
        RefAnim *a = t->pending[i];
        RefLayer *l = t->pending_layer[i];
        a->begin = now;
        int j = 0;
        for (; j < l->nanims; j++) if (l->anims[j]->key == a->key) break;
        if (j < l->nanims) {
            free(l->anims[j]);
            memmove(l->anims + j, l->anims + j + 1, (size_t)(l->nanims - j - 1) * sizeof *l->anims);
            l->nanims--;
        }
        if (l->nanims == l->capanims) {
            l->capanims = l->capanims ? 2 * l->capanims : 4;
            l->anims = realloc(l->anims, (size_t)l->capanims * sizeof *l->anims);
        }
        l->anims[l->nanims++] = a;
    }
    t->npending = 0;
    for (int i = 0; i < t->nlayers; i++) {
        free(t->layers[i]->committed);
        t->layers[i]->committed = NULL;
        t->layers[i]->in_transaction = false;
    }
    t->nlayers = 0;
}

static void ref_clear(RefLayer *layers, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < layers[i].nanims; j++) free(layers[i].anims[j]);
        layers[i].nanims = 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Kernels                                                                   */

static void values_for(int i, int round, double v[NPROPS][16])
{
    double x = i % 1000 + round;
    v[0][0] = x; v[0][1] = x + 1;
    v[1][0] = 0; v[1][1] = 0; v[1][2] = 10 + round; v[1][3] = 20 + round;
    v[2][0] = 0.25; v[2][1] = 0.75;
    v[3][0] = round;
    v[4][0] = 0.5;
    v[5][0] = 4 + round;
    v[6][0] = 1 + round;
    v[7][0] = 0.5;
    v[8][0] = 0.2; v[8][1] = 0.4; v[8][2] = 0.6; v[8][3] = 1;
    CATransform3D t = CATransform3DMakeScale(1 + round * 0.1, 1, 1);
    memcpy(v[9], &t, sizeof t);
}

NOINLINE static void lib_transaction(CALayerRef *layers, int n, int round, CGColorRef color)
{
    double v[NPROPS][16];
    CATransactionBegin();
    CATransactionSetAnimationDuration(0.5);
    for (int i = 0; i < n; i++) {
        CALayerRef l = layers[i];
        values_for(i, round, v);
        CALayerSetPosition(l, (CGPoint){ v[0][0], v[0][1] });
        CALayerSetBounds(l, (CGRect){ { 0, 0 }, { v[1][2], v[1][3] } });
        CALayerSetAnchorPoint(l, (CGPoint){ v[2][0], v[2][1] });
        CALayerSetZPosition(l, v[3][0]);
        CALayerSetOpacity(l, (float)v[4][0]);
        CALayerSetCornerRadius(l, v[5][0]);
        CALayerSetBorderWidth(l, v[6][0]);
        CALayerSetShadowOpacity(l, (float)v[7][0]);
        CALayerSetBackgroundColor(l, color);
        CATransform3D t;
        memcpy(&t, v[9], sizeof t);
        CALayerSetTransform(l, t);
    }
    CATransactionCommit();
}

static const int k_timing_sentinel = 1;

NOINLINE static void ref_transaction(RefTransaction *t, RefLayer *layers, int n, int round)
{
    double v[NPROPS][16];
    t->duration = 0.5;
    t->timing = &k_timing_sentinel;
    for (int i = 0; i < n; i++) {
        values_for(i, round, v);
        for (int k = 0; k < NPROPS; k++) ref_set(t, &layers[i], k, v[k]);
    }
    ref_commit(t, now_s());
}

/* ------------------------------------------------------------------------ */

int main(int argc, char **argv)
{
    int reps = 7, only = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = atoi(argv[++i]);
    }
    if (reps < 1) reps = 1;
    static const int sizes[] = { 100, 1000, 10000 };
    int failed = 0;
    double lib100k = 0, ref100k = 0;
    double per_change[3];

    printf("%-10s %12s %12s %10s %12s %8s\n", "changes", "library ms", "C ref ms", "lib ns/op", "C ref ns/op", "ratio");
    for (int s = 0; s < 3; s++) {
        int n = sizes[s];
        if (only && n != only) { per_change[s] = 0; continue; }
        CALayerRef root = CALayerCreate();
        CALayerRef *layers = malloc((size_t)n * sizeof *layers);
        for (int i = 0; i < n; i++) {
            layers[i] = CALayerCreate();
            CALayerAddSublayer(root, layers[i]);
        }
        CATransactionFlush();   /* the layers are committed: their changes animate */
        CGColorRef color = CGColorCreateSRGB(0.2, 0.4, 0.6, 1);
        RefLayer *refs = calloc((size_t)n, sizeof *refs);
        RefTransaction rt;
        memset(&rt, 0, sizeof rt);

        double best_lib = 1e30, best_ref = 1e30;
        for (int r = 0; r < reps; r++) {
            double t0 = now_s();
            lib_transaction(layers, n, r, color);
            double t1 = now_s();
            ref_transaction(&rt, refs, n, r);
            double t2 = now_s();
            if (t1 - t0 < best_lib) best_lib = t1 - t0;
            if (t2 - t1 < best_ref) best_ref = t2 - t1;
            /* Check, then clear (untimed). */
            size_t count = 0;
            for (int i = 0; i < n; i++) {
                CAValueRef keys = CALayerCopyAnimationKeys(layers[i]);
                count += keys ? CAValueGetCount(keys) : 0;
                CARelease(keys);
                CALayerRemoveAllAnimations(layers[i]);
            }
            if (count != (size_t)n * NPROPS) {
                fprintf(stderr, "bench_transaction: %zu animations after the commit, expected %d\n", count, n * NPROPS);
                failed = 1;
            }
            QZAnimationProcessEvents();
            ref_clear(refs, n);
        }
        if (QZGetLastError() != QZErrorNone) {
            fprintf(stderr, "bench_transaction: the library recorded an error: %s\n", QZGetLastErrorMessage());
            failed = 1;
        }
        int changes = n * NPROPS;
        per_change[s] = best_lib / changes * 1e9;
        printf("%-10d %12.3f %12.3f %10.1f %12.1f %7.1fx\n", changes, best_lib * 1e3, best_ref * 1e3,
               best_lib / changes * 1e9, best_ref / changes * 1e9, best_lib / best_ref);
        if (s == 2) { lib100k = best_lib; ref100k = best_ref; }

        for (int i = 0; i < n; i++) CARelease(layers[i]);
        CARelease(root);
        CGColorRelease(color);
        free(layers);
        for (int i = 0; i < n; i++) free(refs[i].anims);
        free(refs);
        free(rt.layers); free(rt.pending); free(rt.pending_layer);
    }
    if (!only) {
        printf("linearity: ns per change at 1k / 10k / 100k = %.1f / %.1f / %.1f\n", per_change[0], per_change[1], per_change[2]);
        printf("SUMMARY transaction 100k implicit animations: %.2f ms (%.1fx the C bookkeeping); target < 20 ms: %s\n",
               lib100k * 1e3, lib100k / ref100k, lib100k * 1e3 < 20 ? "met" : "NOT met");
    }
    return failed;
}
