/* Temporary files of writers that died: every mmsim writer puts its output in "<path>.tmp.<pid>"
 * and renames it over <path> when complete, so a writer killed (kill -9, power loss) in between
 * leaves that file. */
#ifndef MM_STALE_TMP_H
#define MM_STALE_TMP_H

/* Remove "<path>.tmp.<pid>" files beside path whose pid is this process or no longer exists
 * (kill(pid, 0) fails with ESRCH). A live pid's file belongs to another writer and is kept. Best
 * effort: errors (an unreadable directory, out of memory) leave the files in place and are not
 * reported. */
void mm__remove_stale_tmps(const char *path);

#endif
