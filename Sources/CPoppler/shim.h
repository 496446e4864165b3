#ifndef RECEIPTS_CPOPPLER_SHIM_H
#define RECEIPTS_CPOPPLER_SHIM_H
#include <poppler.h>
#include <cairo.h>
#endif
