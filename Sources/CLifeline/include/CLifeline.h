#ifndef RECEIPTS_CLIFELINE_H
#define RECEIPTS_CLIFELINE_H

#include <sys/types.h>

/// Ends this process (SIGKILL) as soon as process `pid` ends, whichever way it ends (SIGKILL
/// included): a thread of its own, every signal blocked, waits on the process's pidfd. Unlike
/// PR_SET_PDEATHSIG it watches the whole process, not the thread that started this one, and any
/// process, not only the parent. Returns 0 when watching, or -1 with errno set: ESRCH when `pid`
/// has already ended (the caller should end at once), another errno when it cannot watch.
int receipts_lifeline_exit_with(pid_t pid);

/// The variable a process started by a test (or a script) reads to end with that test process:
/// `RECEIPTS_EXIT_WITH_PROCESS=<pid>`.
#define RECEIPTS_LIFELINE_VARIABLE "RECEIPTS_EXIT_WITH_PROCESS"

/// Reads RECEIPTS_EXIT_WITH_PROCESS, removes it from the environment (a child of this process
/// watches only what it is told to) and watches that process (`receipts_lifeline_exit_with`).
/// Ends this process at once when the process named has already ended. Returns 0 when the
/// variable is unset or empty, 1 when watching, -1 when it cannot watch (the value is not a pid,
/// or pidfd_open is refused; a one-line warning on stderr).
int receipts_lifeline_from_environment(void);

/// Opens a pidfd for `pid` (Linux 5.3+), or -1 with errno set.
int receipts_pidfd_open(pid_t pid);

#endif
