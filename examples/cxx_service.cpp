/*
 * cxx_service.cpp - llog from C++: a small service whose worker threads
 * log with printf arguments (LOG_INFO, LOG_WARN), with fields
 * (LOG_INFO_KV) and with a per-thread context (llog_ctx_set for the
 * worker, LLOG_CTX_SCOPE for the request id), to a JSON-lines file. The
 * same macros as in C: the calls are typed and checked the same way (a
 * field of a type fields do not take, std::string included, does not
 * compile: pass s.c_str()).
 *
 * It then reads the file back and checks that every record is there once,
 * with its fields and its context; it exits 1 if not.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

static const int workers = 4;
static const int requests = 50; /* per worker */

static std::string request_id(int w, int r)
{
	return "w" + std::to_string(w) + "-r" + std::to_string(r);
}

/* What one request logs. Fields: a string, integers, a double, a bool. */
static void handle(int w, int r)
{
	std::string id = request_id(w, r);
	std::string user = "user" + std::to_string(r % 7);
	int status = r % 10 == 9 ? 503 : 200;
	unsigned long bytes = 512ul * (unsigned long)(r + 1);
	double ms = w * 100 + r + 0.5;

	LLOG_CTX_SCOPE("request_id", id.c_str()); /* until this function returns */
	LOG_INFO("request %d of worker %d started", r, w);
	if (status != 200)
		LOG_WARN("backend unavailable for %s (%d)", user.c_str(), status);
	LOG_INFO_KV(("user", user.c_str(), "status", status, "bytes", bytes, "latency_ms", ms,
		     "cached", r % 2 == 0),
		    "request %s done", id.c_str());
}

static void worker(int w)
{
	llog_set_thread_name(("worker-" + std::to_string(w)).c_str());
	llog_ctx_set("worker", w); /* on every record of this thread */
	for (int r = 0; r < requests; r++)
		handle(w, r);
}

/* A record the run must have written: its level, and its line from
 * "msg" to the end (the message, then the fields: the context first, in
 * the order it was set, then the call's). */
struct record {
	std::string level, tail;
};

static std::vector<record> expected_records()
{
	std::vector<record> v;

	for (int w = 0; w < workers; w++) {
		for (int r = 0; r < requests; r++) {
			std::string id = request_id(w, r), user = "user" + std::to_string(r % 7);
			std::string ctx = "\"fields\":{\"worker\":" + std::to_string(w) +
					  ",\"request_id\":\"" + id + "\"";
			int status = r % 10 == 9 ? 503 : 200;

			v.push_back({"INFO", "\"msg\":\"request " + std::to_string(r) + " of worker " +
						     std::to_string(w) + " started\"," + ctx + "}}"});
			if (status != 200)
				v.push_back({"WARN", "\"msg\":\"backend unavailable for " + user +
							     " (503)\"," + ctx + "}}"});
			v.push_back({"INFO", "\"msg\":\"request " + id + " done\"," + ctx +
						     ",\"user\":\"" + user + "\",\"status\":" +
						     std::to_string(status) + ",\"bytes\":" +
						     std::to_string(512 * (r + 1)) + ",\"latency_ms\":" +
						     std::to_string(w * 100 + r) + ".5,\"cached\":" +
						     (r % 2 == 0 ? "true" : "false") + "}}"});
		}
	}
	v.push_back({"INFO", "\"msg\":\"service stopped after " +
				     std::to_string(workers * requests) + " requests\"}"});
	return v;
}

/* Whether line is the JSON of record want. */
static bool matches(const std::string &line, const record &want)
{
	size_t msg = line.find("\"msg\":");

	return line.find("\"level\":\"" + want.level + "\"") != std::string::npos &&
	       msg != std::string::npos && line.compare(msg, std::string::npos, want.tail) == 0;
}

/* Every expected record on exactly one line, and no other line. */
static int check(const char *path)
{
	std::vector<record> want = expected_records();
	std::vector<std::string> lines;
	std::ifstream in(path);
	int bad = 0;

	for (std::string line; std::getline(in, line);)
		lines.push_back(line);
	if (lines.size() != want.size()) {
		std::fprintf(stderr, "cxx_service: %zu lines in %s, expected %zu\n", lines.size(),
			     path, want.size());
		bad++;
	}
	for (const record &w : want) {
		size_t n = 0;

		for (const std::string &line : lines)
			n += matches(line, w);
		if (n != 1) {
			std::fprintf(stderr, "cxx_service: %zu lines match %s %s\n", n,
				     w.level.c_str(), w.tail.c_str());
			bad++;
		}
	}
	return bad;
}

int main()
{
	char dir[] = "/tmp/llog_cxx_service_XXXXXX";

	if (mkdtemp(dir) == nullptr)
		return 1;
	std::string path = std::string(dir) + "/service.jsonl";
	struct llog_file_options fo = {};

	fo.path = path.c_str();
	fo.format = LLOG_FORMAT_JSON;
	fo.compression = LLOG_FILE_PLAIN; /* JSON lines as they are */
	if (llog_add_sink(llog_file_sink(&fo)) != 0 || llog_init(nullptr) != 0)
		return 1;

	std::vector<std::thread> threads;
	for (int w = 0; w < workers; w++)
		threads.emplace_back(worker, w);
	for (std::thread &t : threads)
		t.join();
	LOG_INFO("service stopped after %d requests", workers * requests);
	llog_shutdown(); /* everything logged is in the file now */

	int bad = check(path.c_str());
	if (bad != 0) {
		std::fprintf(stderr, "cxx_service: %d problems; the file is kept: %s\n", bad,
			     path.c_str());
		return 1;
	}
	unlink(path.c_str());
	rmdir(dir);
	std::printf("cxx_service: %d records written and checked\n",
		    workers * requests * 2 + workers * (requests / 10) + 1);
	return 0;
}
