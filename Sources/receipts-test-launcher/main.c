// Test helper: runs a server the tests start (PostgreSQL, Dovecot, a browser's driver) so that it
// ends with the test process, however that ends (issue 61). Not part of the receipts tool.
//
//     receipts-test-launcher [--user NAME] [--cwd DIR] PID PROGRAM [ARG...]
//
// Runs PROGRAM in a process group of its own (as NAME when given, which needs root: PostgreSQL
// refuses to run as root) and waits. When process PID ends (SIGKILL included), or when PROGRAM
// itself ends, every process left in PROGRAM's group is killed (SIGKILL). SIGTERM, SIGINT,
// SIGQUIT, SIGHUP, SIGUSR1 and SIGUSR2 sent to the launcher go to PROGRAM, so a test stops it as it
// would PROGRAM itself. Exits as PROGRAM did (its status, or 128 + the signal that ended it; 137
// when PID ended first); 125 for a usage or set-up error, 127 when PROGRAM cannot be run.
//
// Run PROGRAM in the foreground (`postgres -D`, `dovecot -F`): a daemon that forks away into a
// session of its own leaves the group and is not the launcher's to stop.
#define _GNU_SOURCE
#include "CLifeline.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child = -1;
static const int forwarded[] = { SIGTERM, SIGINT, SIGQUIT, SIGHUP, SIGUSR1, SIGUSR2 };

static void forward(int signal) {
    int saved = errno;
    if (child > 0) kill(child, signal);
    errno = saved;
}

static int usage(void) {
    fprintf(stderr, "usage: receipts-test-launcher [--user NAME] [--cwd DIR] PID PROGRAM [ARG...]\n");
    return 125;
}

int main(int argc, char **argv) {
    const char *user = NULL, *cwd = NULL;
    int i = 1;
    for (; i + 1 < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        if (strcmp(argv[i], "--user") == 0) user = argv[i + 1];
        else if (strcmp(argv[i], "--cwd") == 0) cwd = argv[i + 1];
        else return usage();
    }
    if (argc - i < 2) return usage();
    char *end = NULL;
    long watchedPid = strtol(argv[i], &end, 10);
    if (end == NULL || *end != '\0' || watchedPid <= 1) return usage();
    char **program = argv + i + 1;

    int watched = receipts_pidfd_open((pid_t)watchedPid);
    if (watched < 0) {
        fprintf(stderr, "receipts-test-launcher: cannot watch process %ld: %s\n", watchedPid, strerror(errno));
        return errno == ESRCH ? 137 : 125;
    }
    struct passwd *account = NULL;
    if (user != NULL && (account = getpwnam(user)) == NULL) {
        fprintf(stderr, "receipts-test-launcher: no user %s\n", user);
        return 125;
    }

    // The forwarded signals wait (blocked) until the child exists and their handlers are set.
    sigset_t blocked, previous, none;
    sigemptyset(&blocked);
    sigemptyset(&none);
    for (size_t k = 0; k < sizeof forwarded / sizeof *forwarded; k++) sigaddset(&blocked, forwarded[k]);
    sigprocmask(SIG_BLOCK, &blocked, &previous);

    pid_t pid = fork();
    if (pid < 0) { perror("receipts-test-launcher: fork"); return 125; }
    if (pid == 0) {
        setpgid(0, 0);
        for (size_t k = 0; k < sizeof forwarded / sizeof *forwarded; k++) signal(forwarded[k], SIG_DFL);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (account != NULL) {
            if (initgroups(account->pw_name, account->pw_gid) != 0 || setgid(account->pw_gid) != 0 || setuid(account->pw_uid) != 0) {
                fprintf(stderr, "receipts-test-launcher: cannot become %s: %s\n", user, strerror(errno));
                _exit(125);
            }
        }
        if (cwd != NULL && chdir(cwd) != 0) {
            fprintf(stderr, "receipts-test-launcher: cannot enter %s: %s\n", cwd, strerror(errno));
            _exit(125);
        }
        execvp(program[0], program);
        fprintf(stderr, "receipts-test-launcher: cannot run %s: %s\n", program[0], strerror(errno));
        _exit(127);
    }
    setpgid(pid, pid);
    child = pid;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = forward;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (size_t k = 0; k < sizeof forwarded / sizeof *forwarded; k++) sigaction(forwarded[k], &action, NULL);
    sigprocmask(SIG_SETMASK, &none, NULL);

    int own = receipts_pidfd_open(pid);
    struct pollfd ends[2] = { { .fd = watched, .events = POLLIN }, { .fd = own, .events = POLLIN } };
    int watchedEnded = 0;
    for (;;) {
        int ready = poll(ends, own >= 0 ? 2 : 1, own >= 0 ? -1 : 200);
        if (ready < 0 && errno == EINTR) continue;
        if (ends[0].revents != 0) { watchedEnded = 1; break; }
        if (own >= 0 && ends[1].revents != 0) break;
        siginfo_t info;
        memset(&info, 0, sizeof info);
        if (own < 0 && waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) break;
    }
    // Whichever ended first, nothing of the group stays.
    kill(-pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (watchedEnded) return 137;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return 125;
}
