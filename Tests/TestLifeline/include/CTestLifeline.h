#ifndef RECEIPTS_CTESTLIFELINE_H
#define RECEIPTS_CTESTLIFELINE_H

#include <sys/types.h>

/// The process this test process ends with (the one that started it: `swift test`, make, a
/// shell), 0 when it watches none. Set before main runs; see test_lifeline.c.
pid_t receipts_test_lifeline_parent(void);

#endif
