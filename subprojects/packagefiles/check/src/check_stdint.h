/* check_stdint.h: the fixed-width integer types for check.h. Upstream's build
   generates this file; every system this build targets has <stdint.h>. */
#ifndef CHECK_STDINT_H
#define CHECK_STDINT_H
#include <stdint.h>
#endif
