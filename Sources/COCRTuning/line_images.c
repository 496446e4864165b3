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
//
// Decided, not implicit:
// - PIX is a public struct up to Leptonica 1.82 and opaque from 1.83, which has a setter for its
//   "special" field but no getter: guarded by version, the field is read on 1.82 and assumed 0
//   (its value on every image Tesseract writes) on later versions; the level is set with
//   pixSetSpecial on all.
// - A program that does not want a process-wide override of a Leptonica function sets
//   RECEIPTS_COMPRESSED_LINE_IMAGES=1 in the environment: every call then goes to Leptonica's own
//   pixWriteMem (same OCR text, about a fifth slower). OCREngine.lineImagesUncompressed tells which.
// - Kept for its measured gain: the same OCR costs ~23% less than in the tesseract CLI.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
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

// 1 when RECEIPTS_COMPRESSED_LINE_IMAGES=1 asks for Leptonica's own pixWriteMem (read once).
static int opted_out(void) {
    static atomic_int cached = -1;
    int value = atomic_load_explicit(&cached, memory_order_relaxed);
    if (value < 0) {
        const char *setting = getenv("RECEIPTS_COMPRESSED_LINE_IMAGES");
        value = setting != NULL && strcmp(setting, "1") == 0;
        atomic_store_explicit(&cached, value, memory_order_relaxed);
    }
    return value;
}

l_ok pixWriteMem(l_uint8 **pdata, size_t *psize, PIX *pix, l_int32 format) {
    if (format == IFF_PNG && pix != NULL && pdata != NULL && psize != NULL && !opted_out()) {
        // Leptonica reads the zlib level from the pix's "special" field (10 + level); 10 = none.
#if LIBLEPT_MAJOR_VERSION == 1 && LIBLEPT_MINOR_VERSION <= 82
        l_int32 special = pix->special;
#else
        l_int32 special = 0;
#endif
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
    return !opted_out() && dlsym(RTLD_DEFAULT, "pixWriteMem") == (void *)pixWriteMem;
}
