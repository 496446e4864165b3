// The test process ends with the process that started it, and everything it starts ends with it
// (issue 61: a killed `swift test` left seven `receipts serve` and two PostgreSQL servers running).
//
// Before main: this process watches its parent (`swift test`, which runs the tests in a process
// group of their own: a SIGKILL or a Ctrl-C of `swift test` never reaches them) and ends (SIGKILL)
// when it ends; and it sets RECEIPTS_EXIT_WITH_PROCESS to its own pid, so every `receipts` and
// `receipts-queue-helper` a test starts, with this environment or ReceiptsCLI.environment(), ends
// when this process does. Servers that are not ours (PostgreSQL, Dovecot) are started through
// receipts-test-launcher, which does the same for them.
#define _GNU_SOURCE
#include "CTestLifeline.h"
#include "CLifeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pid_t parent = 0;

pid_t receipts_test_lifeline_parent(void) { return parent; }

int receipts_spawn_close_from(posix_spawn_file_actions_t *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np(actions, lowest);
}

__attribute__((constructor)) static void receipts_test_lifeline(void) {
    char own[24];
    snprintf(own, sizeof own, "%d", (int)getpid());
    setenv(RECEIPTS_LIFELINE_VARIABLE, own, 1);
    pid_t started = getppid();
    if (started > 1 && receipts_lifeline_exit_with(started) == 0) parent = started;
}
