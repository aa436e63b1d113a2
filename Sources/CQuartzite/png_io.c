/* PNG files through libpng. libpng reports errors with longjmp, so every
 * libpng call stays on this side; the Swift engine sees plain result codes
 * and 8-bit straight-alpha RGBA rows. */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quartzite_internal.h"

/* The largest pixel buffer dimension (maximumPixelBufferDimension in Swift):
 * a larger image is refused before any pixel memory is allocated. */
#define QZ_PNG_MAX_DIMENSION (1u << 20)

typedef struct {
    char *message;
    size_t capacity;
} png_error_sink;

static void sink_write(png_error_sink *sink, const char *text) {
    if (!sink->message || sink->capacity == 0) return;
    snprintf(sink->message, sink->capacity, "%s", text);
}

static void on_error(png_structp png, png_const_charp text) {
    sink_write(png_get_error_ptr(png), text);
    png_longjmp(png, 1);
}

static void on_warning(png_structp png, png_const_charp text) {
    (void)png; (void)text;  /* warnings (e.g. a bad gamma chunk) do not fail the read */
}

int qz_internal_png_read(const char *path, size_t max_bytes, uint32_t *width, uint32_t *height,
                         uint8_t **rgba, char *message, size_t capacity) {
    png_error_sink sink = { message, capacity };
    *rgba = NULL;
    FILE *file = fopen(path, "rb");
    if (!file) {
        snprintf(message, capacity, "cannot open %s", path);
        return 1;
    }
    unsigned char signature[8];
    if (fread(signature, 1, 8, file) != 8 || png_sig_cmp(signature, 0, 8) != 0) {
        fclose(file);
        snprintf(message, capacity, "%s is not a PNG file", path);
        return 2;
    }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        snprintf(message, capacity, "out of memory");
        return 4;
    }
    /* volatile: read back after a longjmp. */
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        return 2;
    }
    png_init_io(png, file);
    png_set_sig_bytes(png, 8);
    /* libpng's own limit (1,000,000) would fail first with a vaguer message. */
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (w > QZ_PNG_MAX_DIMENSION || h > QZ_PNG_MAX_DIMENSION) {
        snprintf(message, capacity, "%ux%u pixels: width and height are limited to %u", (unsigned)w, (unsigned)h,
                 (unsigned)QZ_PNG_MAX_DIMENSION);
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        return 5;
    }
    if ((uint64_t)w * h * 4 > max_bytes) {
        snprintf(message, capacity, "%ux%u pixels need more than the %zu bytes allowed", (unsigned)w, (unsigned)h,
                 max_bytes);
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        return 3;
    }
    /* Everything becomes 8-bit RGBA: palettes and low bit depths expanded,
     * 16-bit samples reduced, gray copied to RGB, tRNS turned into alpha,
     * opaque images given alpha 255. */
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4) {
        snprintf(message, capacity, "unexpected row size after expansion");
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        return 2;
    }
    pixels = malloc((size_t)w * h * 4 + 1);
    rows = malloc(sizeof(png_bytep) * (h ? h : 1));
    if (!pixels || !rows) {
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        fclose(file);
        snprintf(message, capacity, "out of memory");
        return 4;
    }
    for (png_uint_32 y = 0; y < h; y++) rows[y] = pixels + (size_t)y * w * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    fclose(file);
    *width = w;
    *height = h;
    *rgba = pixels;
    return 0;
}

int qz_internal_png_write(const char *path, uint32_t width, uint32_t height, const uint8_t *rows_start,
                          size_t stride, int channels, char *message, size_t capacity) {
    png_error_sink sink = { message, capacity };
    FILE *file = fopen(path, "wb");
    if (!file) {
        snprintf(message, capacity, "cannot open %s for writing", path);
        return 1;
    }
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, on_error, on_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        snprintf(message, capacity, "out of memory");
        return 4;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        fclose(file);
        return 1;
    }
    png_init_io(png, file);
    png_set_IHDR(png, info, width, height, 8, channels == 4 ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* Quartzite's pixels are sRGB. */
    png_set_sRGB_gAMA_and_cHRM(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; y++) png_write_row(png, (png_const_bytep)(rows_start + (size_t)y * stride));
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    if (fclose(file) != 0) {
        snprintf(message, capacity, "cannot finish writing %s", path);
        return 1;
    }
    return 0;
}
