/* The demo's APNG writer (examples/apng_writer.c): chunk order, sequence
 * numbers, CRCs, frame data carried over unchanged and decodable, and the
 * inputs it refuses. The PNG frames are made here with zlib. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "apng_writer.h"

static int passed, failed;
#define CHECK(cond) do { if (cond) passed++; else { failed++; fprintf(stderr, "  FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); } } while (0)

static char dir[64];

static void put32(unsigned char *p, uint32_t v) { p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = (unsigned char)v; }
static uint32_t be32(const unsigned char *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

static void chunk(FILE *f, const char *type, const unsigned char *data, uint32_t len) {
    unsigned char b[4];
    put32(b, len);
    fwrite(b, 1, 4, f);
    fwrite(type, 1, 4, f);
    if (len) fwrite(data, 1, len, f);
    uLong crc = crc32(crc32(0, Z_NULL, 0), (const Bytef *)type, 4);
    if (len) crc = crc32(crc, data, len);
    put32(b, (uint32_t)crc);
    fwrite(b, 1, 4, f);
}

/* The raw scanlines (filter byte 0, then RGBA) of a w x h frame whose pixels depend on `seed`. */
static unsigned char *raw_frame(unsigned w, unsigned h, unsigned seed, size_t *size) {
    *size = (size_t)h * (1 + 4 * w);
    unsigned char *r = malloc(*size);
    for (unsigned y = 0; y < h; y++) {
        unsigned char *row = r + y * (1 + 4 * w);
        row[0] = 0;
        for (unsigned x = 0; x < 4 * w; x++) row[1 + x] = (unsigned char)(x * 7 + y * 13 + seed * 31);
    }
    return r;
}

/* Writes a PNG of w x h RGBA8; its image data split into `parts` IDAT chunks;
 * with a gAMA chunk when `gama`. Returns the path (static storage per index). */
static const char *make_png(int index, unsigned w, unsigned h, unsigned seed, int parts, int gama) {
    static char paths[8][96];
    snprintf(paths[index], sizeof paths[index], "%s/frame%d.png", dir, index);
    FILE *f = fopen(paths[index], "wb");
    static const unsigned char sig[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
    fwrite(sig, 1, 8, f);
    unsigned char ihdr[13];
    put32(ihdr, w);
    put32(ihdr + 4, h);
    ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
    chunk(f, "IHDR", ihdr, 13);
    if (gama) {
        unsigned char g[4];
        put32(g, 45455);
        chunk(f, "gAMA", g, 4);
    }
    size_t n;
    unsigned char *raw = raw_frame(w, h, seed, &n);
    uLongf clen = compressBound(n);
    unsigned char *z = malloc(clen);
    compress(z, &clen, raw, n);
    uLongf first = parts > 1 ? clen / 2 : clen;
    chunk(f, "IDAT", z, (uint32_t)first);
    if (parts > 1) chunk(f, "IDAT", z + first, (uint32_t)(clen - first));
    chunk(f, "IEND", NULL, 0);
    fclose(f);
    free(raw);
    free(z);
    return paths[index];
}

static unsigned char *slurp(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n);
    if (fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); fclose(f); return NULL; }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static void test_structure(void) {
    const char *frames[3] = { make_png(0, 5, 3, 0, 1, 1), make_png(1, 5, 3, 1, 2, 0), make_png(2, 5, 3, 2, 1, 0) };
    char out[96];
    snprintf(out, sizeof out, "%s/anim.png", dir);
    CHECK(apng_write_from_png_files(out, frames, 3, 1, 12) == 0);
    size_t size;
    unsigned char *b = slurp(out, &size);
    CHECK(b != NULL);
    if (!b) return;
    CHECK(size > 8 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0);
    /* Expected order: IHDR gAMA acTL fcTL(0) IDAT fcTL(1) fdAT(2) fdAT(3) fcTL(4) fdAT(5) IEND. */
    const char *order[] = { "IHDR", "gAMA", "acTL", "fcTL", "IDAT", "fcTL", "fdAT", "fdAT", "fcTL", "fdAT", "IEND" };
    const uint32_t seqs[] = { 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 0 };
    size_t at = 8;
    int k = 0, crc_ok = 1;
    unsigned char *data[3] = { NULL, NULL, NULL };
    size_t data_len[3] = { 0, 0, 0 };
    int frame = -1;
    while (at + 12 <= size && k < 11) {
        uint32_t len = be32(b + at);
        const unsigned char *type = b + at + 4, *d = b + at + 8;
        uLong crc = crc32(crc32(0, Z_NULL, 0), type, 4 + len);
        if (crc != be32(d + len)) crc_ok = 0;
        CHECK(memcmp(type, order[k], 4) == 0);
        if (memcmp(type, "IHDR", 4) == 0) {
            CHECK(len == 13 && be32(d) == 5 && be32(d + 4) == 3 && d[8] == 8 && d[9] == 6);
        } else if (memcmp(type, "acTL", 4) == 0) {
            CHECK(len == 8 && be32(d) == 3 && be32(d + 4) == 0);
        } else if (memcmp(type, "fcTL", 4) == 0) {
            frame++;
            CHECK(len == 26 && be32(d) == seqs[k]);
            CHECK(be32(d + 4) == 5 && be32(d + 8) == 3 && be32(d + 12) == 0 && be32(d + 16) == 0);
            CHECK(d[20] == 0 && d[21] == 1 && d[22] == 0 && d[23] == 12 && d[24] == 0 && d[25] == 0);
        } else if (memcmp(type, "IDAT", 4) == 0 || memcmp(type, "fdAT", 4) == 0) {
            int fd = type[1] == 'd';
            if (fd) CHECK(be32(d) == seqs[k]);
            size_t n = len - (fd ? 4 : 0);
            data[frame] = realloc(data[frame], data_len[frame] + n);
            memcpy(data[frame] + data_len[frame], d + (fd ? 4 : 0), n);
            data_len[frame] += n;
        }
        at += 12 + len;
        k++;
    }
    CHECK(k == 11 && at == size);
    CHECK(crc_ok);
    /* Each frame's data inflates to its own scanlines. */
    for (int i = 0; i < 3; i++) {
        size_t n;
        unsigned char *raw = raw_frame(5, 3, (unsigned)i, &n);
        unsigned char *got = malloc(n + 16);
        uLongf got_len = n + 16;
        CHECK(data[i] && uncompress(got, &got_len, data[i], data_len[i]) == Z_OK && got_len == n && memcmp(got, raw, n) == 0);
        free(raw);
        free(got);
        free(data[i]);
    }
    free(b);
    remove(out);
}

static void test_single_frame(void) {
    const char *frames[1] = { make_png(3, 2, 2, 9, 1, 0) };
    char out[96];
    snprintf(out, sizeof out, "%s/one.png", dir);
    CHECK(apng_write_from_png_files(out, frames, 1, 1, 0) == 0);
    size_t size;
    unsigned char *b = slurp(out, &size);
    CHECK(b && size == 8 + 25 + 20 + 38 + (12 + be32(b + 8 + 25 + 20 + 38)) + 12);
    free(b);
    remove(out);
}

static void test_refusals(void) {
    char out[96];
    snprintf(out, sizeof out, "%s/bad.png", dir);
    const char *good = make_png(4, 4, 4, 0, 1, 0);
    const char *other = make_png(5, 4, 5, 0, 1, 0);
    const char *mixed[2] = { good, other };
    CHECK(apng_write_from_png_files(out, mixed, 2, 1, 10) == -1);
    CHECK(access(out, F_OK) != 0);
    const char *missing[2] = { good, "/nonexistent/x.png" };
    CHECK(apng_write_from_png_files(out, missing, 2, 1, 10) == -1);
    const char *one[1] = { good };
    CHECK(apng_write_from_png_files(out, one, 0, 1, 10) == -1);
    CHECK(apng_write_from_png_files(NULL, one, 1, 1, 10) == -1);
    CHECK(apng_write_from_png_files(out, NULL, 1, 1, 10) == -1);
    CHECK(apng_write_from_png_files(out, one, 1, 70000, 10) == -1);
    const char *nullpath[2] = { good, NULL };
    CHECK(apng_write_from_png_files(out, nullpath, 2, 1, 10) == -1);
    /* A corrupted CRC. */
    const char *corrupt = make_png(6, 4, 4, 0, 1, 0);
    FILE *f = fopen(corrupt, "r+b");
    fseek(f, 8 + 8 + 13, SEEK_SET);
    fputc(0x00, f);
    fputc(0x00, f);
    fclose(f);
    const char *bad[2] = { good, corrupt };
    CHECK(apng_write_from_png_files(out, bad, 2, 1, 10) == -1);
    /* Not a PNG at all. */
    const char *self[1] = { __FILE__ };
    CHECK(apng_write_from_png_files(out, self, 1, 1, 10) == -1);
    CHECK(access(out, F_OK) != 0);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/qz_apng_XXXXXX");
    if (!mkdtemp(dir)) { perror("mkdtemp"); return 1; }
    test_structure();
    test_single_frame();
    test_refusals();
    for (int i = 0; i < 7; i++) {
        char p[128];
        snprintf(p, sizeof p, "%s/frame%d.png", dir, i);
        remove(p);
    }
    rmdir(dir);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
