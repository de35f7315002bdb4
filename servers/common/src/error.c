// error.c: servers/common's error descriptions. srv_strerror() turns any
// status code a servers/common function returns (its own SRV_ERR_* block or a
// negative errno value) into a static message for the daemons' logs.
#include "srv_error.h"

#include "corvid_errtext.h"

const char *srv_strerror(int code) {
  static const char *const own[] = {
      [SRV_ERR_INVALID_ARGUMENT - SRV_ERR_INVALID_ARGUMENT] = "invalid argument",
      [SRV_ERR_INVALID_ARGUMENT - SRV_ERR_LIMIT] = "limit exceeded",
      [SRV_ERR_INVALID_ARGUMENT - SRV_ERR_CONFIG_SYNTAX] = "configuration syntax error",
      [SRV_ERR_INVALID_ARGUMENT - SRV_ERR_CONFIG_DUPLICATE] = "configuration key defined twice",
      [SRV_ERR_INVALID_ARGUMENT - SRV_ERR_CONFIG_VALUE] = "invalid configuration value",
      [SRV_ERR_INVALID_ARGUMENT - SRV_ERR_CONFIG_RANGE] = "configuration value out of range",
  };
  return corvid_errtext_lookup(own, sizeof own / sizeof own[0], SRV_ERR_INVALID_ARGUMENT, code);
}
