#ifndef RECEIPTS_CTESTLIFELINE_H
#define RECEIPTS_CTESTLIFELINE_H

#include <spawn.h>
#include <sys/types.h>

/// The process this test process ends with (the one that started it: `swift test`, make, a
/// shell), 0 when it watches none. Set before main runs; see test_lifeline.c.
pid_t receipts_test_lifeline_parent(void);

/// posix_spawn_file_actions_addclosefrom_np (glibc 2.34), which Swift's Glibc module does not
/// show: the spawned program inherits no descriptor from `lowest` up.
int receipts_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest);

#endif
