// Tesseract 5.3 hands every text line to its LSTM recognizer as an in-memory PNG: it writes the
// line image with pixWriteMem(..., IFF_PNG) and decodes it again a moment later
// (ImageData::SetPixInternal / GetPixInternal). Leptonica compresses that PNG with zlib's default
// level, which costs about a fifth of all OCR time on receipts (measured with perf on
// ../shared/receipts). Those bytes never leave memory, so this file overrides pixWriteMem for the
// whole process: PNG is written with compression level 0 (a valid, larger PNG that decodes to the
// same pixels); every other format goes to Leptonica's own pixWriteMem.
//
// The override works because executables come first in ELF symbol lookup: libtesseract's call to
// pixWriteMem resolves here when this object is linked into the program.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <leptonica/allheaders.h>
#include "COCRTuning.h"

typedef l_ok (*pix_write_mem_fn)(l_uint8 **, size_t *, PIX *, l_int32);

static _Atomic(pix_write_mem_fn) leptonica_pix_write_mem = NULL;

static pix_write_mem_fn original(void) {
    pix_write_mem_fn fn = atomic_load_explicit(&leptonica_pix_write_mem, memory_order_acquire);
    if (fn == NULL) {
        fn = (pix_write_mem_fn)dlsym(RTLD_NEXT, "pixWriteMem");
        atomic_store_explicit(&leptonica_pix_write_mem, fn, memory_order_release);
    }
    return fn;
}

l_ok pixWriteMem(l_uint8 **pdata, size_t *psize, PIX *pix, l_int32 format) {
    if (format == IFF_PNG && pix != NULL && pdata != NULL && psize != NULL) {
        // Leptonica reads the zlib level from pix->special (10 + level); 10 = no compression.
        l_int32 special = pix->special;
        pixSetSpecial(pix, 10);
        l_ok status = pixWriteMemPng(pdata, psize, pix, 0.0);
        pixSetSpecial(pix, special);
        return status;
    }
    pix_write_mem_fn fn = original();
    if (fn == NULL) return 1;
    return fn(pdata, psize, pix, format);
}

int receipts_line_images_uncompressed(void) {
    return dlsym(RTLD_DEFAULT, "pixWriteMem") == (void *)pixWriteMem;
}
