/* Layers through the C ABI: a delegate whose methods are libffi closures
 * (layoutSublayersOfLayer, displayLayer, drawLayerInContext), a layout
 * manager, a layer class with callbacks, the tree and bad input. Runs under
 * valgrind too: every layer, class and delegate is released. */
#include <ffi.h>
#include <stdlib.h>
#include "qz_test.h"

/* MARK: - A delegate made of libffi closures: void (*)(CALayerRef, void *info) */

typedef struct {
    int layouts, displays, draws, releases;
    CALayerRef last_layer;
    void *last_info;
    CGRect last_clip;
} delegate_log;

static void layout_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    delegate_log *log = user;
    log->layouts++;
    log->last_layer = *(CALayerRef *)args[0];
    log->last_info = *(void **)args[1];
    /* Re-entrancy: lay out the sublayers from inside the callback. */
    for (size_t i = 0; i < CALayerGetSublayerCount(log->last_layer); i++) {
        CALayerRef sub = CALayerGetSublayerAtIndex(log->last_layer, i);
        CALayerSetFrame(sub, CGRectMake(10.0 * (double)i, 0, 10, 10));
    }
}

static void display_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    delegate_log *log = user;
    log->displays++;
    log->last_layer = *(CALayerRef *)args[0];
    log->last_info = *(void **)args[1];
}

static void draw_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret;
    delegate_log *log = user;
    log->draws++;
    log->last_layer = *(CALayerRef *)args[0];
    log->last_clip = CGContextGetClipBoundingBox(*(CGContextRef *)args[1]);
    log->last_info = *(void **)args[2];
}

static void release_trampoline(ffi_cif *cif, void *ret, void **args, void *user) {
    (void)cif; (void)ret; (void)args;
    ((delegate_log *)user)->releases++;
}

typedef struct { ffi_closure *closure; void *code; ffi_cif cif; ffi_type *args[3]; } closure_t;

static void *make_closure(closure_t *c, int nargs, void (*fn)(ffi_cif *, void *, void **, void *), void *user) {
    for (int i = 0; i < nargs; i++) c->args[i] = &ffi_type_pointer;
    c->closure = ffi_closure_alloc(sizeof(ffi_closure), &c->code);
    if (ffi_prep_cif(&c->cif, FFI_DEFAULT_ABI, (unsigned)nargs, &ffi_type_void, c->args) != FFI_OK) return NULL;
    if (ffi_prep_closure_loc(c->closure, &c->cif, fn, user, c->code) != FFI_OK) return NULL;
    return c->code;
}

static void delegate_with_ffi_closures(void) {
    delegate_log log;
    memset(&log, 0, sizeof log);
    closure_t layout_c, display_c, release_c;
    void *layout_fn = make_closure(&layout_c, 2, layout_trampoline, &log);
    void *display_fn = make_closure(&display_c, 2, display_trampoline, &log);
    void *release_fn = make_closure(&release_c, 1, release_trampoline, &log);
    CHECK(layout_fn && display_fn && release_fn);

    CALayerDelegateCallbacks cb;
    memset(&cb, 0, sizeof cb);
    memcpy(&cb.layoutSublayersOfLayer, &layout_fn, sizeof layout_fn);
    memcpy(&cb.displayLayer, &display_fn, sizeof display_fn);
    memcpy(&cb.release, &release_fn, sizeof release_fn);
    int token = 42;

    CALayerRef parent = CALayerCreate(), a = CALayerCreate(), b = CALayerCreate();
    CALayerSetDelegate(parent, &cb, &token);
    CALayerAddSublayer(parent, a);
    CALayerAddSublayer(parent, b);
    CHECK(CALayerNeedsLayout(parent));
    CALayerLayoutIfNeeded(parent);
    CHECK(log.layouts == 1 && log.last_layer == parent && log.last_info == &token);
    CHECK(!CALayerNeedsLayout(parent));
    CHECK(CALayerGetFrame(b).origin.x == 10);
    CALayerLayoutIfNeeded(parent);                 /* nothing to do */
    CHECK(log.layouts == 1);
    /* A bounds size change asks for layout again; layoutIfNeeded on a child climbs up. */
    CALayerSetBounds(parent, CGRectMake(0, 0, 50, 50));
    CALayerLayoutIfNeeded(a);
    CHECK(log.layouts == 2);

    CHECK(!CALayerNeedsDisplay(parent));
    CALayerSetNeedsDisplay(parent);
    CHECK(CALayerNeedsDisplay(parent));
    CALayerDisplayIfNeeded(parent);
    CHECK(log.displays == 1 && log.last_layer == parent && !CALayerNeedsDisplay(parent));
    CALayerDisplayIfNeeded(parent);
    CHECK(log.displays == 1);

    /* Replacing the delegate releases the old one's info. */
    CALayerSetDelegate(parent, NULL, NULL);
    CHECK(log.releases == 1);
    CHECK_NO_ERROR();

    /* drawLayerInContext with the dirty area as the clip. */
    closure_t draw_c;
    void *draw_fn = make_closure(&draw_c, 3, draw_trampoline, &log);
    CALayerDelegateCallbacks drawer;
    memset(&drawer, 0, sizeof drawer);
    memcpy(&drawer.drawLayerInContext, &draw_fn, sizeof draw_fn);
    memcpy(&drawer.release, &release_fn, sizeof release_fn);
    CALayerSetDelegate(a, &drawer, &token);
    CALayerSetBounds(a, CGRectMake(0, 0, 100, 100));
    /* The first display makes the backing store: drawn whole. */
    CALayerSetNeedsDisplayInRect(a, CGRectMake(0, 0, 10, 10));
    CALayerDisplay(a);
    CHECK(log.draws == 1 && CGRectEqualToRect(log.last_clip, CGRectMake(0, 0, 100, 100)));
    CALayerSetNeedsDisplayInRect(a, CGRectMake(0, 0, 10, 10));
    CALayerSetNeedsDisplayInRect(a, CGRectMake(20, 20, 10, 10));
    CHECK(CGRectEqualToRect(QZLayerGetDirtyRect(a), CGRectMake(0, 0, 30, 30)));
    CALayerDisplay(a);
    CHECK(log.draws == 2 && log.last_layer == a && CGRectEqualToRect(log.last_clip, CGRectMake(0, 0, 30, 30)));
    CHECK(CGRectIsNull(QZLayerGetDirtyRect(a)));
    /* An unmarked layer redraws whole: the clip is the bounds. */
    CALayerDisplay(a);
    CHECK(log.draws == 3 && CGRectEqualToRect(log.last_clip, CGRectMake(0, 0, 100, 100)));
    /* needsDisplayOnBoundsChange */
    CALayerSetNeedsDisplayOnBoundsChange(a, true);
    CALayerSetBounds(a, CGRectMake(0, 0, 120, 100));
    CHECK(CALayerNeedsDisplay(a));
    CHECK_NO_ERROR();

    CARelease(parent); CARelease(a); CARelease(b);
    CHECK(log.releases == 2);    /* a's delegate went with a */
    ffi_closure_free(layout_c.closure); ffi_closure_free(display_c.closure);
    ffi_closure_free(release_c.closure); ffi_closure_free(draw_c.closure);
}

/* MARK: - Layout manager and layer class (plain C callbacks) */

static int invalidations, manager_layouts, class_displays, class_releases;
static void on_invalidate(CALayerRef l, void *info) { (void)l; (void)info; invalidations++; }
static void on_manager_layout(CALayerRef l, void *info) { (void)l; (void)info; manager_layouts++; }
static CGSize on_preferred(CALayerRef l, void *info) { (void)l; (void)info; return CGSizeMake(7, 8); }
static bool needs_display_for(CALayerClassRef c, const char *key, void *info) {
    (void)c; (void)info; return strcmp(key, "progress") == 0;
}
static CAValueRef default_for(CALayerClassRef c, const char *key, void *info) {
    (void)c; (void)info;
    if (strcmp(key, "masksToBounds") == 0) return CAValueCreateBool(true);
    if (strcmp(key, "progress") == 0) return CAValueCreateNumber(0.5);
    return NULL;
}
static void class_display(CALayerRef l, void *info) { (void)l; (void)info; class_displays++; }
static void class_release(void *info) { (void)info; class_releases++; }

static void layout_manager_and_classes(void) {
    CALayerRef l = CALayerCreate();
    CALayoutManagerCallbacks m = { 0, on_invalidate, on_manager_layout, on_preferred, NULL };
    CALayerSetLayoutManager(l, &m, NULL);
    CALayerSetNeedsLayout(l);
    CHECK(invalidations == 1);
    /* Observed on Apple's QuartzCore: not told again while the layout is pending. */
    CALayerSetNeedsLayout(l);
    CHECK(invalidations == 1);
    CALayerLayoutIfNeeded(l);
    CHECK(manager_layouts == 1);
    CALayerSetNeedsLayout(l);
    CHECK(invalidations == 2);
    CALayerLayoutIfNeeded(l);
    CGSize s = CALayerGetPreferredFrameSize(l);
    CHECK(s.width == 7 && s.height == 8);
    CARelease(l);

    CALayerClassCallbacks cc;
    memset(&cc, 0, sizeof cc);
    cc.needsDisplayForKey = needs_display_for;
    cc.defaultValueForKey = default_for;
    cc.display = class_display;
    cc.release = class_release;
    CALayerClassRef progress = CALayerClassCreate("ProgressLayer", CALayerClassGetBuiltin("CATextLayer"), &cc, NULL);
    CHECK(strcmp(CALayerClassGetName(progress), "ProgressLayer") == 0);
    CHECK(CALayerClassGetSuperclass(progress) == CALayerClassGetBuiltin("CATextLayer"));
    CALayerRef p = CALayerCreateWithClass(progress);
    CHECK(CALayerGetClass(p) == progress);
    CHECK(CALayerGetMasksToBounds(p));                       /* class default */
    CHECK(CALayerGetNumberForKeyPath(p, "progress") == 0.5); /* default of a custom key */
    CHECK(CATextLayerGetFontSize(p) == 36);                  /* inherited from CATextLayer */
    CHECK(!CALayerNeedsDisplay(p));
    CALayerSetNumberForKeyPath(p, "progress", 0.75);
    CHECK(CALayerNeedsDisplay(p));                           /* needsDisplayForKey */
    CALayerDisplayIfNeeded(p);
    CHECK(class_displays == 1);
    /* Observed on Apple's QuartzCore: the value it already has does not mark it. */
    CALayerSetNumberForKeyPath(p, "progress", 0.75);
    CHECK(!CALayerNeedsDisplay(p));
    CHECK(CALayerClassNeedsDisplayForKey(progress, "progress") && !CALayerClassNeedsDisplayForKey(progress, "opacity"));
    /* A new CATextLayer (and a subclass of it) has a font: Helvetica, as observed on Apple's QuartzCore. */
    CHECK(CATextLayerGetFont(p) != NULL && strcmp(CAValueGetString(CATextLayerGetFont(p)), "Helvetica") == 0);
    CAValueRef d = CALayerClassCopyDefaultValueForKey(progress, "anchorPoint");
    CHECK(CAValueGetPoint(d).x == 0.5);
    CARelease(d);
    CHECK_NO_ERROR();
    CARelease(p);
    CHECK(class_releases == 0);   /* the layer held the class */
    CARelease(progress);
    CHECK(class_releases == 1);
}

/* MARK: - Class methods see the class asked; callback errors stay inside */

static CALayerClassRef asked_class;
static bool record_class(CALayerClassRef c, const char *key, void *info) {
    (void)key; (void)info; asked_class = c; return false;
}
static void failing_display(CALayerRef l, void *info) {
    (void)info;
    CALayerSetOpacity(l, NAN);   /* records an error inside the callback */
}

static void class_methods_and_callback_errors(void) {
    CALayerClassCallbacks a_cb;
    memset(&a_cb, 0, sizeof a_cb);
    a_cb.needsDisplayForKey = record_class;
    CALayerClassRef a = CALayerClassCreate("A", NULL, &a_cb, NULL);
    CALayerClassRef b = CALayerClassCreate("B", a, NULL, NULL);
    CALayerClassNeedsDisplayForKey(b, "x");
    CHECK(asked_class == b);
    CALayerClassNeedsDisplayForKey(a, "x");
    CHECK(asked_class == a);

    CALayerDelegateCallbacks d;
    memset(&d, 0, sizeof d);
    d.displayLayer = failing_display;
    CALayerRef l = CALayerCreate();
    CALayerSetDelegate(l, &d, NULL);
    QZClearLastError();
    CALayerDisplay(l);
    CHECK(QZGetLastError() == QZErrorNone);
    CHECK(CALayerGetOpacity(l) == 1);
    CARelease(l);
    CARelease(b);
    CARelease(a);
}

/* MARK: - Bad input */

static void bad_input(void) {
    CALayerRef l = CALayerCreate();
    CAValueRef v = CAValueCreateNumber(1);
    CALayerAddSublayer(l, (CALayerRef)(void *)v);      CHECK_ERROR(QZErrorWrongType);
    CALayerAddSublayer(NULL, l);                        CHECK_ERROR(QZErrorNullArgument);
    CALayerSetPosition((CALayerRef)(void *)v, CGPointMake(1, 1)); CHECK_ERROR(QZErrorWrongType);
    CALayerSetBounds(l, CGRectMake(0, 0, NAN, 1));      CHECK_ERROR(QZErrorNotFinite);
    CALayerSetBounds(l, (CGRect){ { 0, 0 }, { INFINITY, 1 } }); CHECK_ERROR(QZErrorNotFinite);
    CATransform3D nanT = CATransform3DIdentity; nanT.m11 = NAN;
    CALayerSetTransform(l, nanT);                       CHECK_ERROR(QZErrorNotFinite);
    CALayerSetContentsGravity(l, "upsideDown");         CHECK_ERROR(QZErrorUnknownConstant);
    CALayerSetMinificationFilter(l, NULL);              CHECK_ERROR(QZErrorNullArgument);
    CALayerSetValueForKey(l, NULL, v);                  CHECK_ERROR(QZErrorNullArgument);
    CALayerSetValueForKey(l, "opacity", (CAValueRef)(void *)l); CHECK_ERROR(QZErrorWrongType);
    CALayerConvertPointToLayer(l, CGPointMake(NAN, 0), NULL); CHECK_ERROR(QZErrorNotFinite);
    CALayerHitTest(l, CGPointMake(0, INFINITY));        CHECK_ERROR(QZErrorNotFinite);
    CHECK(CALayerClassGetBuiltin("CAMetalLayer") == NULL); CHECK_ERROR(QZErrorUnknownConstant);
    CHECK(CALayerCreateWithClass((CALayerClassRef)(void *)l) == NULL); CHECK_ERROR(QZErrorWrongType);
    CALayerClassCallbacks future = { 7, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    CHECK(CALayerClassCreate("X", NULL, &future, NULL) == NULL); CHECK_ERROR(QZErrorInvalidArgument);
    CATiledLayerSetTileSize(l, CGSizeMake(10, 10));     CHECK_ERROR(QZErrorWrongType);
    /* A flattened layer (scale 0) cannot be converted into. */
    CALayerRef flat = CALayerCreate();
    CALayerSetTransform(flat, CATransform3DMakeScale(0, 1, 1));
    CALayerConvertPointFromLayer(flat, CGPointMake(1, 1), NULL); CHECK_ERROR(QZErrorInvalidArgument);
    CHECK(CALayerGetOpacity(l) == 1 && CALayerGetBounds(l).size.width == 0);
    CARelease(flat);
    CARelease(v);
    CARelease(l);
}

int main(void) {
    RUN(delegate_with_ffi_closures);
    RUN(layout_manager_and_classes);
    RUN(class_methods_and_callback_errors);
    RUN(bad_input);
    return qz_summary();
}
