#ifndef RECEIPTS_CHEIF_SHIM_H
#define RECEIPTS_CHEIF_SHIM_H
#include <libheif/heif.h>
#endif
