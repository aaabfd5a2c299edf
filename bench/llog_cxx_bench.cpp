/*
 * llog_cxx_bench.cpp - llog_bench.c compiled as C++ (bench/run.sh's
 * "llog-cxx", bench/caller_cost.sh's c++ rows): the same program, whose LOG
 * calls go through llog.h's C++ side (templates where C uses _Generic).
 */
#include "llog_bench.c"
