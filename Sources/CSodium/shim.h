#ifndef RECEIPTS_CSODIUM_SHIM_H
#define RECEIPTS_CSODIUM_SHIM_H
#include <sodium.h>
#endif
