// bench_internal.h: what bench_msgcrypt.c shares with its peer adapters,
// which live in their own files so that a peer missing at configure time
// drops out of the build (bench/meson.build) without an #ifdef maze.
#ifndef MC_BENCH_INTERNAL_H
#define MC_BENCH_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#ifdef BENCH_HAVE_PQCRYSTALS
// peer_pqcrystals.c: the pq-crystals ref/ code behind one entry point per
// operation, `level` being 512/768/1024 (ML-KEM) or 44/65/87 (ML-DSA). Each
// returns 0 on success. The ML-KEM functions are derandomised (coins given);
// ML-DSA keygen draws its seed from getrandom, as ours does, and signing
// takes its randomness `rnd` and signs with an empty context.
int peer_ref_mlkem_keygen(int level, uint8_t *pk, uint8_t *sk, const uint8_t coins[64]);
int peer_ref_mlkem_encaps(int level, uint8_t *ct, uint8_t ss[32], const uint8_t *pk,
                          const uint8_t coins[32]);
int peer_ref_mlkem_decaps(int level, uint8_t ss[32], const uint8_t *ct, const uint8_t *sk);
int peer_ref_mldsa_keygen(int level, uint8_t *pk, uint8_t *sk);
int peer_ref_mldsa_sign(int level, uint8_t *sig, size_t *sig_len, const uint8_t *msg,
                        size_t msg_len, const uint8_t rnd[32], const uint8_t *sk);
int peer_ref_mldsa_verify(int level, const uint8_t *sig, size_t sig_len, const uint8_t *msg,
                          size_t msg_len, const uint8_t *pk);
#endif

#endif // MC_BENCH_INTERNAL_H
