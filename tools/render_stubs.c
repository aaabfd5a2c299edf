/*
 * render_stubs.c - what liblog's renderer and line formatter (fmt_plan.c,
 * fmt_render.c, line.c, levels.c, linked into llogcat by binrec.c) need from
 * the rest of the library, for a tool that runs no logger: statistics that
 * nobody reads, and no crash in progress (so the line formatter may call
 * localtime_r, which llogcat never asks for).
 */
#include "crash.h"
#include "stats.h"

struct llog__stats llog__stats;

int llog__crash_in_progress(void)
{
	return 0;
}
