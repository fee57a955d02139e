/*
 * hsi_image.h — PNG/JPEG decoding and PNG encoding over libpng and libjpeg.
 *
 * No API: ScanIO wraps it. OpenCV's imgcodecs would do the same job but links
 * GDAL and ~140 shared libraries, which costs a third of a second at every
 * process start. The caller owns every buffer; errors come back as a status
 * and a NUL-terminated message.
 */
#ifndef HSI_IMAGE_H
#define HSI_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hsi_status {
  HSI_OK = 0,
  HSI_INVALID_ARGUMENT = 1,
  HSI_UNSUPPORTED_FORMAT = 2,
  HSI_DECODE_ERROR = 3,
  HSI_ENCODE_ERROR = 4,
  HSI_BUFFER_TOO_SMALL = 5
} hsi_status;

typedef enum hsi_container { HSI_PNG = 1, HSI_JPEG = 2 } hsi_container;

typedef enum hsi_pixel_format {
  HSI_BGRA8 = 0,  /* 4 bytes a pixel, B G R A */
  HSI_GRAY16 = 1, /* native-endian uint16, single channel */
  HSI_GRAY8 = 2,  /* one byte a pixel */
  HSI_BGR8 = 3    /* 3 bytes a pixel, encoding only */
} hsi_pixel_format;

typedef struct hsi_info {
  int32_t container; /* hsi_container */
  int32_t width;
  int32_t height;
  int32_t channels;  /* as stored in the file */
  int32_t bit_depth; /* 8 or 16 */
} hsi_info;

/* Reads the size and layout of a PNG or JPEG held in memory. */
hsi_status hsi_probe(const uint8_t *data, size_t size, hsi_info *info, char *message,
                     size_t message_capacity);

/*
 * Decodes into `pixels` (tightly packed rows) in the requested format.
 * HSI_BGRA8 accepts any 8-bit PNG or JPEG (alpha 255 where the file has none);
 * HSI_GRAY16 accepts only single-channel 16-bit PNG, values unchanged.
 */
hsi_status hsi_decode(const uint8_t *data, size_t size, hsi_pixel_format format, uint8_t *pixels,
                      size_t capacity, char *message, size_t message_capacity);

/* Writes a PNG file from tightly packed HSI_BGR8, HSI_BGRA8, HSI_GRAY8 or HSI_GRAY16 pixels. */
hsi_status hsi_write_png(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                         hsi_pixel_format format, char *message, size_t message_capacity);

/*
 * Encodes tightly packed HSI_BGR8, HSI_BGRA8 or HSI_GRAY8 pixels as a PNG in memory. With
 * `out` NULL, sets `*size` to the most bytes the PNG can take (libpng's bound, computed without
 * compressing); otherwise writes at most `*size` bytes to `out` and sets `*size` to the bytes
 * written.
 */
hsi_status hsi_encode_png(const uint8_t *pixels, int32_t width, int32_t height,
                          hsi_pixel_format format, uint8_t *out, size_t *size, char *message,
                          size_t message_capacity);

/* Writes a baseline JPEG from tightly packed HSI_BGR8 or HSI_BGRA8 pixels; quality 1…100. */
hsi_status hsi_write_jpeg(const char *path, const uint8_t *pixels, int32_t width, int32_t height,
                          hsi_pixel_format format, int32_t quality, char *message,
                          size_t message_capacity);

#ifdef __cplusplus
}
#endif

#endif
