# tap_checks.sh: sourced by the cross-target test scripts (libencodify/cross,
# libmailparse/cross), which run many commands and report them as one TAP
# stream. The sourcing script sets `build`, a directory for the logs.
#
#   tap_check NAME COMMAND...  runs COMMAND, its output into $build/NAME.log,
#                              and records "ok" or "not ok" for NAME;
#   tap_finish                 prints the TAP stream and exits 1 if any
#                              check failed, else 0.
tap_n=0
tap_failed=0
tap_results=()

tap_check() {
  local name=$1
  shift
  tap_n=$((tap_n + 1))
  if "$@" >"$build/$name.log" 2>&1; then
    tap_results+=("ok $tap_n - $name")
  else
    tap_results+=("not ok $tap_n - $name (see $build/$name.log)")
    tap_failed=1
  fi
}

tap_finish() {
  echo "TAP version 13"
  echo "1..$tap_n"
  printf '%s\n' "${tap_results[@]}"
  exit $tap_failed
}
