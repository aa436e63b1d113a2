/* The stateful fuzzer: long random sequences of calls across every exported
 * function (the table scripts/generate-fuzz-calls.py makes from the header),
 * over a pool of live objects of every handle type made by the library's own
 * constructors. Every step is recorded on a tape; a failing sequence is cut
 * and minimised automatically into a short tape that replays the failure and
 * becomes a regression test (Tests/c/fuzz/regressions).
 *
 *   test_fuzz_stateful run --seed S --steps N [--tape FILE] [--print]
 *   test_fuzz_stateful campaign --seeds 1,2,3 --steps N [--min-calls K] [--save DIR]
 *   test_fuzz_stateful replay FILE [--print]
 *   test_fuzz_stateful minimize FILE OUT
 *   test_fuzz_stateful regress DIR
 *
 * A campaign runs each seed in a child process and reports, per seed, the
 * calls made and any crash, abort, sanitizer report or hang (no progress for
 * QZ_FUZZ_HANG_SECONDS, default 60), then checks that every export was
 * called at least K times. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "fuzz_internal.h"

char fz_temp_dir[256];

/* What a child shows its parent, in shared memory: where it is (for crash
 * reports and the hang watchdog) and how often each function was called. */
typedef struct shared_state {
    volatile unsigned long progress;
    volatile long step;
    char function[96];
    char callback[96];
    unsigned long calls;
    unsigned long accepted;   /* calls that recorded no error */
    long current;             /* the function being called (index), -1 none */
    unsigned long counts[];   /* calls per function, then calls without error per function */
} shared_state;
static shared_state *shared;

static FILE *tape_out;

__attribute__((noreturn, format(printf, 1, 2))) void fz_fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "fuzz: FAILED at step %ld (%s): ", shared ? shared->step : -1L, fz_current.name ? fz_current.name : "?");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

static void write_step_line(void) {
    if (!tape_out) return;
    fputs(fz_current.name, tape_out);
    for (size_t i = 0; i < fz_current.count; i++) fprintf(tape_out, " %llx", (unsigned long long)fz_current.words[i]);
    fputc('\n', tape_out);
    fflush(tape_out);   /* on disk before the call: a crash inside it leaves the step on the tape */
}

static long step_index;
void fz_before_call(void) {
    write_step_line();
    if (fz_printing) {
        printf("#%ld %s(%s)", step_index, fz_current.name, fz_notes());
        fflush(stdout);
    }
    fz_current.in_call = 1;
    QZClearLastError();
}

void fz_after_call(void) {
    fz_current.in_call = 0;
    if (shared && QZGetLastError() == QZErrorNone) {
        shared->accepted++;
        if (shared->current >= 0) shared->counts[fz_function_count + (size_t)shared->current]++;
    }
    if (fz_printing) {
        QZError e = QZGetLastError();
        if (e != QZErrorNone) printf(" error %d: %s", (int)e, QZGetLastErrorMessage());
    }
}

/* MARK: - Steps */

static const fz_function *find_function(const char *name) {
    for (size_t i = 0; i < fz_function_count; i++) if (strcmp(fz_functions[i].name, name) == 0) return &fz_functions[i];
    return NULL;
}

#define ADVANCE_WEIGHT 40
static const double advances[] = { 0.001, 0.004, 0.016, 0.05, 0.1, 0.25, 0.5, 1, 3, 1000 };

static void run_advance(void) {
    fz_current.name = "@advance";
    fz_current.count = fz_current.read = 0;
    uint64_t w = FZ_W(fz_pick(sizeof advances / sizeof advances[0]));
    double dt = advances[w % (sizeof advances / sizeof advances[0])];
    write_step_line();
    if (fz_printing) printf("#%ld @advance %g\n", step_index, dt);
    fz_advance_clock(dt);
}

static void run_function(const fz_function *f) {
    fz_current.name = f->name;
    fz_current.count = fz_current.read = 0;
    fz_current.in_call = 0;
    fz_step_prepare();
    if (shared) {
        snprintf(shared->function, sizeof shared->function, "%s", f->name);
        shared->counts[f - fz_functions]++;
        shared->current = f - fz_functions;
        shared->calls++;
    }
    f->call();
    fz_step_cleanup();
    if (fz_printing) { printf("\n"); fflush(stdout); }
}

static void begin_step(void) {
    if (shared) {
        shared->step = step_index;
        shared->progress++;
    }
}

static unsigned long *cumulative;
static unsigned long total_weight;
static void free_weights(void) { free(cumulative); }
static void build_weights(void) {
    cumulative = calloc(fz_function_count, sizeof *cumulative);
    atexit(free_weights);
    unsigned long sum = 0;
    for (size_t i = 0; i < fz_function_count; i++) cumulative[i] = (sum += fz_functions[i].weight);
    total_weight = sum + ADVANCE_WEIGHT;
}

static const fz_function *draw_function(void) {
    unsigned long r = fz_rand() % total_weight;
    if (r >= cumulative[fz_function_count - 1]) return NULL;   /* @advance */
    size_t lo = 0, hi = fz_function_count - 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cumulative[mid] > r) hi = mid; else lo = mid + 1;
    }
    return &fz_functions[lo];
}

/* MARK: - Setting up and tearing down a run */

static void start_library(void) {
    /* Files the previous run wrote must not leak into this one. */
    static const char *const files[] = { "a.png", "b.png", "c.png" };
    for (int i = 0; i < 3; i++) {
        char path[400];
        snprintf(path, sizeof path, "%s/%s", fz_temp_dir, files[i]);
        unlink(path);
    }
    fz_init_kinds();
    QZSetMediaTimeSource(fz_clock, NULL);
    QZPixelBufferSetMemoryLimit((size_t)256 << 20);
    QZSetErrorHandler(fz_error_handler, NULL);
}

static void stop_library(void) {
    /* Close what the sequence left open, then let every handle go. */
    if (shared) {
        shared->step = step_index;
        snprintf(shared->function, sizeof shared->function, "@teardown");
    }
    for (int i = 0; i < 64; i++) CATransactionCommit();
    for (int i = 0; i < 64; i++) CATransactionUnlock();
    QZClearLastError();
    for (unsigned s = 0; s < FZ_SLOTS; s++) fz_pool_put(s, NULL, -1);
    CATransactionFlush();
    fz_advance_clock(10000);
    QZAnimationProcessEvents();
    QZSetMediaTimeSource(NULL, NULL);
    QZSetErrorHandler(NULL, NULL);
    QZClearLastError();
}

/* MARK: - The hang watchdog */

static int hang_seconds = 60;
static void *watchdog(void *arg) {
    (void)arg;
    unsigned long last = shared->progress;
    int still = 0;
    for (;;) {
        sleep(1);
        if (shared->progress != last) { last = shared->progress; still = 0; continue; }
        if (++still >= hang_seconds) {
            fprintf(stderr, "fuzz: HANG: step %ld (%s%s%s) made no progress for %d s\n", shared->step, shared->function,
                    fz_current.callback ? ", in callback " : "", fz_current.callback ? fz_current.callback : "", hang_seconds);
            abort();
        }
    }
    return NULL;
}

static void start_watchdog(void) {
    pthread_t t;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_create(&t, &attr, watchdog, NULL);
    pthread_attr_destroy(&attr);
}

static shared_state *make_shared(void) {
    size_t bytes = sizeof(shared_state) + 2 * fz_function_count * sizeof(unsigned long);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) { perror("mmap"); exit(2); }
    memset(p, 0, bytes);
    return p;
}

/* MARK: - Generating */

static int run_generated(uint64_t seed, long steps, const char *tape) {
    fz_seed(seed);
    if (tape) {
        tape_out = fopen(tape, "w");
        if (!tape_out) { perror(tape); return 2; }
        fprintf(tape_out, "# quartzite stateful fuzz tape, seed %llu\n", (unsigned long long)seed);
        fflush(tape_out);
    }
    start_library();
    for (step_index = 0; step_index < steps; step_index++) {
        begin_step();
        fz_replaying = 0;
        const fz_function *f = draw_function();
        if (f) run_function(f); else run_advance();
    }
    stop_library();
    if (tape_out) { fclose(tape_out); tape_out = NULL; }
    return 0;
}

/* MARK: - Tapes */

typedef struct tape_step { char *name; uint64_t *words; size_t count; } tape_step;
typedef struct tape { tape_step *steps; size_t count; } tape;

static int read_tape(const char *path, tape *t) {
    FILE *f = fopen(path, "r");
    if (!f) { perror(path); return 0; }
    t->steps = NULL;
    t->count = 0;
    size_t capacity = 0;
    char *line = NULL;
    size_t n = 0;
    while (getline(&line, &n, f) > 0) {
        if (line[0] == '#' || line[0] == '\n') continue;
        char *save = NULL;
        char *name = strtok_r(line, " \n", &save);
        if (!name) continue;
        if (t->count == capacity) {
            capacity = capacity ? capacity * 2 : 256;
            t->steps = realloc(t->steps, capacity * sizeof *t->steps);
        }
        tape_step *s = &t->steps[t->count++];
        s->name = strdup(name);
        s->words = NULL;
        s->count = 0;
        size_t wcap = 0;
        for (char *w = strtok_r(NULL, " \n", &save); w; w = strtok_r(NULL, " \n", &save)) {
            if (s->count == wcap) { wcap = wcap ? wcap * 2 : 16; s->words = realloc(s->words, wcap * sizeof(uint64_t)); }
            s->words[s->count++] = strtoull(w, NULL, 16);
        }
    }
    free(line);
    fclose(f);
    return 1;
}

static void free_tape(tape *t) {
    for (size_t i = 0; i < t->count; i++) { free(t->steps[i].name); free(t->steps[i].words); }
    free(t->steps);
    t->steps = NULL;
    t->count = 0;
}

static int write_tape(const char *path, const tape *t, const char *comment) {
    FILE *f = fopen(path, "w");
    if (!f) { perror(path); return 0; }
    fprintf(f, "# quartzite stateful fuzz tape%s%s\n", comment ? ": " : "", comment ? comment : "");
    for (size_t i = 0; i < t->count; i++) {
        fputs(t->steps[i].name, f);
        for (size_t k = 0; k < t->steps[i].count; k++) fprintf(f, " %llx", (unsigned long long)t->steps[i].words[k]);
        fputc('\n', f);
    }
    fclose(f);
    return 1;
}

static void replay_steps(const tape *t, const unsigned char *keep) {
    start_library();
    fz_replaying = 1;
    for (size_t i = 0; i < t->count; i++) {
        if (keep && !keep[i]) continue;
        step_index = (long)i;
        begin_step();
        const tape_step *s = &t->steps[i];
        fz_current.words = s->words;   /* read only while replaying */
        fz_current.count = s->count;
        fz_current.capacity = s->count;
        fz_current.read = 0;
        if (strcmp(s->name, "@advance") == 0) {
            uint64_t w = fz_next_word();
            double dt = advances[w % (sizeof advances / sizeof advances[0])];
            if (fz_printing) printf("#%ld @advance %g\n", step_index, dt);
            fz_advance_clock(dt);
            continue;
        }
        const fz_function *f = find_function(s->name);
        if (!f) { if (fz_printing) printf("#%ld %s: no such function (skipped)\n", step_index, s->name); continue; }
        fz_current.name = f->name;
        fz_current.in_call = 0;
        fz_step_prepare();
        if (shared) snprintf(shared->function, sizeof shared->function, "%s", f->name);
        f->call();
        fz_step_cleanup();
        if (fz_printing) { printf("\n"); fflush(stdout); }
    }
    fz_current.words = NULL;
    fz_current.count = fz_current.capacity = 0;
    stop_library();
}

/* MARK: - Children */

typedef struct outcome {
    int failed;            /* crash, abort, sanitizer report or hang */
    char signature[160];   /* how it failed and in which function */
    long step;
} outcome;

static outcome wait_child(pid_t pid) {
    outcome o = { 0, "", -1 };
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    o.step = shared->step;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return o;
    o.failed = 1;
    if (WIFSIGNALED(status)) snprintf(o.signature, sizeof o.signature, "signal %d in %s", WTERMSIG(status), shared->function);
    else snprintf(o.signature, sizeof o.signature, "exit %d in %s", WEXITSTATUS(status), shared->function);
    return o;
}

static void reset_shared(void) {
    shared->progress = 0;
    shared->step = -1;
    shared->function[0] = 0;
    shared->callback[0] = 0;
}

static outcome replay_in_child(const tape *t, const unsigned char *keep, int quiet) {
    reset_shared();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (quiet) {
            FILE *devnull = fopen("/dev/null", "w");
            if (devnull) { dup2(fileno(devnull), 1); dup2(fileno(devnull), 2); }
        }
        start_watchdog();
        replay_steps(t, keep);
        fflush(NULL);
        _exit(0);
    }
    return wait_child(pid);
}

/* MARK: - Minimising */

static int same_failure(const outcome *a, const outcome *b) {
    return a->failed && b->failed && strcmp(a->signature, b->signature) == 0;
}

static int minimize(const char *in, const char *out) {
    tape t;
    if (!read_tape(in, &t)) return 2;
    outcome original = replay_in_child(&t, NULL, 1);
    if (!original.failed) {
        fprintf(stderr, "minimize: %s replays without failing (a failure that depends on timing or on the order of a hash table?)\n", in);
        free_tape(&t);
        return 1;
    }
    printf("minimize: %zu steps fail with %s at step %ld\n", t.count, original.signature, original.step);
    /* Steps after the failing one do not matter. */
    if (original.step >= 0 && (size_t)original.step + 1 < t.count) t.count = (size_t)original.step + 1;
    unsigned char *keep = malloc(t.count);
    memset(keep, 1, t.count);
    size_t live = t.count;
    time_t start = time(NULL);
    int budget = 4000;
    size_t n = 2;
    while (live >= 2 && budget > 0 && time(NULL) - start < 900) {
        size_t *index = malloc(live * sizeof *index);
        size_t k = 0;
        for (size_t i = 0; i < t.count; i++) if (keep[i]) index[k++] = i;
        size_t chunk = (live + n - 1) / n;
        int reduced = 0;
        for (size_t c = 0; c < n && c * chunk < live && budget > 0; c++) {
            for (size_t i = c * chunk; i < (c + 1) * chunk && i < live; i++) keep[index[i]] = 0;
            budget--;
            outcome o = replay_in_child(&t, keep, 1);
            if (same_failure(&o, &original)) {
                live -= ((c + 1) * chunk < live ? chunk : live - c * chunk);
                n = n > 2 ? n - 1 : 2;
                reduced = 1;
                break;
            }
            for (size_t i = c * chunk; i < (c + 1) * chunk && i < live; i++) keep[index[i]] = 1;
        }
        free(index);
        if (!reduced) {
            if (n >= live) break;
            n = n * 2 < live ? n * 2 : live;
        }
    }
    tape small = { malloc(live * sizeof(tape_step)), 0 };
    for (size_t i = 0; i < t.count; i++) if (keep[i]) small.steps[small.count++] = t.steps[i];
    char comment[256];
    snprintf(comment, sizeof comment, "%s (minimised from %s)", original.signature, in);
    int written = write_tape(out, &small, comment);
    if (written) printf("minimize: %zu steps written to %s\n", small.count, out);
    free(small.steps);
    free(keep);
    free_tape(&t);
    return written ? 0 : 2;
}

/* MARK: - Campaigns */

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
    (void)sb; (void)flag; (void)ftw;
    return remove(path);
}

static int campaign(const char *seeds, long steps, unsigned long min_calls, const char *save_dir) {
    char work[300];
    snprintf(work, sizeof work, "%s/work", fz_temp_dir);
    mkdir(work, 0700);
    unsigned long *totals = calloc(2 * fz_function_count, sizeof *totals);
    unsigned long calls = 0, accepted = 0;
    int seeds_run = 0, failures = 0;
    char *list = strdup(seeds);
    char *save = NULL;
    time_t start = time(NULL);
    for (char *s = strtok_r(list, ",", &save); s; s = strtok_r(NULL, ",", &save)) {
        uint64_t seed = strtoull(s, NULL, 0);
        char tape_path[400];
        snprintf(tape_path, sizeof tape_path, "%s/seed-%llu.tape", work, (unsigned long long)seed);
        reset_shared();
        memset(shared->counts, 0, 2 * fz_function_count * sizeof(unsigned long));
        shared->calls = 0;
        shared->accepted = 0;
        fflush(NULL);
        time_t t0 = time(NULL);
        pid_t pid = fork();
        if (pid == 0) {
            start_watchdog();
            int rc = run_generated(seed, steps, tape_path);
            fflush(NULL);
            _exit(rc);
        }
        outcome o = wait_child(pid);
        seeds_run++;
        calls += shared->calls;
        accepted += shared->accepted;
        for (size_t i = 0; i < 2 * fz_function_count; i++) totals[i] += shared->counts[i];
        if (!o.failed) {
            printf("fuzz: seed %llu: %lu calls (%lu recorded no error) in %ld steps, no failure (%lds)\n",
                   (unsigned long long)seed, shared->calls, shared->accepted, steps, (long)(time(NULL) - t0));
            fflush(stdout);
            continue;
        }
        failures++;
        printf("fuzz: seed %llu: FAILED (%s) at step %ld; tape %s\n", (unsigned long long)seed, o.signature, o.step, tape_path);
        char min_path[500];
        if (save_dir) {
            mkdir(save_dir, 0755);
            snprintf(min_path, sizeof min_path, "%s/seed-%llu-%s.tape", save_dir, (unsigned long long)seed, shared->function);
        } else {
            snprintf(min_path, sizeof min_path, "fuzz-seed-%llu.min.tape", (unsigned long long)seed);
        }
        fflush(stdout);
        if (minimize(tape_path, min_path) == 0)
            printf("fuzz: reproduce with: test_fuzz_stateful replay %s --print\n", min_path);
    }
    free(list);
    printf("fuzz: %d seeds, %lu calls (%lu recorded no error), %d failed (%lds)\n", seeds_run, calls, accepted, failures,
           (long)(time(NULL) - start));
    size_t short_of = 0;
    unsigned long least = (unsigned long)-1;
    for (size_t i = 0; i < fz_function_count; i++) {
        if (totals[i] < least) least = totals[i];
        if (totals[i] < min_calls) {
            if (short_of++ < 20) printf("fuzz: %s was called %lu times (fewer than %lu)\n", fz_functions[i].name, totals[i], min_calls);
        }
    }
    printf("fuzz: %zu exports, each called at least %lu times%s\n", fz_function_count, least,
           short_of ? "" : (min_calls ? " (coverage ok)" : ""));
    if (getenv("QZ_FUZZ_STATS")) {
        /* Per export: calls, and calls that recorded no error. */
        for (size_t i = 0; i < fz_function_count; i++)
            printf("fuzz-stats: %-56s %8lu calls %8lu without error\n", fz_functions[i].name, totals[i],
                   totals[fz_function_count + i]);
    }
    nftw(work, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(totals);
    if (short_of) printf("fuzz: %zu exports were called fewer than %lu times\n", short_of, min_calls);
    return failures || short_of ? 1 : 0;
}

static int regress(const char *dir) {
    DIR *d = opendir(dir);
    if (!d) { perror(dir); return 2; }
    int failed = 0, count = 0;
    struct dirent *e;
    char **names = NULL;
    size_t n = 0;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".tape") != 0) continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        tape t;
        if (!read_tape(path, &t)) { failed++; continue; }
        outcome o = replay_in_child(&t, NULL, 0);
        count++;
        printf("%s %s (%zu steps)%s%s\n", o.failed ? "FAIL" : "ok  ", names[i], t.count, o.failed ? ": " : "", o.signature);
        if (o.failed) failed++;
        free_tape(&t);
    }
    for (size_t i = 0; i < n; i++) free(names[i]);
    free(names);
    printf("%d passed, %d failed\n", count - failed, failed);
    return failed ? 1 : 0;
}

/* MARK: - main */

static void make_temp_dir(void) {
    const char *base = getenv("TMPDIR");
    snprintf(fz_temp_dir, sizeof fz_temp_dir, "%s/qz-fuzz-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(fz_temp_dir)) { perror("mkdtemp"); exit(2); }
}

static pid_t temp_owner;
static void remove_temp_dir(void) {
    if (getpid() == temp_owner) nftw(fz_temp_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Replays must see the same Swift hash-table order (animation registry,
 * dictionaries keyed by object identity): fixed hashing seeds and no
 * address randomisation, set before the library loads (so re-executed). */
static void make_deterministic(char **argv) {
    if (getenv("QZ_FUZZ_NO_REEXEC") || getenv("SWIFT_DETERMINISTIC_HASHING")) return;
    setenv("SWIFT_DETERMINISTIC_HASHING", "1", 1);
    int p = personality(0xffffffff);
    if (p != -1 && !(p & ADDR_NO_RANDOMIZE)) personality((unsigned long)p | ADDR_NO_RANDOMIZE);
    execv("/proc/self/exe", argv);
}

static const char *option(int argc, char **argv, const char *name) {
    for (int i = 2; i + 1 < argc; i++) if (strcmp(argv[i], name) == 0) return argv[i + 1];
    return NULL;
}
static int flag(int argc, char **argv, const char *name) {
    for (int i = 2; i < argc; i++) if (strcmp(argv[i], name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s run|campaign|replay|minimize|regress ... (see fuzz_driver.c)\n", argv[0]);
        return 2;
    }
    make_deterministic(argv);
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *hang = getenv("QZ_FUZZ_HANG_SECONDS");
    if (hang) hang_seconds = atoi(hang) > 0 ? atoi(hang) : hang_seconds;
    make_temp_dir();
    temp_owner = getpid();
    atexit(remove_temp_dir);
    shared = make_shared();
    build_weights();
    fz_printing = flag(argc, argv, "--print");
    const char *mode = argv[1];
    if (strcmp(mode, "run") == 0) {
        const char *seed = option(argc, argv, "--seed"), *steps = option(argc, argv, "--steps");
        start_watchdog();
        int rc = run_generated(seed ? strtoull(seed, NULL, 0) : 1, steps ? atol(steps) : 10000, option(argc, argv, "--tape"));
        printf("fuzz: %lu calls, %lu callbacks\n", shared->calls, fz_current.callbacks);
        return rc;
    }
    if (strcmp(mode, "campaign") == 0) {
        const char *seeds = option(argc, argv, "--seeds"), *steps = option(argc, argv, "--steps");
        const char *min = option(argc, argv, "--min-calls");
        return campaign(seeds ? seeds : "1", steps ? atol(steps) : 10000, min ? strtoul(min, NULL, 0) : 0,
                        option(argc, argv, "--save"));
    }
    if (strcmp(mode, "replay") == 0 && argc >= 3) {
        tape t;
        if (!read_tape(argv[2], &t)) return 2;
        start_watchdog();
        replay_steps(&t, NULL);
        printf("fuzz: replayed %zu steps without failure\n", t.count);
        free_tape(&t);
        return 0;
    }
    if (strcmp(mode, "minimize") == 0 && argc >= 4) return minimize(argv[2], argv[3]);
    if (strcmp(mode, "regress") == 0 && argc >= 3) return regress(argv[2]);
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
