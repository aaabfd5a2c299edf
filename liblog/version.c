/*
 * version.c - llog_version(): the library's version, as the header that
 * built it says (include/llog.h; CMakeLists.txt checks that it is the
 * project's version).
 */
#include "llog.h"

unsigned llog_version(void)
{
	return LLOG_VERSION_NUMBER;
}
