#ifndef RECEIPTS_CTESSERACT_SHIM_H
#define RECEIPTS_CTESSERACT_SHIM_H
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>
#endif
