// After each image Tesseract frees tens of megabytes; glibc keeps such memory in the freeing
// thread's arena, so with one arena per OCR thread the footprint only grows. Trimming after
// each image keeps peak RSS near what one image needs per engine.
#include "COCRTuning.h"
#include <stdlib.h>   /* defines __GLIBC__ on glibc systems */
#if defined(__GLIBC__)
#include <malloc.h>
#endif

void receipts_release_free_memory(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

