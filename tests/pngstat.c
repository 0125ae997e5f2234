/* pngstat.c — a test helper (not a test): reads a PNG with libpng and prints
 * "WIDTH HEIGHT NONBG" and then, per RRGGBB argument, how many pixels have
 * exactly that colour. NONBG counts the pixels that differ from the top-left
 * one (the background). Exit 0, or 1 when the file is not a readable PNG.
 * Used by tests/report.t (the tile pictures) and tests/dashboard.t (the
 * headless Chromium screenshot). */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 2) {
    fputs("usage: pngstat FILE.png [RRGGBB...]\n", stderr);
    return 1;
  }
  png_image im;
  memset(&im, 0, sizeof im);
  im.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_file(&im, argv[1])) {
    fprintf(stderr, "pngstat: %s: %s\n", argv[1], im.message);
    return 1;
  }
  im.format = PNG_FORMAT_RGB;
  size_t n = PNG_IMAGE_SIZE(im);
  unsigned char *px = malloc(n);
  if (!px || !png_image_finish_read(&im, NULL, px, 0, NULL)) {
    fprintf(stderr, "pngstat: %s: %s\n", argv[1], im.message);
    free(px);
    return 1;
  }
  size_t np = (size_t)im.width * im.height, nonbg = 0;
  for (size_t i = 0; i < np; i++) nonbg += memcmp(px + 3 * i, px, 3) != 0;
  printf("%u %u %zu", im.width, im.height, nonbg);
  for (int a = 2; a < argc; a++) {
    unsigned v = (unsigned)strtoul(argv[a], NULL, 16);
    unsigned char c[3] = {(unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
    size_t k = 0;
    for (size_t i = 0; i < np; i++) k += !memcmp(px + 3 * i, c, 3);
    printf(" %zu", k);
  }
  putchar('\n');
  free(px);
  return 0;
}
