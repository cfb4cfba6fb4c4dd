/* Removal of dead writers' temporary files (mm_stale_tmp.h). */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "mm_stale_tmp.h"

void mm__remove_stale_tmps(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    const char *base = slash ? slash + 1 : path;
    size_t bl = strlen(base);
    DIR *d = dir ? opendir(dir) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        const char *n = e->d_name;
        if (strncmp(n, base, bl) || strncmp(n + bl, ".tmp.", 5)) continue;
        const char *digits = n + bl + 5;
        char *end;
        errno = 0;
        long pid = strtol(digits, &end, 10);
        if (*digits < '1' || *digits > '9' || *end || errno || pid <= 0 || (pid_t)pid != pid)
            continue;
        if ((pid_t)pid == getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))
            unlinkat(dirfd(d), n, 0);
    }
    if (d) closedir(d);
    free(dir);
}
