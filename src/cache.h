/*
 * cache.h - the cache folder (cache.c): where it is, and files that appear whole.
 */
#ifndef CACHE_H
#define CACHE_H

#include "stap.h"

enum cache_mode {
	CACHE_USE,
	CACHE_DISABLED,		/* --disable-cache: neither read nor written */
	CACHE_POISONED,		/* --poison-cache: written, never read */
};
extern enum cache_mode cache_mode;

/* The cache folder: made 0700, and used only when safe (cache.c); else a folder of this
 * run's, removed by cache_cleanup() (at exit, and by a Ctrl-C's handler). */
char *cache_dir(void);
void cache_cleanup(void);
/* CACHE/FOLDER/NAMEKEY: the cache file of what this stap program derives from the file
 * SOURCE (KEY: a hash of TAG, SOURCE's identity and size and time, and the program's). */
char *cache_path_for_file(const char *folder, const char *name, const char *tag,
			  const char *source);
/* Makes DIR (absolute) 0700, each folder on the way checked as the cache's are: NULL when
 * it is safe to keep secrets in, else why not; *CHECKED is the path to use. */
char *private_folder(const char *dir, char **checked);
/* The user's home in the password database (not $HOME), or NULL. */
char *user_home(void);
int cache_clean(bool verbose);		/* --clean-cache */

#endif
