// msgcrypt_tool.h: what the files of the msgcrypt command share: the
// command entry points main.c's table calls, the reader of whole input
// files, and the refusals that describe and encrypt apply alike.
#ifndef MSGCRYPT_TOOL_H
#define MSGCRYPT_TOOL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "msgcrypt.h"

// Exit statuses: 0 success, 1 the command ran and found a failure, 2 usage.
enum { EXIT_OK = 0, EXIT_FAILED = 1, EXIT_USAGE = 2 };

// MSGCRYPT_MAX_FILE is the largest input read whole: a key or certificate
// file, a trust bundle, a CRL, or the MIME message of encrypt-mime. The
// plaintext of `encrypt` streams and has no limit. Inputs that the library
// limits further (MC_PGP_DEFAULT_MAX_INPUT_LEN for keys) are refused by it,
// with its own message.
#define MSGCRYPT_MAX_FILE ((size_t)256 << 20)

// Each command takes argv[0] as its own name and returns its exit status.
int msgcrypt_cmd_describe(int argc, char **argv);     // describe.c
int msgcrypt_cmd_encrypt(int argc, char **argv);      // encrypt.c
int msgcrypt_cmd_encrypt_mime(int argc, char **argv); // encrypt.c

// msgcrypt_read_stream reads `f` to its end into a new buffer (free()d by
// the caller; not NULL even when empty), at most MSGCRYPT_MAX_FILE bytes.
// Returns 0, or -EFBIG for a longer input, -ENOMEM, or the read's -errno
// (-EISDIR for a directory, say), with nothing allocated (read_input.c).
int msgcrypt_read_stream(FILE *f, uint8_t **out, size_t *out_len);

// msgcrypt_read_path is msgcrypt_read_stream of the file `path` (a path
// only: "-" is a file named so); it also returns fopen's -errno
// (read_input.c).
int msgcrypt_read_path(const char *path, uint8_t **out, size_t *out_len);

// msgcrypt_report_unusable says on stderr that the key `cert` of `path`
// has no usable encryption subkey, and why (describe.c).
void msgcrypt_report_unusable(const char *path, const mc_pgp_cert *cert);

// msgcrypt_refuse_x509 returns -1, having said why on stderr, when
// certificate `index` of `path` must not be encrypted to at `now`: its key
// usage or extended key usage leaves out mail encryption (RFC 8550 4.4.2,
// RFC 5280 4.2.1.3 and 4.2.1.12), or `now` is outside its validity period,
// as mc_x509_cert_warnings reports them; else 0. Whether it chains to a
// trusted root is not judged here: that needs a trust store, which only
// describe --cert --trust takes (the library leaves that policy to its
// caller) (describe.c).
int msgcrypt_refuse_x509(const char *path, size_t index, const mc_x509_cert *c, int64_t now);

#endif // MSGCRYPT_TOOL_H
