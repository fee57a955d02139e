// PNG/JPEG codec over libpng and libjpeg(-turbo). Both libraries report fatal
// errors through longjmp; each entry point sets its own jump target, so no
// error path ever unwinds through Swift frames.

#include "hsi_image.h"

#include <stdio.h> /* before jpeglib.h, which uses FILE */

#include <jpeglib.h>
#include <png.h>
#include <setjmp.h>
#include <string.h>

static void set_message(char *message, size_t capacity, const char *text) {
  if (message == NULL || capacity == 0) return;
  snprintf(message, capacity, "%s", text);
}

static int is_png(const uint8_t *data, size_t size) {
  return size >= 8 && png_sig_cmp((png_const_bytep)data, 0, 8) == 0;
}

static int is_jpeg(const uint8_t *data, size_t size) {
  return size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF;
}

// ---------------------------------------------------------------- PNG

// The most memory one ancillary PNG chunk may take, bytes.
#define HSI_PNG_CHUNK_LIMIT (8u << 20)

typedef struct png_memory {
  const uint8_t *data;
  size_t size;
  size_t offset;
  char *message;
  size_t message_capacity;
} png_memory;

static void png_memory_read(png_structp png, png_bytep out, png_size_t count) {
  png_memory *source = (png_memory *)png_get_io_ptr(png);
  if (source->size - source->offset < count) {
    png_error(png, "PNG data ends early (file truncated?)");
  }
  memcpy(out, source->data + source->offset, count);
  source->offset += count;
}

static void png_on_error(png_structp png, png_const_charp text) {
  png_memory *source = (png_memory *)png_get_error_ptr(png);
  if (source) set_message(source->message, source->message_capacity, text);
  png_longjmp(png, 1);
}

static void png_on_warning(png_structp png, png_const_charp text) {
  (void)png;
  (void)text;
}

// Checks every ancillary chunk (text, colour profile, unknown: lower-case first letter) before
// libpng sees it: libpng allocates a chunk's declared length before reading it, so a damaged
// length in a small file would have it ask for up to 2 GiB, and it only warns about (and still
// reads) a complete chunk over its own limit. A chunk that declares more bytes than the file
// holds, or more than HSI_PNG_CHUNK_LIMIT, is refused. Critical chunks (IHDR, PLTE, IDAT, IEND)
// are left to libpng, which reads the image data row by row and reports a file cut short itself.
// Returns 0 and a message when a chunk is refused.
static int png_ancillary_chunks_fit(const uint8_t *data, size_t size, char *message, size_t capacity) {
  size_t offset = 8;
  while (size - offset >= 8) {
    uint32_t length = ((uint32_t)data[offset] << 24) | ((uint32_t)data[offset + 1] << 16) |
                      ((uint32_t)data[offset + 2] << 8) | (uint32_t)data[offset + 3];
    const uint8_t *type = data + offset + 4;
    int ancillary = (type[0] & 0x20) != 0;
    if (memcmp(type, "IEND", 4) == 0) return 1;
    size_t left = size - offset - 8;
    int past_end = (size_t)length + 4 > left;
    if (past_end && !ancillary) return 1;
    if (ancillary && (past_end || length > HSI_PNG_CHUNK_LIMIT)) {
      if (message != NULL && capacity > 0) {
        char name[5] = {0};
        for (int k = 0; k < 4; ++k) name[k] = (type[k] >= 0x20 && type[k] < 0x7F) ? (char)type[k] : '?';
        if (past_end) {
          snprintf(message, capacity, "PNG chunk '%s' declares %u bytes, more than the %zu left in the file (damaged or cut off)",
                   name, length, left);
        } else {
          snprintf(message, capacity, "PNG chunk '%s' holds %u bytes, over the %u an ancillary chunk may have", name, length,
                   HSI_PNG_CHUNK_LIMIT);
        }
      }
      return 0;
    }
    offset += 12 + (size_t)length;
  }
  return 1;
}

// Reads the PNG header and, when `pixels` is non-null, the image in `format`.
static hsi_status png_run(const uint8_t *data, size_t size, hsi_info *info, int format,
                          uint8_t *pixels, size_t capacity, char *message, size_t message_capacity) {
  png_memory source = {data, size, 0, message, message_capacity};
  if (!png_ancillary_chunks_fit(data, size, message, message_capacity)) return HSI_DECODE_ERROR;
  png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &source, png_on_error,
                                           png_on_warning);
  if (png == NULL) {
    set_message(message, message_capacity, "cannot allocate PNG reader");
    return HSI_DECODE_ERROR;
  }
  png_infop png_info = png_create_info_struct(png);
  png_bytep *volatile rows = NULL;
  if (png_info == NULL) {
    png_destroy_read_struct(&png, NULL, NULL);
    set_message(message, message_capacity, "cannot allocate PNG info");
    return HSI_DECODE_ERROR;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_free(png, rows);
    png_destroy_read_struct(&png, &png_info, NULL);
    return HSI_DECODE_ERROR;
  }
  png_set_read_fn(png, &source, png_memory_read);
  // A compressed text or colour profile (zTXt, iTXt, iCCP) may decompress to at most 8 MiB (the
  // raw chunks are bounded by png_ancillary_chunks_fit); a camera's largest, an ICC profile, is
  // well under 1 MiB. The image data is read row by row and is not limited by this.
  png_set_chunk_malloc_max(png, HSI_PNG_CHUNK_LIMIT);
  png_read_info(png, png_info);
  png_uint_32 width = png_get_image_width(png, png_info);
  png_uint_32 height = png_get_image_height(png, png_info);
  int bit_depth = png_get_bit_depth(png, png_info);
  int color_type = png_get_color_type(png, png_info);
  int channels = png_get_channels(png, png_info);
  if (info) {
    info->container = HSI_PNG;
    info->width = (int32_t)width;
    info->height = (int32_t)height;
    info->channels = color_type == PNG_COLOR_TYPE_PALETTE ? 3 : channels;
    info->bit_depth = bit_depth < 8 ? 8 : bit_depth;
  }
  if (pixels == NULL) {
    png_destroy_read_struct(&png, &png_info, NULL);
    return HSI_OK;
  }
  size_t pixel_bytes;
  if (format == HSI_GRAY16) {
    if (color_type != PNG_COLOR_TYPE_GRAY || bit_depth != 16) {
      png_destroy_read_struct(&png, &png_info, NULL);
      set_message(message, message_capacity, "expected a single-channel 16-bit PNG");
      return HSI_UNSUPPORTED_FORMAT;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    png_set_swap(png);
#endif
    pixel_bytes = 2;
  } else if (format == HSI_BGRA8) {
    png_set_expand(png);
    png_set_strip_16(png);
    if (color_type == PNG_COLOR_TYPE_GRAY || color_type == PNG_COLOR_TYPE_GRAY_ALPHA) {
      png_set_gray_to_rgb(png);
    }
    png_set_bgr(png);
    png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    pixel_bytes = 4;
  } else {
    png_destroy_read_struct(&png, &png_info, NULL);
    set_message(message, message_capacity, "unsupported decode format");
    return HSI_INVALID_ARGUMENT;
  }
  png_set_interlace_handling(png);
  png_read_update_info(png, png_info);
  size_t row_bytes = (size_t)width * pixel_bytes;
  if (png_get_rowbytes(png, png_info) != row_bytes) {
    png_destroy_read_struct(&png, &png_info, NULL);
    set_message(message, message_capacity, "unexpected PNG row layout");
    return HSI_UNSUPPORTED_FORMAT;
  }
  if (capacity < row_bytes * height) {
    png_destroy_read_struct(&png, &png_info, NULL);
    set_message(message, message_capacity, "pixel buffer too small");
    return HSI_BUFFER_TOO_SMALL;
  }
  rows = (png_bytep *)png_malloc(png, sizeof(png_bytep) * height);
  for (png_uint_32 y = 0; y < height; ++y) rows[y] = pixels + y * row_bytes;
  png_read_image(png, rows);
  png_read_end(png, NULL);
  png_free(png, rows);
  rows = NULL;
  png_destroy_read_struct(&png, &png_info, NULL);
  return HSI_OK;
}

// ---------------------------------------------------------------- JPEG

typedef struct jpeg_failure {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
  char *message;
  size_t message_capacity;
} jpeg_failure;

static void jpeg_on_error(j_common_ptr cinfo) {
  jpeg_failure *failure = (jpeg_failure *)cinfo->err;
  char text[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, text);
  set_message(failure->message, failure->message_capacity, text);
  longjmp(failure->jump, 1);
}

static void jpeg_on_output(j_common_ptr cinfo) { (void)cinfo; }

// Routes libjpeg's errors to `failure` (the caller still sets the jump target).
static struct jpeg_error_mgr *jpeg_failure_install(jpeg_failure *failure, char *message,
                                                   size_t message_capacity) {
  struct jpeg_error_mgr *manager = jpeg_std_error(&failure->manager);
  failure->manager.error_exit = jpeg_on_error;
  failure->manager.output_message = jpeg_on_output;
  failure->message = message;
  failure->message_capacity = message_capacity;
  return manager;
}

static hsi_status jpeg_run(const uint8_t *data, size_t size, hsi_info *info, int format,
                           uint8_t *pixels, size_t capacity, char *message,
                           size_t message_capacity) {
  struct jpeg_decompress_struct cinfo;
  jpeg_failure failure;
  cinfo.err = jpeg_failure_install(&failure, message, message_capacity);
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&cinfo);
    return HSI_DECODE_ERROR;
  }
  jpeg_create_decompress(&cinfo);
  jpeg_mem_src(&cinfo, data, (unsigned long)size);
  jpeg_read_header(&cinfo, TRUE);
  if (info) {
    info->container = HSI_JPEG;
    info->width = (int32_t)cinfo.image_width;
    info->height = (int32_t)cinfo.image_height;
    info->channels = cinfo.num_components;
    info->bit_depth = 8;
  }
  if (pixels == NULL) {
    jpeg_destroy_decompress(&cinfo);
    return HSI_OK;
  }
  if (format != HSI_BGRA8) {
    jpeg_destroy_decompress(&cinfo);
    set_message(message, message_capacity, "JPEG decodes to 8-bit colour only");
    return HSI_UNSUPPORTED_FORMAT;
  }
  cinfo.out_color_space = JCS_EXT_BGRA;
  jpeg_start_decompress(&cinfo);
  size_t row_bytes = (size_t)cinfo.output_width * 4;
  if (cinfo.output_components != 4 || capacity < row_bytes * cinfo.output_height) {
    jpeg_destroy_decompress(&cinfo);
    set_message(message, message_capacity, "pixel buffer too small");
    return HSI_BUFFER_TOO_SMALL;
  }
  while (cinfo.output_scanline < cinfo.output_height) {
    JSAMPROW row = pixels + (size_t)cinfo.output_scanline * row_bytes;
    jpeg_read_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_decompress(&cinfo);
  jpeg_destroy_decompress(&cinfo);
  return HSI_OK;
}

// ---------------------------------------------------------------- API

hsi_status hsi_probe(const uint8_t *data, size_t size, hsi_info *info, char *message,
                     size_t message_capacity) {
  if (data == NULL || info == NULL) {
    set_message(message, message_capacity, "data or info is null");
    return HSI_INVALID_ARGUMENT;
  }
  if (is_png(data, size)) return png_run(data, size, info, 0, NULL, 0, message, message_capacity);
  if (is_jpeg(data, size)) return jpeg_run(data, size, info, 0, NULL, 0, message, message_capacity);
  set_message(message, message_capacity, "not a PNG or JPEG image");
  return HSI_UNSUPPORTED_FORMAT;
}

hsi_status hsi_decode(const uint8_t *data, size_t size, hsi_pixel_format format, uint8_t *pixels,
                      size_t capacity, char *message, size_t message_capacity) {
  if (data == NULL || pixels == NULL) {
    set_message(message, message_capacity, "data or pixels is null");
    return HSI_INVALID_ARGUMENT;
  }
  if (is_png(data, size)) {
    return png_run(data, size, NULL, format, pixels, capacity, message, message_capacity);
  }
  if (is_jpeg(data, size)) {
    return jpeg_run(data, size, NULL, format, pixels, capacity, message, message_capacity);
  }
  set_message(message, message_capacity, "not a PNG or JPEG image");
  return HSI_UNSUPPORTED_FORMAT;
}

/* Checks the pixels and their size (`invalid` names the call when they are wrong) and fills a
 * libpng simplified-API image for writing `format` pixels; HSI_INVALID_ARGUMENT with the
 * message set when the arguments or the format are not ones PNG writing takes. */
static hsi_status png_image_for_writing(png_image *image, const uint8_t *pixels, int32_t width,
                                        int32_t height, hsi_pixel_format format, int allow_gray16,
                                        const char *invalid, char *message,
                                        size_t message_capacity) {
  if (pixels == NULL || width <= 0 || height <= 0) {
    set_message(message, message_capacity, invalid);
    return HSI_INVALID_ARGUMENT;
  }
  memset(image, 0, sizeof *image);
  image->version = PNG_IMAGE_VERSION;
  image->width = (png_uint_32)width;
  image->height = (png_uint_32)height;
  switch (format) {
    case HSI_BGR8: image->format = PNG_FORMAT_BGR; return HSI_OK;
    case HSI_BGRA8: image->format = PNG_FORMAT_BGRA; return HSI_OK;
    case HSI_GRAY8: image->format = PNG_FORMAT_GRAY; return HSI_OK;
    case HSI_GRAY16:
      if (allow_gray16) {
        image->format = PNG_FORMAT_LINEAR_Y;
        return HSI_OK;
      }
      break;
    default: break;
  }
  set_message(message, message_capacity, "unsupported PNG format");
  return HSI_INVALID_ARGUMENT;
}

hsi_status hsi_write_png(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                         hsi_pixel_format format, char *message, size_t message_capacity) {
  const char *invalid = "invalid PNG write arguments";
  if (path == NULL) {
    set_message(message, message_capacity, invalid);
    return HSI_INVALID_ARGUMENT;
  }
  png_image image;
  hsi_status status = png_image_for_writing(&image, pixels, width, height, format, 1, invalid,
                                            message, message_capacity);
  if (status != HSI_OK) return status;
  if (!png_image_write_to_file(&image, path, 0, pixels, 0, NULL)) {
    set_message(message, message_capacity, image.message);
    png_image_free(&image);
    return HSI_ENCODE_ERROR;
  }
  return HSI_OK;
}

hsi_status hsi_encode_png(const uint8_t *pixels, int32_t width, int32_t height,
                          hsi_pixel_format format, uint8_t *out, size_t *size, char *message,
                          size_t message_capacity) {
  const char *invalid = "invalid PNG encode arguments";
  if (size == NULL) {
    set_message(message, message_capacity, invalid);
    return HSI_INVALID_ARGUMENT;
  }
  png_image image;
  hsi_status status = png_image_for_writing(&image, pixels, width, height, format, 0, invalid,
                                            message, message_capacity);
  if (status != HSI_OK) return status;
  if (out == NULL) {
    /* libpng's bound, so that a caller compresses once into a buffer of this size. */
    *size = (size_t)PNG_IMAGE_PNG_SIZE_MAX(image);
    return HSI_OK;
  }
  png_alloc_size_t bytes = (png_alloc_size_t)*size;
  if (!png_image_write_to_memory(&image, out, &bytes, 0, pixels, 0, NULL)) {
    set_message(message, message_capacity, bytes > *size ? "output buffer too small" : image.message);
    png_image_free(&image);
    return HSI_ENCODE_ERROR;
  }
  *size = (size_t)bytes;
  return HSI_OK;
}

hsi_status hsi_write_jpeg(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                          hsi_pixel_format format, int32_t quality, char *message,
                          size_t message_capacity) {
  if (path == NULL || pixels == NULL || width <= 0 || height <= 0 || quality < 1 || quality > 100 ||
      (format != HSI_BGR8 && format != HSI_BGRA8)) {
    set_message(message, message_capacity, "invalid JPEG write arguments");
    return HSI_INVALID_ARGUMENT;
  }
  FILE *volatile file = fopen(path, "wb");
  if (file == NULL) {
    set_message(message, message_capacity, "cannot create the file");
    return HSI_ENCODE_ERROR;
  }
  struct jpeg_compress_struct cinfo;
  jpeg_failure failure;
  cinfo.err = jpeg_failure_install(&failure, message, message_capacity);
  if (setjmp(failure.jump)) {
    jpeg_destroy_compress(&cinfo);
    fclose(file);
    return HSI_ENCODE_ERROR;
  }
  jpeg_create_compress(&cinfo);
  jpeg_stdio_dest(&cinfo, file);
  cinfo.image_width = (JDIMENSION)width;
  cinfo.image_height = (JDIMENSION)height;
  cinfo.input_components = format == HSI_BGRA8 ? 4 : 3;
  cinfo.in_color_space = format == HSI_BGRA8 ? JCS_EXT_BGRA : JCS_EXT_BGR;
  jpeg_set_defaults(&cinfo);
  jpeg_set_quality(&cinfo, quality, TRUE);
  jpeg_start_compress(&cinfo, TRUE);
  size_t row_bytes = (size_t)width * (size_t)cinfo.input_components;
  while (cinfo.next_scanline < cinfo.image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)cinfo.next_scanline * row_bytes);
    jpeg_write_scanlines(&cinfo, &row, 1);
  }
  jpeg_finish_compress(&cinfo);
  jpeg_destroy_compress(&cinfo);
  if (fclose(file) != 0) {
    set_message(message, message_capacity, "cannot finish writing the file");
    return HSI_ENCODE_ERROR;
  }
  return HSI_OK;
}
