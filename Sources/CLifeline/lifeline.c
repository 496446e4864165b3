// A process that ends when another one does: what lets a test run, killed by SIGKILL or stopped by
// SIGINT, leave nothing running (issue 61). See include/CLifeline.h.
#define _GNU_SOURCE
#include "CLifeline.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

int receipts_pidfd_open(pid_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

static void *watch(void *argument) {
    int fd = (int)(intptr_t)argument;
    struct pollfd watched = { .fd = fd, .events = POLLIN };
    // A pidfd turns readable when the process has ended; nothing else wakes this up.
    while (poll(&watched, 1, -1) < 0 && errno == EINTR) {}
    kill(getpid(), SIGKILL);
    return NULL;
}

int receipts_lifeline_exit_with(pid_t pid) {
    if (pid <= 1) { errno = EINVAL; return -1; }
    int fd = receipts_pidfd_open(pid);
    if (fd < 0) {
        if (errno == ENOSYS && pid == getppid()) {
            // A kernel older than 5.3: the parent-death signal, tied to the thread that started
            // this process (good enough where the process was started from a long-lived thread).
            if (prctl(PR_SET_PDEATHSIG, SIGKILL) == 0 && getppid() == pid) return 0;
            if (getppid() != pid) { errno = ESRCH; }
        }
        return -1;
    }
    // Every signal blocked in the watcher: the process's own handlers (SIGINT, SIGTERM) stay on
    // its other threads. The new thread takes the mask of the thread that creates it.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    pthread_t thread;
    int created = pthread_create(&thread, &attributes, watch, (void *)(intptr_t)fd);
    pthread_attr_destroy(&attributes);
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    if (created != 0) { close(fd); errno = created; return -1; }
    return 0;
}

int receipts_lifeline_from_environment(void) {
    const char *variable = getenv(RECEIPTS_LIFELINE_VARIABLE);
    if (variable == NULL || *variable == '\0') return 0;
    char value[32];
    snprintf(value, sizeof value, "%s", variable);
    char *end = NULL;
    long pid = strtol(value, &end, 10);
    int valid = end != NULL && *end == '\0' && pid > 1;
    unsetenv(RECEIPTS_LIFELINE_VARIABLE);
    if (!valid) {
        fprintf(stderr, "receipts: warning: %s=%s is not a process id; ignored\n", RECEIPTS_LIFELINE_VARIABLE, value);
        return -1;
    }
    if (receipts_lifeline_exit_with((pid_t)pid) == 0) return 1;
    if (errno == ESRCH) {
        // The process this one was to end with has ended already.
        _exit(137);
    }
    fprintf(stderr, "receipts: warning: cannot watch process %ld (%s); %s ignored\n", pid, strerror(errno),
            RECEIPTS_LIFELINE_VARIABLE);
    return -1;
}
