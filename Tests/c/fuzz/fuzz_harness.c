/* The stateful fuzzer's generators, pool of live handles, tape and callbacks
 * (see fuzz.h); fuzz_driver.c runs sequences of steps with them. */
#define _GNU_SOURCE
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"
#include "fuzz_internal.h"

extern const char *const fz_strings[];       /* constants, then key names and key paths */
extern const size_t fz_string_count;
extern const size_t fz_key_string_start;     /* where the key names begin */
extern const uint32_t fz_pixel_formats[];
extern const size_t fz_pixel_format_count;

/* MARK: - Random numbers and the tape */

static uint64_t rng_state = 1;
static uint64_t splitmix(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
void fz_seed(uint64_t seed) { rng_state = seed * 0x2545F4914F6CDD1DULL + 0x1234567ULL; }
uint64_t fz_rand(void) { return splitmix(&rng_state); }
unsigned fz_pick(unsigned n) { return n ? (unsigned)(fz_rand() % n) : 0; }
static double fz_unit(void) { return (double)(fz_rand() >> 11) / 9007199254740992.0; }

int fz_replaying;
int fz_printing;
fz_step fz_current;

uint64_t fz_record(uint64_t value) {
    if (fz_current.in_call) fz_fail("a generator ran during a call (%s)", fz_current.name);
    if (fz_current.count == fz_current.capacity) {
        fz_current.capacity = fz_current.capacity ? fz_current.capacity * 2 : 64;
        fz_current.words = realloc(fz_current.words, fz_current.capacity * sizeof(uint64_t));
        if (!fz_current.words) fz_fail("out of memory for the tape");
    }
    fz_current.words[fz_current.count++] = value;
    return value;
}

uint64_t fz_next_word(void) {
    return fz_current.read < fz_current.count ? fz_current.words[fz_current.read++] : 0;
}

/* MARK: - Printing */

static char note_buffer[4096];
static size_t note_length;
void fz_note(const char *fmt, ...) {
    if (!fz_printing || note_length >= sizeof note_buffer - 64) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(note_buffer + note_length, sizeof note_buffer - note_length, fmt, ap);
    va_end(ap);
    if (n > 0) note_length += (size_t)n < sizeof note_buffer - note_length ? (size_t)n : sizeof note_buffer - note_length - 1;
}
static void note_sep(void) { if (fz_printing && note_length) fz_note(", "); }
const char *fz_notes(void) {
    note_buffer[note_length < sizeof note_buffer ? note_length : sizeof note_buffer - 1] = 0;
    note_length = 0;
    return note_buffer;
}

/* MARK: - The pool of live handles */

void *fz_pool[FZ_SLOTS];
int fz_pool_kind[FZ_SLOTS];
static const char *kind_names[64];
static int kind_count;
static const char foreign_memory[64] __attribute__((aligned(16)));   /* not a handle */

int fz_kind_of(const void *handle) {
    const char *name = QZGetTypeName(handle);
    if (!name) return -1;
    for (int i = 0; i < kind_count; i++) if (strcmp(kind_names[i], name) == 0) return i;
    if (kind_count == 64) fz_fail("more than 64 handle types");
    kind_names[kind_count] = name;
    return kind_count++;
}

static int kind_id(const char *name) {
    for (int i = 0; i < kind_count; i++) if (strcmp(kind_names[i], name) == 0) return i;
    if (kind_count == 64) fz_fail("more than 64 handle types");
    kind_names[kind_count] = strdup(name);
    return kind_count++;
}

void fz_intern_kinds(fz_kinds *k) {
    k->mask = 0;
    for (const char *const *n = k->names; *n; n++) {
        if (strcmp(*n, "*") == 0) { k->mask = ~0ULL; return; }
        k->mask |= 1ULL << kind_id(*n);
    }
}

const char *fz_kind_name(int kind) { return kind >= 0 && kind < kind_count ? kind_names[kind] : "?"; }

static const void *slot_handle(uint64_t w) {
    if (w == 0) return NULL;
    if (w == 1) return foreign_memory;
    return fz_pool[(w - 2) % FZ_SLOTS];
}

/* A recorded choice: 0 NULL, 1 not a handle, 2 + slot. */
static uint64_t choose_handle(const fz_kinds *accept) {
    unsigned r = fz_pick(100);
    if (r < 3) return 0;
    if (r < 4) return 1;
    unsigned start = fz_pick(FZ_SLOTS);
    int any = r < 9;
    for (unsigned i = 0; i < FZ_SLOTS; i++) {
        unsigned s = (start + i) % FZ_SLOTS;
        if (!fz_pool[s]) continue;
        if (any || (accept->mask >> fz_pool_kind[s]) & 1) return 2 + s;
    }
    return fz_pick(4) ? 0 : 1;
}

static void note_handle(uint64_t w) {
    if (!fz_printing) return;
    note_sep();
    if (w == 0) fz_note("NULL");
    else if (w == 1) fz_note("<not a handle>");
    else {
        unsigned s = (unsigned)((w - 2) % FZ_SLOTS);
        if (fz_pool[s]) fz_note("h%u:%s", s, fz_kind_name(fz_pool_kind[s])); else fz_note("h%u:NULL", s);
    }
}

void *fz_handle(fz_kinds *accept) {
    uint64_t w = FZ_W(choose_handle(accept));
    note_handle(w);
    return (void *)slot_handle(w);
}

void *fz_optional_handle(fz_kinds *accept) {
    uint64_t w = FZ_W(fz_pick(5) < 3 ? 0 : choose_handle(accept));
    note_handle(w);
    return (void *)slot_handle(w);
}

void *fz_handle_for_release(fz_kinds *accept, int *slot) {
    uint64_t w = FZ_W(choose_handle(accept));
    note_handle(w);
    *slot = w >= 2 ? (int)((w - 2) % FZ_SLOTS) : -1;
    return (void *)slot_handle(w);
}

void fz_released(int slot) {
    /* The release recorded no error: the reference is gone. */
    if (slot >= 0 && fz_pool[slot] && QZGetLastError() == QZErrorNone) fz_pool[slot] = NULL;
}

void fz_pool_put(unsigned slot, void *handle, int kind) {
    void *old = fz_pool[slot];
    fz_pool[slot] = handle;
    fz_pool_kind[slot] = kind;
    CARelease(old);
}

/* Slots for the results of the step, chosen before the call (the tape line
 * is written before the call, so nothing is recorded after it). */
static unsigned adopt_slots[FZ_MAX_RESULTS];
static unsigned adopt_next;

static uint64_t choose_adopt_slot(void) {
    if (fz_pick(2)) {
        unsigned start = fz_pick(FZ_SLOTS);
        for (unsigned i = 0; i < FZ_SLOTS; i++) if (!fz_pool[(start + i) % FZ_SLOTS]) return (start + i) % FZ_SLOTS;
    }
    return fz_pick(FZ_SLOTS);
}

void fz_step_prepare(void) {
    fz_current.callback_seed = FZ_W(fz_rand());
    for (unsigned i = 0; i < FZ_MAX_RESULTS; i++) adopt_slots[i] = (unsigned)(FZ_W(choose_adopt_slot()) % FZ_SLOTS);
    adopt_next = 0;
    note_length = 0;
}

void fz_result(const void *handle, bool owned) {
    if (!handle) { if (fz_printing) printf(" -> NULL"); return; }
    int kind = fz_kind_of(handle);
    if (kind < 0) fz_fail("%s returned %p, which is not a live Quartzite handle", fz_current.name, handle);
    if (!owned) {
        if (CARetain(handle) != handle) fz_fail("CARetain refused what %s returned", fz_current.name);
    }
    if (adopt_next >= FZ_MAX_RESULTS) { CARelease(handle); return; }
    unsigned slot = adopt_slots[adopt_next++];
    if (fz_printing) printf(" -> h%u:%s", slot, fz_kind_name(kind));
    fz_pool_put(slot, (void *)handle, kind);
}

static void *out_handles[FZ_MAX_RESULTS];
static unsigned out_used;
void *fz_out_handle(void) {
    if (FZ_W(fz_pick(10)) == 0) { if (fz_printing) { note_sep(); fz_note("NULL"); } return NULL; }
    if (out_used >= FZ_MAX_RESULTS) return NULL;
    out_handles[out_used] = NULL;
    if (fz_printing) { note_sep(); fz_note("&out"); }
    return &out_handles[out_used++];
}

void fz_adopt_out_handles(void) {
    for (unsigned i = 0; i < out_used; i++) {
        if (out_handles[i]) fz_result(out_handles[i], true);
        out_handles[i] = NULL;
    }
    out_used = 0;
}

/* MARK: - Scratch memory */

static void **scratch;
static size_t scratch_count, scratch_capacity;
void *fz_scratch(size_t bytes) {
    if (scratch_count == scratch_capacity) {
        scratch_capacity = scratch_capacity ? scratch_capacity * 2 : 64;
        scratch = realloc(scratch, scratch_capacity * sizeof *scratch);
        if (!scratch) fz_fail("out of memory for the scratch list");
    }
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) fz_fail("out of memory for %zu scratch bytes", bytes);
    scratch[scratch_count++] = p;
    return p;
}
void fz_step_cleanup(void) {
    for (size_t i = 0; i < scratch_count; i++) free(scratch[i]);
    scratch_count = 0;
}

static unsigned char out_scratch[8192] __attribute__((aligned(64)));
void *fz_out(size_t bytes) {
    if (bytes > sizeof out_scratch) fz_fail("out parameter of %zu bytes", bytes);
    if (FZ_W(fz_pick(10)) == 0) { if (fz_printing) { note_sep(); fz_note("NULL"); } return NULL; }
    memset(out_scratch, 0, bytes);
    if (fz_printing) { note_sep(); fz_note("&out"); }
    return out_scratch;
}

/* MARK: - Numbers */

static const double special_doubles[] = {
    NAN, INFINITY, -INFINITY, DBL_MAX, -DBL_MAX, 1e308, -1e308, 4.9e-324, -0.0, 1e18, -1e18,
    9007199254740992.0, 9.3e18, -9.3e18, 3.4e38, 1e38, -1e38, 1e300, 2147483648.0, 4294967296.0, 1e-9, -1e-300,
};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int name_is(const char *name, const char *const *list) {
    for (; *list; list++) if (strcmp(name, *list) == 0) return 1;
    return 0;
}

static double general_double(void) {
    unsigned r = fz_pick(100);
    if (r < 55) return floor((fz_unit() * 200.0 - 100.0) * 4) / 4;
    if (r < 72) { static const double small[] = { 0, 1, -1, 2, 0.5, 10, 100, 0.25, 32, 64 }; return small[fz_pick(COUNT(small))]; }
    if (r < 90) return fz_unit();
    if (r < 98) return special_doubles[fz_pick(COUNT(special_doubles))];
    uint64_t bits = fz_rand();
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

extern double fz_now;
static double choose_double(const char *name) {
    static const char *const diagonal[] = { "m11", "m22", "m33", "m44", "a", "d", "sx", "sy", NULL };
    static const char *const off_diagonal[] = { "m12", "m13", "m14", "m21", "m23", "m24", "m31", "m32", "b", "c", NULL };
    static const char *const times[] = { "timeStamp", "timestamp", "time", "fireDate", "t", NULL };
    static const char *const durations[] = { "duration", "interval", NULL };
    if (name_is(name, diagonal) && fz_pick(10) < 7) return 1;
    if (name_is(name, off_diagonal) && fz_pick(10) < 7) return 0;
    if (strcmp(name, "m34") == 0 && fz_pick(10) < 7) return fz_pick(2) ? 0 : -1.0 / 500;
    if (strcmp(name, "seconds") == 0) {
        static const double s[] = { 0, -1, 0.0005, 0.002, 0.004, NAN, -INFINITY };
        return s[fz_pick(COUNT(s))];
    }
    if (name_is(name, times) && fz_pick(10) < 7) {
        static const double d[] = { -1, 0, 0.001, 0.016, 0.1, 0.5, 2, 100 };
        return fz_now + d[fz_pick(COUNT(d))];
    }
    if (name_is(name, durations) && fz_pick(10) < 7) {
        static const double d[] = { 0, 0.01, 0.05, 0.1, 0.25, 1, 3, -1 };
        return d[fz_pick(COUNT(d))];
    }
    if (strcmp(name, "hz") == 0 && fz_pick(10) < 6) { static const double h[] = { 60, 120, 30, 1, 1000 }; return h[fz_pick(COUNT(h))]; }
    return general_double();
}

double fz_double(const char *name) {
    uint64_t bits;
    double d = 0;
    if (!fz_replaying) { d = choose_double(name); memcpy(&bits, &d, sizeof d); }
    bits = FZ_W(bits);
    memcpy(&d, &bits, sizeof d);
    if (fz_printing) { note_sep(); fz_note("%.17g", d); }
    return d;
}

float fz_float(const char *name) {
    float f = (float)fz_double(name);
    return f;
}

bool fz_bool(void) {
    bool b = FZ_W(fz_pick(2)) & 1;
    if (fz_printing) { note_sep(); fz_note(b ? "true" : "false"); }
    return b;
}

static uint64_t choose_integer(const char *name, unsigned bits, bool is_signed) {
    static const int64_t interesting[] = { 0, 1, -1, 2, 3, 7, 8, 16, 60, 255, 256, 65535, 65536, 2147483647LL,
                                           -2147483647LL - 1, 4294967295LL, INT64_MAX, INT64_MIN };
    (void)is_signed;
    if (strcmp(name, "version") == 0) return fz_pick(8) ? 0 : fz_pick(3) + 1;
    if (strstr(name, "lags") || strcmp(name, "options") == 0 || strcmp(name, "attachmentMode") == 0)
        return fz_pick(4) ? fz_pick(4) : fz_rand();
    if (strcmp(name, "frameInterval") == 0 && fz_pick(4)) return fz_pick(4);
    uint64_t v = fz_pick(5) ? (uint64_t)interesting[fz_pick(COUNT(interesting))] : fz_rand();
    if (bits < 64) v &= (1ULL << bits) - 1;
    return v;
}

uint64_t fz_integer(const char *name, unsigned bits, bool is_signed) {
    uint64_t v = FZ_W(choose_integer(name, bits, is_signed));
    if (fz_printing) { note_sep(); fz_note("%lld", (long long)v); }
    return v;
}

static size_t choose_size(const char *name) {
    if (strcmp(name, "width") == 0 || strcmp(name, "height") == 0) {
        static const size_t common[] = { 0, 1, 2, 3, 4, 7, 8, 16, 17, 31, 32, 33, 48, 64 };
        static const size_t rare[] = { 100, 256, 1000, 4096, (size_t)1 << 15, (size_t)1 << 20, (size_t)1 << 31,
                                       (size_t)1 << 40, SIZE_MAX, SIZE_MAX / 2 };
        return fz_pick(20) ? common[fz_pick(COUNT(common))] : rare[fz_pick(COUNT(rare))];
    }
    if (strcmp(name, "bytes") == 0) {   /* the pixel memory limit: never lifted (see the README) */
        static const size_t limits[] = { 1, 4096, (size_t)1 << 20, (size_t)16 << 20, (size_t)64 << 20, (size_t)256 << 20 };
        return limits[fz_pick(COUNT(limits))];
    }
    static const size_t common[] = { 0, 1, 2, 3, 4, 5, 7, 8, 16, 100 };
    static const size_t rare[] = { 1000, (size_t)1 << 31, (size_t)1 << 32, (size_t)1 << 62, SIZE_MAX, SIZE_MAX - 1, SIZE_MAX / 2 };
    return fz_pick(6) ? common[fz_pick(COUNT(common))] : rare[fz_pick(COUNT(rare))];
}

size_t fz_size(const char *name) {
    size_t v = (size_t)FZ_W(choose_size(name));
    if (strcmp(name, "bytes") == 0 && (v == 0 || v > ((size_t)256 << 20))) v = (size_t)256 << 20;
    if (fz_printing) { note_sep(); fz_note("%zu", v); }
    return v;
}

uint32_t fz_pixel_format(void) {
    /* The native format often (renderers and contexts need a renderable one). */
    unsigned r = fz_pick(10);
    uint32_t f = (uint32_t)FZ_W(r < 4 ? kCVPixelFormatType_32BGRA
                                : r < 9 ? fz_pixel_formats[fz_pick((unsigned)fz_pixel_format_count)]
                                        : (fz_pick(2) ? 0 : (uint32_t)fz_rand()));
    if (fz_printing) { note_sep(); fz_note("0x%08x", f); }
    return f;
}

int64_t fz_enum(const int64_t *values, size_t count) {
    int64_t v = (int64_t)FZ_W(values[fz_pick((unsigned)count)]);
    if (fz_printing) { note_sep(); fz_note("%lld", (long long)v); }
    return v;
}

/* MARK: - Strings */

static const char *const png_names[] = { "a.png", "b.png", "c.png" };
extern char fz_temp_dir[];

static char *garbage_string(uint64_t seed, size_t length) {
    char *s = fz_scratch(length + 1);
    uint64_t st = seed;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)(splitmix(&st) & 0xFF);
        s[i] = (char)(c ? c : 'x');
    }
    return s;
}

const char *fz_string(const char *function, const char *name) {
    (void)function;
    uint64_t kind = FZ_W(fz_pick(1000));
    const char *s;
    if (strcmp(name, "path") == 0) {
        /* Files only inside the fuzzer's own temporary directory. */
        uint64_t which = FZ_W(fz_pick(8)) % 8;
        if (which == 0) s = NULL;
        else if (which == 1) s = "";
        else if (which == 2) s = "/nonexistent-quartzite-fuzz/x.png";
        else if (which == 3) s = fz_temp_dir;
        else {
            char *p = fz_scratch(strlen(fz_temp_dir) + 16);
            sprintf(p, "%s/%s", fz_temp_dir, png_names[which % 3]);
            s = p;
        }
    } else if (kind < 40) s = NULL;
    else if (kind < 60) s = "";
    else if (kind < 140) {
        uint64_t seed = FZ_W(fz_rand());
        size_t length = (size_t)(FZ_W(fz_pick(40) + 1) % 64);
        s = garbage_string(seed, length);
    } else if (kind < 142) {
        /* A string of several megabytes. */
        size_t length = (size_t)(FZ_W(((size_t)1 << 20) + fz_pick(1 << 20)) % ((size_t)4 << 20));
        char *p = fz_scratch(length + 1);
        memset(p, 'k', length);
        s = p;
    } else if (kind < 220) {
        /* A key path made of known names. */
        const char *a = fz_strings[FZ_W(fz_pick((unsigned)fz_string_count)) % fz_string_count];
        const char *b = fz_strings[FZ_W(fz_pick((unsigned)fz_string_count)) % fz_string_count];
        char *p = fz_scratch(strlen(a) + strlen(b) + 2);
        sprintf(p, "%s.%s", a, b);
        s = p;
    } else {
        /* Keys and key paths prefer the names of properties; other strings
         * (modes, types, names) the constants. */
        int keyish = strstr(name, "key") || strstr(name, "Key") || strcmp(name, "name") == 0;
        size_t lo = 0, n = fz_string_count;
        if (fz_pick(4)) {
            if (keyish) { lo = fz_key_string_start; n = fz_string_count - lo; }
            else n = fz_key_string_start;
        }
        s = fz_strings[(lo + FZ_W(fz_pick((unsigned)n)) % n) % fz_string_count];
    }
    if (fz_printing) {
        note_sep();
        if (!s) fz_note("NULL");
        else if (strlen(s) > 40) fz_note("\"%.20s...\" (%zu bytes)", s, strlen(s));
        else fz_note("\"%s\"", s);
    }
    return s;
}

/* MARK: - Info pointers, arrays, reads */

static struct { uint64_t tag; int uses; } infos[4];
void *fz_info(void) {
    uint64_t w = FZ_W(fz_pick(5)) % 5;
    return w == 4 ? NULL : &infos[w];
}

long fz_array_count(size_t *count) {
    uint64_t r = FZ_W(fz_pick(100));
    long n;
    if (r < 78) n = (long)(FZ_W(fz_pick(9)) % 9);
    else if (r < 86) n = (long)(FZ_W(16 + fz_pick(240)) % 257);
    else if (r < 88) n = (long)(FZ_W(1000 + fz_pick(19000)) % 20001);
    else {
        static const size_t absurd[] = { 0, 1, 5, SIZE_MAX, SIZE_MAX / 8, (size_t)1 << 31, (size_t)1 << 40, (size_t)1 << 60 };
        *count = (size_t)FZ_W(absurd[fz_pick(COUNT(absurd))]);
        if (fz_printing) { note_sep(); fz_note("NULL[%zu]", *count); }
        return -1;
    }
    *count = (size_t)n;
    if (fz_printing) { note_sep(); fz_note("[%ld]", n); }
    return n;
}

static volatile uint64_t sink_value;
void fz_sink(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) sink_value += b[i];
}
void fz_read_bytes(const void *p, size_t n) { fz_sink(p, n); }
void fz_read_string(const char *s) {
    if (fz_printing) { if (s) printf(" -> \"%.30s\"", s); else printf(" -> NULL"); }
    if (s) sink_value += strlen(s);
}

/* MARK: - Callbacks */

static uint64_t callback_state;
static int callback_depth;
void fz_cb_enter(const char *name) {
    if (callback_depth++ == 0) callback_state = fz_current.callback_seed;
    fz_current.callback = name;
    fz_current.callbacks++;
}
void fz_cb_leave(void) { if (--callback_depth == 0) fz_current.callback = NULL; }
static uint64_t cb_rand(void) { return splitmix(&callback_state); }

bool fz_use_callback(void) { return fz_pick(8) < 6; }
void fz_cb_touch(const void *handle) { if (handle) sink_value += (uintptr_t)QZGetTypeName(handle); }
void fz_cb_touch_string(const char *s) { if (s) sink_value += strlen(s); }
void fz_cb_context(void *ctx) {
    if (!ctx) return;
    CGContextRef c = ctx;
    CGAffineTransform m = CGContextGetCTM(c);
    fz_sink(&m, sizeof m);
    if (cb_rand() % 2) {
        CGContextSetRGBFillColor(c, 1, 0, 0, 1);
        CGContextFillRect(c, CGRectMake(0, 0, (double)(cb_rand() % 64), (double)(cb_rand() % 64)));
    }
}
void *fz_cb_handle(fz_kinds *accept) {
    if (cb_rand() % 3 == 0) return NULL;
    unsigned start = (unsigned)(cb_rand() % FZ_SLOTS);
    for (unsigned i = 0; i < FZ_SLOTS; i++) {
        unsigned s = (start + i) % FZ_SLOTS;
        if (fz_pool[s] && ((accept->mask >> fz_pool_kind[s]) & 1)) return fz_pool[s];
    }
    return NULL;
}
void *fz_cb_owned_value(void) {
    switch (cb_rand() % 4) {
    case 0: return NULL;
    case 1: return CAValueCreateNumber((double)(cb_rand() % 100));
    default: {
        static const char *const value_kind[] = { "CAValue", NULL };
        static fz_kinds values = { value_kind, 0 };
        if (!values.mask) fz_intern_kinds(&values);
        void *v = fz_cb_handle(&values);
        return v ? CARetain(v) : NULL;
    }
    }
}
double fz_cb_double(void) {
    static const double d[] = { 0, 1, 10, 100, -1, 0.5, NAN, INFINITY, 1e308 };
    return d[cb_rand() % COUNT(d)];
}
bool fz_cb_bool(void) { return cb_rand() % 2; }
uint64_t fz_cb_integer(void) { return cb_rand() % 4; }

/* The media clock: advances a little with every question (the library never
 * waits in real time with a custom source), and in steps (@advance). */
double fz_now = 1000;
static pthread_mutex_t clock_lock = PTHREAD_MUTEX_INITIALIZER;
CFTimeInterval fz_clock(void *info) {
    (void)info;
    pthread_mutex_lock(&clock_lock);
    fz_now += 0.0002;
    double t = fz_now;
    pthread_mutex_unlock(&clock_lock);
    return t;
}
void fz_advance_clock(double dt) {
    pthread_mutex_lock(&clock_lock);
    fz_now += dt;
    pthread_mutex_unlock(&clock_lock);
}

long fz_errors_reported;
void fz_error_handler(QZError code, const char *message, void *info) {
    (void)info;
    if (code == QZErrorNone || !message) fz_fail("the error handler got code %d with message %p", (int)code, (const void *)message);
    fz_errors_reported++;
    sink_value += strlen(message);
}

/* MARK: - Functions a generic rule cannot drive */

/* Memory the host hands to the library: buffers made over it are placed at
 * its end, so that reading past what the host declared hits the sanitizer's
 * red zone. Never freed (buffers may outlive any step). */
#define ARENA_BYTES ((size_t)4 << 20)
static unsigned char arena[ARENA_BYTES] __attribute__((aligned(64)));
static void *arena_block(size_t bytes) {
    return bytes <= ARENA_BYTES ? arena + (ARENA_BYTES - bytes) : NULL;
}
static void release_bytes(void *refcon, const void *base) { (void)refcon; (void)base; sink_value++; }
static void release_planar_bytes(void *refcon, const void *data, size_t size, size_t planes, const void *addresses[]) {
    (void)refcon; (void)data; (void)size;
    for (size_t i = 0; i < planes && i < 4; i++) sink_value += (uintptr_t)addresses[i];
}

static const char *const any_names[] = { "*", NULL };
static fz_kinds any_kind = { any_names, 0 };
static const char *const value_names[] = { "CAValue", NULL };
static fz_kinds value_kind = { value_names, 0 };

static CFAllocatorRef allocator(void) {
    return FZ_W(fz_pick(20)) ? NULL : (CFAllocatorRef)fz_handle(&any_kind);
}

static int mul_fits(size_t a, size_t b, size_t *out) {
    if (a && b > SIZE_MAX / a) return 0;
    *out = a * b;
    return 1;
}

void fz_special_CVPixelBufferCreateWithBytes(void) {
    if (!any_kind.mask) { fz_intern_kinds(&any_kind); fz_intern_kinds(&value_kind); }
    CFAllocatorRef a = allocator();
    size_t w = fz_size("width"), h = fz_size("height");
    OSType format = fz_pixel_format();
    size_t bpr = FZ_W(fz_pick(4)) ? (w < ((size_t)1 << 20) ? w * 4 + (size_t)FZ_W(fz_pick(3)) * 3 : 64) : fz_size("bytesPerRow");
    size_t bytes = 0;
    void *base = FZ_W(fz_pick(10)) && mul_fits(h, bpr, &bytes) ? arena_block(bytes) : NULL;
    CVPixelBufferReleaseBytesCallback release = FZ_W(fz_use_callback()) ? release_bytes : NULL;
    void *refcon = fz_info();
    CAValueRef attributes = fz_handle(&value_kind);
    CVPixelBufferRef *out = fz_out_handle();
    fz_before_call();
    CVReturn r = CVPixelBufferCreateWithBytes(a, w, h, format, base, bpr, release, refcon, attributes, out);
    fz_after_call();
    fz_sink(&r, sizeof r);
    fz_adopt_out_handles();
}

void fz_special_CVPixelBufferCreateWithPlanarBytes(void) {
    if (!any_kind.mask) { fz_intern_kinds(&any_kind); fz_intern_kinds(&value_kind); }
    CFAllocatorRef a = allocator();
    size_t w = fz_size("width"), h = fz_size("height");
    OSType format = fz_pixel_format();
    size_t planes = (size_t)FZ_W(fz_pick(8) ? fz_pick(4) : (fz_pick(2) ? SIZE_MAX : 100));
    void *bases[4] = { 0 };
    size_t widths[4] = { 0 }, heights[4] = { 0 }, rows[4] = { 0 };
    int arrays = planes <= 4 && FZ_W(fz_pick(10)) != 0;
    for (size_t i = 0; arrays && i < planes; i++) {
        widths[i] = FZ_W(fz_pick(4) ? w >> (i ? 1 : 0) : fz_size("width"));
        heights[i] = FZ_W(fz_pick(4) ? h >> (i ? 1 : 0) : fz_size("height"));
        rows[i] = FZ_W(fz_pick(4) && widths[i] < ((size_t)1 << 20) ? widths[i] * 2 + 16 : fz_size("bytesPerRow"));
        size_t bytes;
        if (FZ_W(fz_pick(10)) && mul_fits(heights[i], rows[i], &bytes) && bytes <= ARENA_BYTES / 4)
            bases[i] = arena + ARENA_BYTES / 4 * (i + 1) - bytes;   /* each plane at the end of its quarter */
    }
    void *data = FZ_W(fz_pick(2)) ? arena : NULL;
    size_t size = (size_t)FZ_W(fz_pick(2) ? ARENA_BYTES : fz_size("dataSize"));
    if (data && size > ARENA_BYTES) size = ARENA_BYTES;
    CVPixelBufferReleasePlanarBytesCallback release = FZ_W(fz_use_callback()) ? release_planar_bytes : NULL;
    void *refcon = fz_info();
    CAValueRef attributes = fz_handle(&value_kind);
    CVPixelBufferRef *out = fz_out_handle();
    fz_before_call();
    CVReturn r = CVPixelBufferCreateWithPlanarBytes(a, w, h, format, data, size, planes, arrays ? bases : NULL,
                                                    arrays ? widths : NULL, arrays ? heights : NULL, arrays ? rows : NULL,
                                                    release, refcon, attributes, out);
    fz_after_call();
    fz_sink(&r, sizeof r);
    fz_adopt_out_handles();
}

void fz_special_CGBitmapContextCreate(void) {
    if (!any_kind.mask) { fz_intern_kinds(&any_kind); fz_intern_kinds(&value_kind); }
    size_t w = fz_size("width"), h = fz_size("height");
    static const size_t bpcs[] = { 8, 8, 8, 16, 5, 0, 32, 1 };
    size_t bpc = (size_t)FZ_W(bpcs[fz_pick(COUNT(bpcs))]);
    size_t bpr = FZ_W(fz_pick(4)) ? (w < ((size_t)1 << 20) ? w * 4 : 64) : fz_size("bytesPerRow");
    size_t bytes = 0;
    void *data = FZ_W(fz_pick(3)) && mul_fits(h, bpr, &bytes) ? arena_block(bytes) : NULL;
    CGColorSpaceRef space = FZ_W(fz_pick(4)) ? NULL : (CGColorSpaceRef)fz_handle(&any_kind);
    uint32_t info = (uint32_t)fz_integer("bitmapInfo", 32, false);
    fz_before_call();
    CGContextRef c = CGBitmapContextCreate(data, w, h, bpc, bpr, space, info);
    fz_after_call();
    fz_result(c, true);
}

static void release_provider_data(void *info, const void *data, size_t size) {
    (void)info;
    sink_value += (uintptr_t)data + size;
}

void fz_special_CGDataProviderCreateWithData(void) {
    /* The bytes live in the arena (as long as the run); their size is drawn,
     * a NULL pointer with a size included. */
    size_t size = fz_size("size");
    const void *data = FZ_W(fz_pick(8)) ? arena_block(size) : NULL;
    void *info = fz_info();
    CGDataProviderReleaseDataCallback release = FZ_W(fz_pick(2)) ? release_provider_data : NULL;
    fz_before_call();
    CGDataProviderRef p = CGDataProviderCreateWithData(info, data, size, release);
    fz_after_call();
    fz_result(p, true);
}

void fz_special_CGGradientCreateWithColorComponents(void) {
    /* `count` colours of the space's components plus alpha each (at most 5:
     * CMYK), and `count` locations or NULL (evenly spaced). A NULL
     * components array comes with an absurd count. */
    if (!any_kind.mask) { fz_intern_kinds(&any_kind); fz_intern_kinds(&value_kind); }
    size_t count = 0;
    long n = fz_array_count(&count);
    CGColorSpaceRef space = (CGColorSpaceRef)fz_handle(&any_kind);
    double *components = NULL, *locations = NULL;
    if (n >= 0) {
        components = (double *)fz_scratch(sizeof(double) * (size_t)(5 * n + 1));
        for (long k = 0; k < 5 * n; k++) components[k] = fz_double("components");
        if (FZ_W(fz_pick(4))) {
            locations = (double *)fz_scratch(sizeof(double) * (size_t)(n + 1));
            for (long k = 0; k < n; k++) locations[k] = fz_double("locations");
        }
    }
    fz_before_call();
    CGGradientRef g = CGGradientCreateWithColorComponents(space, components, locations, count);
    fz_after_call();
    fz_result(g, true);
}

static void stop_current_loop(void *info) { (void)info; CFRunLoopStop(CFRunLoopGetCurrent()); }

void fz_special_CFRunLoopRun(void) {
    /* CFRunLoopRun returns only when stopped or out of work: a perform
     * queued first stops it after one turn. */
    fz_before_call();
    QZRunLoopPerformFunction(CFRunLoopGetCurrent(), kCFRunLoopDefaultMode, stop_current_loop, NULL);
    CFRunLoopRun();
    fz_after_call();
}
