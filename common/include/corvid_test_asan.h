// corvid_test_asan.h: CORVID_UNDER_ASAN is 1 when the program is built with
// AddressSanitizer (gcc says so with __SANITIZE_ADDRESS__, clang with
// __has_feature), else 0. Tests use it to run fewer iterations, or to leave
// out what ASan's own interposers and address-space reservations make
// meaningless. Test-only, private and header-only.
#ifndef CORVID_TEST_ASAN_H
#define CORVID_TEST_ASAN_H

#if defined(__SANITIZE_ADDRESS__)
#define CORVID_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CORVID_UNDER_ASAN 1
#endif
#endif
#ifndef CORVID_UNDER_ASAN
#define CORVID_UNDER_ASAN 0
#endif

#endif // CORVID_TEST_ASAN_H
