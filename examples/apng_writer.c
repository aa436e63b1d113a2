/* apng_writer: see apng_writer.h. */
#include "apng_writer.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const unsigned char png_signature[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

/* Files above this are refused (a PNG frame of the demo is far smaller). */
#define APNG_MAX_FILE_BYTES ((long)1 << 30)

typedef struct {
    unsigned char *bytes; /* the whole file */
    size_t size;
} png_file;

static uint32_t be32(const unsigned char *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void put32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void put16(unsigned char *p, unsigned v) {
    p[0] = (unsigned char)(v >> 8);
    p[1] = (unsigned char)v;
}

/* Reads a file whole; 0 on success. */
static int read_file(const char *path, png_file *out) {
    out->bytes = NULL;
    out->size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    if (fseek(f, 0, SEEK_END) != 0) { fclose(f); return -1; }
    long n = ftell(f);
    if (n < 0 || n > APNG_MAX_FILE_BYTES || fseek(f, 0, SEEK_SET) != 0) { fclose(f); return -1; }
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (!b) { fclose(f); return -1; }
    if (fread(b, 1, (size_t)n, f) != (size_t)n) { free(b); fclose(f); return -1; }
    fclose(f);
    out->bytes = b;
    out->size = (size_t)n;
    return 0;
}

/* A chunk inside a file: type, data and length; offset of the chunk start. */
typedef struct {
    const unsigned char *type;
    const unsigned char *data;
    uint32_t length;
} chunk;

/* Walks the chunks of a PNG, checking structure and CRCs. Calls visit for
 * each chunk (stopping with its non-zero result). Returns 0 when the file is
 * a well-formed PNG that ends with IEND, -1 otherwise. */
static int walk_chunks(const png_file *f, int (*visit)(const chunk *, void *), void *ctx) {
    if (f->size < 8 || memcmp(f->bytes, png_signature, 8) != 0) return -1;
    size_t at = 8;
    int saw_end = 0;
    while (at < f->size) {
        if (f->size - at < 12) return -1;
        uint32_t len = be32(f->bytes + at);
        if (len > 0x7fffffffu || (size_t)len > f->size - at - 12) return -1;
        chunk c = { f->bytes + at + 4, f->bytes + at + 8, len };
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), c.type, 4 + len);
        if (crc != be32(c.data + len)) return -1;
        if (visit) {
            int r = visit(&c, ctx);
            if (r != 0) return r;
        }
        at += 12 + (size_t)len;
        if (memcmp(c.type, "IEND", 4) == 0) { saw_end = 1; break; }
    }
    return saw_end ? 0 : -1;
}

/* Writes one chunk: length, type, data, CRC over type and data. The data
 * may come in two pieces (a prefix such as a sequence number, then the rest). */
static int write_chunk(FILE *out, const char *type, const unsigned char *prefix, uint32_t prefix_len,
                       const unsigned char *data, uint32_t len) {
    unsigned char head[8];
    put32(head, prefix_len + len);
    memcpy(head + 4, type, 4);
    uLong crc = crc32(0L, Z_NULL, 0);
    crc = crc32(crc, (const Bytef *)type, 4);
    if (prefix_len) crc = crc32(crc, prefix, prefix_len);
    if (len) crc = crc32(crc, data, len);
    unsigned char tail[4];
    put32(tail, (uint32_t)crc);
    if (fwrite(head, 1, 8, out) != 8) return -1;
    if (prefix_len && fwrite(prefix, 1, prefix_len, out) != prefix_len) return -1;
    if (len && fwrite(data, 1, len, out) != len) return -1;
    if (fwrite(tail, 1, 4, out) != 4) return -1;
    return 0;
}

/* The first file: IHDR and the chunks before the first IDAT. */
typedef struct {
    FILE *out;
    const unsigned char *ihdr; /* 13 bytes */
    int phase;                 /* 0: before IHDR, 1: header chunks, 2: image data seen */
    int failed;
} header_ctx;

static int copy_header(const chunk *c, void *p) {
    header_ctx *h = p;
    if (h->phase == 0) {
        if (memcmp(c->type, "IHDR", 4) != 0 || c->length != 13) return -1;
        h->ihdr = c->data;
        h->phase = 1;
        return 0;
    }
    if (memcmp(c->type, "IDAT", 4) == 0 || memcmp(c->type, "IEND", 4) == 0) {
        h->phase = 2;
        return 0;
    }
    if (h->phase != 1) return 0;
    /* Animation chunks of an input that is itself an APNG are not copied. */
    if (memcmp(c->type, "acTL", 4) == 0 || memcmp(c->type, "fcTL", 4) == 0 || memcmp(c->type, "fdAT", 4) == 0) return 0;
    if (h->out && write_chunk(h->out, (const char *)c->type, NULL, 0, c->data, c->length) != 0) h->failed = 1;
    return 0;
}

/* A frame: its IHDR must match; its IDAT data is written as IDAT or fdAT. */
typedef struct {
    FILE *out;
    const unsigned char *ihdr; /* the first file's */
    int first;                 /* frame 0: IDAT chunks */
    uint32_t *sequence;
    int saw_ihdr, saw_idat, failed;
} frame_ctx;

static int copy_frame(const chunk *c, void *p) {
    frame_ctx *fr = p;
    if (!fr->saw_ihdr) {
        if (memcmp(c->type, "IHDR", 4) != 0 || c->length != 13 || memcmp(c->data, fr->ihdr, 13) != 0) return -1;
        fr->saw_ihdr = 1;
        return 0;
    }
    if (memcmp(c->type, "IDAT", 4) != 0) return 0;
    fr->saw_idat = 1;
    if (!fr->out) return 0;
    if (fr->first) {
        if (write_chunk(fr->out, "IDAT", NULL, 0, c->data, c->length) != 0) fr->failed = 1;
    } else {
        unsigned char seq[4];
        put32(seq, (*fr->sequence)++);
        if (c->length > 0x7fffffffu - 4 || write_chunk(fr->out, "fdAT", seq, 4, c->data, c->length) != 0) fr->failed = 1;
    }
    return 0;
}

int apng_write_from_png_files(const char *out_path, const char *const *png_paths, size_t count,
                              unsigned delay_num, unsigned delay_den) {
    if (!out_path || !png_paths || count == 0 || count > 0xffffffffu || delay_num > 65535 || delay_den > 65535) return -1;
    for (size_t i = 0; i < count; i++)
        if (!png_paths[i]) return -1;

    png_file first;
    if (read_file(png_paths[0], &first) != 0) return -1;
    header_ctx probe = { NULL, NULL, 0, 0 };
    if (walk_chunks(&first, copy_header, &probe) != 0 || probe.phase != 2) { free(first.bytes); return -1; }

    /* Check every other frame before writing anything. */
    for (size_t i = 1; i < count; i++) {
        png_file f;
        if (read_file(png_paths[i], &f) != 0) { free(first.bytes); return -1; }
        uint32_t unused = 0;
        frame_ctx check = { NULL, probe.ihdr, 0, &unused, 0, 0, 0 };
        int bad = walk_chunks(&f, copy_frame, &check) != 0 || !check.saw_idat;
        free(f.bytes);
        if (bad) { free(first.bytes); return -1; }
    }

    FILE *out = fopen(out_path, "wb");
    if (!out) { free(first.bytes); return -1; }
    int failed = fwrite(png_signature, 1, 8, out) != 8;
    failed |= write_chunk(out, "IHDR", NULL, 0, probe.ihdr, 13) != 0;

    header_ctx header = { out, NULL, 0, 0 };
    failed |= walk_chunks(&first, copy_header, &header) != 0 || header.failed;

    unsigned char actl[8];
    put32(actl, (uint32_t)count);
    put32(actl + 4, 0); /* play forever */
    failed |= write_chunk(out, "acTL", NULL, 0, actl, 8) != 0;

    uint32_t width = be32(probe.ihdr), height = be32(probe.ihdr + 4);
    uint32_t sequence = 0;
    for (size_t i = 0; i < count && !failed; i++) {
        unsigned char fctl[26];
        put32(fctl, sequence++);
        put32(fctl + 4, width);
        put32(fctl + 8, height);
        put32(fctl + 12, 0); /* x offset */
        put32(fctl + 16, 0); /* y offset */
        put16(fctl + 20, delay_num);
        put16(fctl + 22, delay_den);
        fctl[24] = 0; /* APNG_DISPOSE_OP_NONE */
        fctl[25] = 0; /* APNG_BLEND_OP_SOURCE */
        failed |= write_chunk(out, "fcTL", NULL, 0, fctl, 26) != 0;
        png_file f = first;
        if (i > 0 && read_file(png_paths[i], &f) != 0) { failed = 1; break; }
        frame_ctx fr = { out, probe.ihdr, i == 0, &sequence, 0, 0, 0 };
        failed |= walk_chunks(&f, copy_frame, &fr) != 0 || fr.failed || !fr.saw_idat;
        if (i > 0) free(f.bytes);
    }
    failed |= write_chunk(out, "IEND", NULL, 0, NULL, 0) != 0;
    failed |= fclose(out) != 0;
    free(first.bytes);
    if (failed) {
        remove(out_path);
        return -1;
    }
    return 0;
}
