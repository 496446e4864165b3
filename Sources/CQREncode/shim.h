#ifndef RECEIPTS_CQRENCODE_SHIM_H
#define RECEIPTS_CQRENCODE_SHIM_H
#include <qrencode.h>
#endif
