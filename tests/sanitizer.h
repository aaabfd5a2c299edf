/* tests/sanitizer.h - which sanitizer a test is built under, the same way
 * for gcc (which defines __SANITIZE_ADDRESS__ / __SANITIZE_THREAD__) and
 * clang (which answers __has_feature instead): TEST_ASAN, TEST_TSAN, and
 * TEST_SANITIZER for either. The asan preset builds with clang and the
 * tsan preset with gcc, so a test that asks the compiler one way only
 * would run its release-sized case under one of them. */
#ifndef LLOG_TESTS_SANITIZER_H
#define LLOG_TESTS_SANITIZER_H

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TEST_ASAN 1
#endif
#if __has_feature(thread_sanitizer)
#define TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) && !defined(TEST_ASAN)
#define TEST_ASAN 1
#endif
#if defined(__SANITIZE_THREAD__) && !defined(TEST_TSAN)
#define TEST_TSAN 1
#endif
#if defined(TEST_ASAN) || defined(TEST_TSAN)
#define TEST_SANITIZER 1
#endif

#endif
