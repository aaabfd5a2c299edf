/*
 * The C++ program of the find_package consumer: the installed headers from
 * C++ (typed calls, fields, context). It logs one line to a console sink
 * on stderr, as main.c does.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <cstdio>
#include <string>

#ifndef CONSUMER
#define CONSUMER "consumer"
#endif

int main()
{
	int rc = llog_add_sink(llog_console_sink(nullptr));
	std::string who = CONSUMER;

	if (rc == 0)
		rc = llog_init(nullptr);
	if (rc != 0) {
		std::fprintf(stderr, "llog: %s\n", llog_strerror(rc));
		return 1;
	}
	{
		LLOG_CTX_SCOPE("lang", "c++");
		LOG_INFO_KV(("answer", 42, "ok", true), "llog consumer %s: hello, %d", who.c_str(), 42);
	}
	llog_shutdown();
	return 0;
}
