// fuzz_records.c: the store's record decoders (src/records.c) on arbitrary
// bytes, the first byte choosing the record type. Property: a decoder either
// rejects with MS_ERR_CORRUPT or accepts, and then re-encoding the record
// gives back exactly the input (the encodings are canonical), so nothing a
// decoder accepts is lost or invented.
#include "mailstore.h"
#include "store_records.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok) {
  if (!ok)
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const uint8_t *in = data + 1;
  size_t len = size - 1;
  static uint8_t out[MSR_ACCOUNT_MAX + MSR_MAILBOX_MAX];
  int rc;
  switch (data[0] % 5) {
  case 0: {
    struct msr_account a;
    rc = msr_account_decode(&a, in, len);
    if (rc == 0) {
      check(msr_account_encode(out, &a) == len);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 1: {
    struct msr_mailbox m;
    rc = msr_mailbox_decode(&m, in, len);
    if (rc == 0) {
      check(msr_mailbox_encode(out, &m) == len);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 2: {
    struct msr_uid u;
    rc = msr_uid_decode(&u, in, len);
    if (rc == 0) {
      check(len == MSR_UID_LEN);
      msr_uid_encode(out, &u);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  case 3: {
    struct msr_message m;
    rc = msr_message_decode(&m, in, len);
    if (rc == 0) {
      check(len == MSR_MESSAGE_LEN);
      msr_message_encode(out, &m);
      check(memcmp(out, in, len) == 0);
    }
    break;
  }
  default: {
    struct msr_blob b;
    rc = msr_blob_decode(&b, in, len);
    if (rc == 0) {
      check(len > MSR_BLOB_HEAD);
      msr_blob_encode_head(out, &b);
      check(memcmp(out, in, MSR_BLOB_HEAD) == 0);
    }
    break;
  }
  }
  check(rc == 0 || rc == MS_ERR_CORRUPT);
  return 0;
}
