/* PNG and JPEG decoding from memory (CGImageCreateWithPNGDataProvider,
 * CGImageCreateWithJPEGDataProvider) through libpng and libjpeg(-turbo).
 * Both libraries report errors by longjmp, which Swift cannot take part in,
 * so every call stays on this side; the engine sees result codes and pixels.
 * Results: 0 success, 2 not an image of that kind or a damaged one, 3 the
 * image needs more than max_bytes, 4 out of memory, 5 a width or height
 * above 2^20. `message` receives a description on failure. */
#include <png.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include "quartzite_internal.h"

#define QZ_IMAGE_MAX_DIMENSION (1u << 20)

static int check_size(uint32_t w, uint32_t h, size_t max_bytes, char *message, size_t capacity) {
    if (w == 0 || h == 0) {
        snprintf(message, capacity, "the image has no pixels (%ux%u)", (unsigned)w, (unsigned)h);
        return 2;
    }
    if (w > QZ_IMAGE_MAX_DIMENSION || h > QZ_IMAGE_MAX_DIMENSION) {
        snprintf(message, capacity, "%ux%u pixels: width and height are limited to %u", (unsigned)w, (unsigned)h,
                 (unsigned)QZ_IMAGE_MAX_DIMENSION);
        return 5;
    }
    if ((uint64_t)w * h * 4 > max_bytes) {
        snprintf(message, capacity, "%ux%u pixels need more than the %zu bytes allowed", (unsigned)w, (unsigned)h,
                 max_bytes);
        return 3;
    }
    return 0;
}

/* MARK: - PNG */

typedef struct {
    const uint8_t *data;
    size_t size, offset;
    char *message;
    size_t capacity;
} png_memory_source;

static void png_memory_error(png_structp png, png_const_charp text) {
    png_memory_source *src = png_get_error_ptr(png);
    if (src->message && src->capacity) snprintf(src->message, src->capacity, "PNG: %s", text);
    png_longjmp(png, 1);
}

static void png_memory_warning(png_structp png, png_const_charp text) {
    (void)png; (void)text;
}

static void png_memory_read(png_structp png, png_bytep out, size_t length) {
    png_memory_source *src = png_get_io_ptr(png);
    if (length > src->size - src->offset) png_error(png, "the data ends early (truncated)");
    memcpy(out, src->data + src->offset, length);
    src->offset += length;
}

int qz_internal_png_decode(const uint8_t *data, size_t size, size_t max_bytes, uint32_t *width, uint32_t *height,
                           uint8_t **rgba, char *message, size_t capacity) {
    *rgba = NULL;
    if (!data || size < 8 || png_sig_cmp((png_const_bytep)data, 0, 8) != 0) {
        snprintf(message, capacity, "the data is not a PNG image (bad signature)");
        return 2;
    }
    png_memory_source src = { data, size, 8, message, capacity };
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &src, png_memory_error, png_memory_warning);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    if (!png || !info) {
        png_destroy_read_struct(&png, &info, NULL);
        snprintf(message, capacity, "out of memory");
        return 4;
    }
    uint8_t *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    volatile int result = 2;
    if (setjmp(png_jmpbuf(png))) {
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        return result;
    }
    png_set_read_fn(png, &src, png_memory_read);
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
    png_read_info(png, info);
    png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    int size_problem = check_size(w, h, max_bytes, message, capacity);
    if (size_problem) {
        png_destroy_read_struct(&png, &info, NULL);
        return size_problem;
    }
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_gray_to_rgb(png);
    png_set_add_alpha(png, 0xFF, PNG_FILLER_AFTER);
    (void)png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)w * 4) {
        snprintf(message, capacity, "PNG: unexpected row size after expansion");
        png_destroy_read_struct(&png, &info, NULL);
        return 2;
    }
    pixels = malloc((size_t)w * h * 4);
    rows = malloc(sizeof(png_bytep) * h);
    if (!pixels || !rows) {
        free(pixels);
        free(rows);
        png_destroy_read_struct(&png, &info, NULL);
        snprintf(message, capacity, "out of memory");
        return 4;
    }
    for (png_uint_32 y = 0; y < h; y++) rows[y] = pixels + (size_t)y * w * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    *width = w;
    *height = h;
    *rgba = pixels;
    return 0;
}

/* MARK: - JPEG */

typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char *message;
    size_t capacity;
    int warnings;
} jpeg_failure;

static void jpeg_on_error(j_common_ptr cinfo) {
    jpeg_failure *f = (jpeg_failure *)cinfo->err;
    char text[JMSG_LENGTH_MAX];
    (*cinfo->err->format_message)(cinfo, text);
    if (f->message && f->capacity) snprintf(f->message, f->capacity, "JPEG: %s", text);
    longjmp(f->jump, 1);
}

/* Warnings (corrupt data, a premature end) make libjpeg fill in gray and go
 * on; an image that needed them is damaged, so the first one fails the decode. */
static void jpeg_on_message(j_common_ptr cinfo, int level) {
    if (level < 0) {
        jpeg_failure *f = (jpeg_failure *)cinfo->err;
        f->warnings++;
        jpeg_on_error(cinfo);
    }
}

int qz_internal_jpeg_decode(const uint8_t *data, size_t size, size_t max_bytes, uint32_t *width, uint32_t *height,
                            uint8_t **bgra, char *message, size_t capacity) {
    *bgra = NULL;
    if (!data || size < 3 || data[0] != 0xFF || data[1] != 0xD8 || data[2] != 0xFF) {
        snprintf(message, capacity, "the data is not a JPEG image (bad signature)");
        return 2;
    }
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    memset(&failure, 0, sizeof failure);
    failure.message = message;
    failure.capacity = capacity;
    cinfo.err = jpeg_std_error(&failure.base);
    failure.base.error_exit = jpeg_on_error;
    failure.base.emit_message = jpeg_on_message;
    uint8_t *volatile pixels = NULL;
    volatile int result = 2;
    if (setjmp(failure.jump)) {
        free(pixels);
        jpeg_destroy_decompress(&cinfo);
        return result;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, (const unsigned char *)data, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    if (cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK) {
        snprintf(message, capacity, "JPEG: CMYK images are not supported");
        jpeg_destroy_decompress(&cinfo);
        return 2;
    }
    int size_problem = check_size(cinfo.image_width, cinfo.image_height, max_bytes, message, capacity);
    if (size_problem) {
        jpeg_destroy_decompress(&cinfo);
        return size_problem;
    }
    /* libjpeg-turbo writes Quartzite's layout directly: B, G, R, 255. */
    cinfo.out_color_space = JCS_EXT_BGRA;
    jpeg_start_decompress(&cinfo);
    uint32_t w = cinfo.output_width, h = cinfo.output_height;
    if (cinfo.output_components != 4) {
        snprintf(message, capacity, "JPEG: unexpected output format");
        jpeg_destroy_decompress(&cinfo);
        return 2;
    }
    pixels = malloc((size_t)w * h * 4);
    if (!pixels) {
        jpeg_destroy_decompress(&cinfo);
        snprintf(message, capacity, "out of memory");
        return 4;
    }
    while (cinfo.output_scanline < h) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * w * 4;
        jpeg_read_scanlines(&cinfo, &row, 1);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    *width = w;
    *height = h;
    *bgra = pixels;
    return 0;
}
