// test_ocb.c: AES-OCB against RFC 7253 Appendix A (the sixteen AES-128 sample
// results with 12-byte nonces, the sample with a 96-bit tag, the internal
// values L_*, L_$, L_0 and L_1, and the iterated computation for every key
// and tag length) and RFC 9580 Appendix A.8 and A.10 (OpenPGP's 15-byte
// nonces); then round trips over every key, tag and nonce length and many
// message lengths, in place and not, tag forgery (no plaintext released) and
// the misuse errors. Every test runs three times, on the VAES loops, the
// AES-NI loops and the loops over BoringSSL's ECB mode, and a last test checks
// that the three agree byte for byte on pseudo-random inputs of every length
// up to 2000 bytes and of 1 MiB, forged ciphertexts included. The incremental
// encryption that SEIPDv2 streams through (mc_ocb_enc_*) must give the
// one-shot seal's bytes for any split of the plaintext.
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "aead_internal.h"
#include "corvid_check.h"
#include "msgcrypt.h"
#include "testutil.h"

// The implementation under test, set by each TCase's fixture.
static int impl = MC_OCB_IMPL_BORINGSSL;

static void use_aesni(void) {
  // Without AES-NI the automatic choice is BoringSSL's, tested twice then.
  impl = mc_ocb_aesni_available() ? MC_OCB_IMPL_AESNI : MC_OCB_IMPL_AUTO;
}

static void use_vaes(void) {
  // Without VAES the automatic choice is AES-NI's or BoringSSL's.
  impl = mc_ocb_vaes_available() ? MC_OCB_IMPL_VAES : MC_OCB_IMPL_AUTO;
}

static void use_vaes512(void) {
  // Without AVX-512 and VAES the automatic choice is one of the others.
  impl = mc_ocb_vaes512_available() ? MC_OCB_IMPL_VAES512 : MC_OCB_IMPL_AUTO;
}

static void use_boringssl(void) {
  impl = MC_OCB_IMPL_BORINGSSL;
}

static int init_ctx(mc_aes_ocb_ctx *ctx, const uint8_t *key, size_t key_len, size_t tag_len) {
  return mc_aes_ocb_init_impl(ctx, key, key_len, tag_len, impl);
}

// hex_to decodes `hex` into `out` (room for `cap` bytes) and returns its
// length; the test fails on bad hex.
static size_t hex_to(uint8_t *out, size_t cap, const char *hex) {
  size_t len = 0;
  uint8_t *bytes = mc_test_unhex(hex, &len);
  ck_assert_ptr_nonnull(bytes);
  ck_assert_uint_le(len, cap);
  memcpy(out, bytes, len);
  free(bytes);
  return len;
}

static void ascending(uint8_t *buf, size_t len) {
  for (size_t i = 0; i < len; i++)
    buf[i] = (uint8_t)i;
}

// RFC 7253 Appendix A, "Sample Results": K = 000102...0F, N =
// BBAA99887766554433221100 + i, A and P the first bytes of 000102..., a
// 128-bit tag; C = ciphertext || tag.
static const struct {
  uint8_t nonce_last;
  uint8_t ad_len, pt_len;
  const char *c;
} rfc7253_samples[] = {
    {0x00, 0, 0, "785407BFFFC8AD9EDCC5520AC9111EE6"},
    {0x01, 8, 8, "6820B3657B6F615A5725BDA0D3B4EB3A257C9AF1F8F03009"},
    {0x02, 8, 0, "81017F8203F081277152FADE694A0A00"},
    {0x03, 0, 8, "45DD69F8F5AAE72414054CD1F35D82760B2CD00D2F99BFA9"},
    {0x04, 16, 16, "571D535B60B277188BE5147170A9A22C3AD7A4FF3835B8C5701C1CCEC8FC3358"},
    {0x05, 16, 0, "8CF761B6902EF764462AD86498CA6B97"},
    {0x06, 0, 16, "5CE88EC2E0692706A915C00AEB8B2396F40E1C743F52436BDF06D8FA1ECA343D"},
    {0x07, 24, 24,
     "1CA2207308C87C010756104D8840CE1952F09673A448A122C92C62241051F57356D7F3C90BB0E07F"},
    {0x08, 24, 0, "6DC225A071FC1B9F7C69F93B0F1E10DE"},
    {0x09, 0, 24,
     "221BD0DE7FA6FE993ECCD769460A0AF2D6CDED0C395B1C3CE725F32494B9F914D85C0B1EB38357FF"},
    {0x0A, 32, 32,
     "BD6F6C496201C69296C11EFD138A467ABD3C707924B964DEAFFC40319AF5A48540FBBA186C5553C68AD9F592A7"
     "9A4240"},
    {0x0B, 32, 0, "FE80690BEE8A485D11F32965BC9D2A32"},
    {0x0C, 0, 32,
     "2942BFC773BDA23CABC6ACFD9BFD5835BD300F0973792EF46040C53F1432BCDFB5E1DDE3BC18A5F840B52E6534"
     "44D5DF"},
    {0x0D, 40, 40,
     "D5CA91748410C1751FF8A2F618255B68A0A12E093FF454606E59F9C1D0DDC54B65E8628E568BAD7AED07BA06A4"
     "A69483A7035490C5769E60"},
    {0x0E, 40, 0, "C5CD9D1850C141E358649994EE701B68"},
    {0x0F, 0, 40,
     "4412923493C57D5DE0D700F753CCE0D1D2D95060122E9F15A5DDBFC5787E50B5CC55EE507BCB084E479AD363AC"
     "366B95A98CA5F3000B1479"},
};

// check_seal_open seals `pt` and expects `c_hex`, opens `c_hex` back to `pt`,
// and checks that a flipped last tag bit is rejected with nothing released.
static void check_seal_open(const mc_aes_ocb_ctx *ctx, const uint8_t *nonce, size_t nonce_len,
                            const uint8_t *ad, size_t ad_len, const uint8_t *pt, size_t pt_len,
                            const char *c_hex) {
  uint8_t want[128], got[128], back[128];
  size_t want_len = hex_to(want, sizeof want, c_hex), got_len = 0, back_len = 0;
  ck_assert_int_eq(
      mc_aes_ocb_seal(ctx, got, sizeof got, &got_len, nonce, nonce_len, pt, pt_len, ad, ad_len), 0);
  ck_assert_uint_eq(got_len, want_len);
  ck_assert_mem_eq(got, want, want_len);
  ck_assert_int_eq(mc_aes_ocb_open(ctx, back, sizeof back, &back_len, nonce, nonce_len, want,
                                   want_len, ad, ad_len),
                   0);
  ck_assert_uint_eq(back_len, pt_len);
  if (pt_len > 0)
    ck_assert_mem_eq(back, pt, pt_len);

  want[want_len - 1] ^= 1;
  memset(back, 0xaa, sizeof back);
  back_len = 99;
  ck_assert_int_eq(mc_aes_ocb_open(ctx, back, sizeof back, &back_len, nonce, nonce_len, want,
                                   want_len, ad, ad_len),
                   MC_ERR_AUTH_FAILED);
  ck_assert_uint_eq(back_len, 0);
  for (size_t i = 0; i < pt_len; i++)
    require(back[i] == 0, "byte %zu released after a failed open", i);
}

START_TEST(rfc7253_sample_results) {
  uint8_t key[16], nonce[12], buf[40];
  ascending(key, sizeof key);
  ascending(buf, sizeof buf);
  hex_to(nonce, sizeof nonce, "BBAA99887766554433221100");
  nonce[11] = rfc7253_samples[_i].nonce_last;
  mc_aes_ocb_ctx ctx;
  ck_assert_int_eq(init_ctx(&ctx, key, sizeof key, 16), 0);
  check_seal_open(&ctx, nonce, sizeof nonce, buf, rfc7253_samples[_i].ad_len, buf,
                  rfc7253_samples[_i].pt_len, rfc7253_samples[_i].c);
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

// RFC 7253 Appendix A: "the following sample uses AEAD_AES_128_OCB_TAGLEN96"
// with K = 0F0E0D...00.
START_TEST(rfc7253_sample_taglen96) {
  uint8_t key[16], nonce[12], buf[40];
  hex_to(key, sizeof key, "0F0E0D0C0B0A09080706050403020100");
  hex_to(nonce, sizeof nonce, "BBAA9988776655443322110D");
  ascending(buf, sizeof buf);
  mc_aes_ocb_ctx ctx;
  ck_assert_int_eq(init_ctx(&ctx, key, sizeof key, 12), 0);
  check_seal_open(&ctx, nonce, sizeof nonce, buf, 40, buf, 40,
                  "1792A4E31E0755FB03E31B22116E6C2DDF9EFD6E33D536F1A0124B0A55BAE884ED93481529C76B6"
                  "AD0C515F4D1CDD4FDAC4F02AA");
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

// RFC 7253 Appendix A lists internal values for K = 000102...0F: L_*, L_$,
// L_0 and L_1, which the context keeps.
START_TEST(rfc7253_internal_values) {
  uint8_t key[16], want[16];
  ascending(key, sizeof key);
  mc_aes_ocb_ctx ctx;
  ck_assert_int_eq(init_ctx(&ctx, key, sizeof key, 16), 0);
  hex_to(want, sizeof want, "C6A13B37878F5B826F4F8162A1C8D879");
  ck_assert_mem_eq(ctx.l_star, want, 16);
  hex_to(want, sizeof want, "8D42766F0F1EB704DE9F02C54391B075");
  ck_assert_mem_eq(ctx.l_dollar, want, 16);
  hex_to(want, sizeof want, "1A84ECDE1E3D6E09BD3E058A8723606D");
  ck_assert_mem_eq(ctx.l[0], want, 16);
  hex_to(want, sizeof want, "3509D9BC3C7ADC137A7C0B150E46C0DA");
  ck_assert_mem_eq(ctx.l[1], want, 16);
  mc_aes_ocb_cleanup(&ctx);
  // cleanup wipes the table and is idempotent.
  static const uint8_t zeros[16] = {0};
  ck_assert_mem_eq(ctx.l_star, zeros, 16);
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

// RFC 7253 Appendix A, the iterated test for each named parameter set:
//   K = zeros(KEYLEN-8) || num2str(TAGLEN,8)
//   C = <empty string>
//   for i = 0 to 127 do
//     S = zeros(8i)
//     N = num2str(3i+1,96); C = C || OCB-ENCRYPT(K,N,S,S)
//     N = num2str(3i+2,96); C = C || OCB-ENCRYPT(K,N,<empty string>,S)
//     N = num2str(3i+3,96); C = C || OCB-ENCRYPT(K,N,S,<empty string>)
//   end for
//   N = num2str(385,96)
//   Output : OCB-ENCRYPT(K,N,C,<empty string>)
// (OCB-ENCRYPT takes K, N, A, P in that order.)
static const struct {
  size_t key_len, tag_len;
  const char *output;
} rfc7253_iterated[] = {
    {16, 16, "67E944D23256C5E0B6C61FA22FDF1EA2"},
    {24, 16, "F673F2C3E7174AAE7BAE986CA9F29E17"},
    {32, 16, "D90EB8E9C977C88B79DD793D7FFA161C"},
    {16, 12, "77A3D8E73589158D25D01209"},
    {24, 12, "05D56EAD2752C86BE6932C5E"},
    {32, 12, "5458359AC23B0CBA9E6330DD"},
    {16, 8, "192C9B7BD90BA06A"},
    {24, 8, "0066BC6E0EF34E24"},
    {32, 8, "7D4EA5D445501CBE"},
};

static void num2str96(uint8_t nonce[12], unsigned value) {
  memset(nonce, 0, 12);
  nonce[10] = (uint8_t)(value >> 8);
  nonce[11] = (uint8_t)value;
}

START_TEST(rfc7253_iterated_all_key_and_tag_lengths) {
  size_t key_len = rfc7253_iterated[_i].key_len, tag_len = rfc7253_iterated[_i].tag_len;
  uint8_t key[32] = {0}, nonce[12], zeros[128] = {0}, out[16], want[16];
  key[key_len - 1] = (uint8_t)(tag_len * 8);
  mc_aes_ocb_ctx ctx;
  ck_assert_int_eq(init_ctx(&ctx, key, key_len, tag_len), 0);
  size_t c_cap = 22400, c_len = 0, n;
  uint8_t *c = malloc(c_cap);
  ck_assert_ptr_nonnull(c);
  for (unsigned i = 0; i < 128; i++) {
    num2str96(nonce, 3 * i + 1);
    ck_assert_int_eq(
        mc_aes_ocb_seal(&ctx, c + c_len, c_cap - c_len, &n, nonce, 12, zeros, i, zeros, i), 0);
    c_len += n;
    num2str96(nonce, 3 * i + 2);
    ck_assert_int_eq(
        mc_aes_ocb_seal(&ctx, c + c_len, c_cap - c_len, &n, nonce, 12, zeros, i, NULL, 0), 0);
    c_len += n;
    num2str96(nonce, 3 * i + 3);
    ck_assert_int_eq(
        mc_aes_ocb_seal(&ctx, c + c_len, c_cap - c_len, &n, nonce, 12, NULL, 0, zeros, i), 0);
    c_len += n;
  }
  // RFC 7253: 22,400 bytes for TAGLEN 128 and 19,328 for 64 (and 20,864 for 96).
  ck_assert_uint_eq(c_len, 128 * 127 + 128 * 3 * tag_len);
  num2str96(nonce, 385);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, nonce, 12, NULL, 0, c, c_len), 0);
  ck_assert_uint_eq(n, tag_len);
  ck_assert_uint_eq(hex_to(want, sizeof want, rfc7253_iterated[_i].output), tag_len);
  ck_assert_mem_eq(out, want, tag_len);
  free(c);
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

// RFC 9580 Appendix A.8.4, "Decryption of Data" of the X25519-AEAD-OCB
// sample: AES-128, the chunk nonce is the 7-byte IV || 8-byte chunk index.
START_TEST(rfc9580_a8_ocb_chunk_and_final_tag) {
  uint8_t key[16], nonce[15], ad[13], in[64], out[64], want[64];
  hex_to(key, sizeof key, "4512f7149d863341527c6567d5bffc42");
  hex_to(nonce, sizeof nonce, "5faf3250212ff90000000000000000");
  size_t ad_len = hex_to(ad, sizeof ad, "d202070206");
  size_t in_len = hex_to(in, sizeof in,
                         "1ba9ebd2c0ec95bf569d25c999ee4a3de17058f40dfa8b4c682be3fbbbd7b27e"
                         "b0f59bb5005f80c7c6f40388c30ad406ab0513dcd6");
  // The Literal Data packet ("Hello, world!") and the Padding packet.
  size_t want_len = hex_to(want, sizeof want,
                           "cb1362000000000048656c6c6f2c20776f726c6421"
                           "d50ec5a293072991628147d72c8f86b7");
  mc_aes_ocb_ctx ctx;
  size_t out_len;
  ck_assert_int_eq(init_ctx(&ctx, key, sizeof key, MC_AES_OCB_TAG_LEN), 0);
  ck_assert_int_eq(
      mc_aes_ocb_open(&ctx, out, sizeof out, &out_len, nonce, 15, in, in_len, ad, ad_len), 0);
  ck_assert_uint_eq(out_len, want_len);
  ck_assert_mem_eq(out, want, want_len);
  ck_assert_mem_eq(out + 8, "Hello, world!", 13);
  // Sealing gives the packet's bytes back.
  ck_assert_int_eq(
      mc_aes_ocb_seal(&ctx, out, sizeof out, &out_len, nonce, 15, want, want_len, ad, ad_len), 0);
  ck_assert_uint_eq(out_len, in_len);
  ck_assert_mem_eq(out, in, in_len);

  // The final tag authenticates an empty chunk under the next nonce, with the
  // total plaintext length (0x25) appended to the associated data.
  uint8_t final_ad[13], final_tag[16];
  nonce[14] = 1;
  hex_to(final_ad, sizeof final_ad,
         "d20207020600000000000000"
         "25");
  hex_to(final_tag, sizeof final_tag, "f9fd737656286e1177d00f888adb31c4");
  ck_assert_int_eq(
      mc_aes_ocb_seal(&ctx, out, sizeof out, &out_len, nonce, 15, NULL, 0, final_ad, 13), 0);
  ck_assert_uint_eq(out_len, 16);
  ck_assert_mem_eq(out, final_tag, 16);
  ck_assert_int_eq(
      mc_aes_ocb_open(&ctx, out, sizeof out, &out_len, nonce, 15, final_tag, 16, final_ad, 13), 0);
  ck_assert_uint_eq(out_len, 0);
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

// RFC 9580 Appendix A.10, "Sample AEAD-OCB Encryption and Decryption": the v6
// SKESK's session key (A.10.2, key from HKDF output, 15-byte AEAD nonce) and
// the v2 SEIPD's chunk #0 (A.10.3 packet bytes, A.10.4 key, IV and plaintext).
START_TEST(rfc9580_a10_skesk_and_seipd) {
  uint8_t key[16], nonce[15], ad[16], in[64], out[64], want[64];
  size_t out_len, ad_len, in_len, want_len;
  mc_aes_ocb_ctx ctx;

  hex_to(key, sizeof key, "38a9b345b5680bb61bb65d73eec7ecd9");
  hex_to(nonce, sizeof nonce, "cfcc5c11664edb9db42590d7dc46b0");
  ad_len = hex_to(ad, sizeof ad, "c3060702");
  in_len = hex_to(in, sizeof in,
                  "7241b612c3812cfffbea00f2347b2564"   // encrypted session key
                  "1123f887ae60d4fd614e0837d819d36c"); // AEAD tag
  want_len = hex_to(want, sizeof want, "28e79ab82397d3c63de24ac217d7b791");
  ck_assert_int_eq(init_ctx(&ctx, key, sizeof key, 16), 0);
  ck_assert_int_eq(
      mc_aes_ocb_open(&ctx, out, sizeof out, &out_len, nonce, 15, in, in_len, ad, ad_len), 0);
  ck_assert_uint_eq(out_len, want_len);
  ck_assert_mem_eq(out, want, want_len);
  mc_aes_ocb_cleanup(&ctx);

  hex_to(key, sizeof key, "71662a11ee5b4e08144e6de883a00999");
  hex_to(nonce, sizeof nonce, "ebde12bb570dcf0000000000000000");
  ad_len = hex_to(ad, sizeof ad, "d202070206");
  in_len = hex_to(in, sizeof in,
                  "ff9fd38562758035bc49754ce1bf3fffa7dad0a3b8104f5133cf42a4100a83eef4ca1b4801"
                  "a8846bf42bcda7c8ce9d65e212f301cb");
  want_len = hex_to(want, sizeof want,
                    "cb1362000000000048656c6c6f2c20776f726c6421"
                    "d50eae6aa1649b56aa835b2613902bd2");
  ck_assert_int_eq(init_ctx(&ctx, key, sizeof key, 16), 0);
  ck_assert_int_eq(
      mc_aes_ocb_open(&ctx, out, sizeof out, &out_len, nonce, 15, in, in_len, ad, ad_len), 0);
  ck_assert_uint_eq(out_len, want_len);
  ck_assert_mem_eq(out, want, want_len);
  uint8_t final_ad[13], final_tag[16];
  nonce[14] = 1;
  hex_to(final_ad, sizeof final_ad,
         "d20207020600000000000000"
         "25");
  hex_to(final_tag, sizeof final_tag, "cd98fdcade694a877ad4247323f6e857");
  ck_assert_int_eq(
      mc_aes_ocb_seal(&ctx, out, sizeof out, &out_len, nonce, 15, NULL, 0, final_ad, 13), 0);
  ck_assert_mem_eq(out, final_tag, 16);
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

// Not inlined: gcc 12 at -O3 misreads the bounded nonce loop below as an
// overflow (-Wstringop-overflow), a known false positive.
__attribute__((noinline)) static void fill_pattern(uint8_t *buf, size_t len, unsigned seed) {
  uint32_t x = seed * 2654435761u + 1;
  for (size_t i = 0; i < len; i++) {
    x = x * 1103515245u + 12345u;
    buf[i] = (uint8_t)(x >> 24);
  }
}

// Round trips for every key and tag length, every nonce length and message
// and associated-data lengths around block and batch boundaries; in-place and
// out-of-place sealing agree, and opening in place gives the plaintext back.
START_TEST(round_trips_every_parameter) {
  static const size_t key_lens[] = {16, 24, 32}, tag_lens[] = {16, 12, 8};
  static const size_t lens[] = {0,   1,   15,   16,   17,   31,   32,   33,   255,
                                256, 257, 1023, 1024, 1025, 1040, 4095, 4096, 5000};
  enum { MAX = 5000 + 16 };
  uint8_t key[32], nonce[15], ad[600], *pt = malloc(MAX), *ct = malloc(MAX), *io = malloc(MAX);
  ck_assert(pt != NULL && ct != NULL && io != NULL);
  fill_pattern(key, sizeof key, 1);
  fill_pattern(ad, sizeof ad, 2);
  fill_pattern(pt, MAX, 3);
  for (size_t k = 0; k < 3; k++) {
    for (size_t t = 0; t < 3; t++) {
      mc_aes_ocb_ctx ctx;
      ck_assert_int_eq(init_ctx(&ctx, key, key_lens[k], tag_lens[t]), 0);
      for (size_t nl = 1; nl <= 15; nl++) {
        fill_pattern(nonce, nl, (unsigned)(nl + 10 * k));
        for (size_t l = 0; l < sizeof lens / sizeof lens[0]; l++) {
          size_t len = lens[l], ad_len = (len * 7 + nl) % sizeof ad, n, m;
          ck_assert_int_eq(mc_aes_ocb_seal(&ctx, ct, MAX, &n, nonce, nl, pt, len, ad, ad_len), 0);
          ck_assert_uint_eq(n, len + tag_lens[t]);
          memcpy(io, pt, len);
          ck_assert_int_eq(mc_aes_ocb_seal(&ctx, io, MAX, &m, nonce, nl, io, len, ad, ad_len), 0);
          ck_assert_uint_eq(m, n);
          ck_assert_mem_eq(io, ct, n);
          ck_assert_int_eq(mc_aes_ocb_open(&ctx, io, MAX, &m, nonce, nl, io, n, ad, ad_len), 0);
          ck_assert_uint_eq(m, len);
          if (len > 0)
            ck_assert_mem_eq(io, pt, len);
        }
      }
      mc_aes_ocb_cleanup(&ctx);
    }
  }
  free(pt);
  free(ct);
  free(io);
}
END_TEST

// Every single-bit change of the ciphertext, the tag, the nonce or the
// associated data is rejected, and the output area is zeroed every time.
START_TEST(every_bit_flip_is_rejected) {
  uint8_t key[32], nonce[15], ad[20], pt[37], ct[37 + 16], out[64];
  fill_pattern(key, sizeof key, 4);
  fill_pattern(nonce, sizeof nonce, 5);
  fill_pattern(ad, sizeof ad, 6);
  fill_pattern(pt, sizeof pt, 7);
  mc_aes_ocb_ctx ctx;
  size_t n, m;
  ck_assert_int_eq(init_ctx(&ctx, key, 32, 16), 0);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, ct, sizeof ct, &n, nonce, 15, pt, sizeof pt, ad, 20), 0);
  for (size_t bit = 0; bit < 8 * n; bit++) {
    ct[bit / 8] ^= (uint8_t)(1u << bit % 8);
    memset(out, 0x55, sizeof out);
    ck_assert_int_eq(mc_aes_ocb_open(&ctx, out, sizeof out, &m, nonce, 15, ct, n, ad, 20),
                     MC_ERR_AUTH_FAILED);
    ck_assert_uint_eq(m, 0);
    for (size_t i = 0; i < sizeof pt; i++)
      require(out[i] == 0, "bit %zu: byte %zu released after a failed open", bit, i);
    ct[bit / 8] ^= (uint8_t)(1u << bit % 8);
  }
  for (size_t bit = 0; bit < 8 * sizeof nonce; bit++) {
    nonce[bit / 8] ^= (uint8_t)(1u << bit % 8);
    ck_assert_int_eq(mc_aes_ocb_open(&ctx, out, sizeof out, &m, nonce, 15, ct, n, ad, 20),
                     MC_ERR_AUTH_FAILED);
    nonce[bit / 8] ^= (uint8_t)(1u << bit % 8);
  }
  for (size_t bit = 0; bit < 8 * sizeof ad; bit++) {
    ad[bit / 8] ^= (uint8_t)(1u << bit % 8);
    ck_assert_int_eq(mc_aes_ocb_open(&ctx, out, sizeof out, &m, nonce, 15, ct, n, ad, 20),
                     MC_ERR_AUTH_FAILED);
    ad[bit / 8] ^= (uint8_t)(1u << bit % 8);
  }
  // A shorter nonce with the same trailing bytes is a different nonce.
  ck_assert_int_eq(mc_aes_ocb_open(&ctx, out, sizeof out, &m, nonce + 1, 14, ct, n, ad, 20),
                   MC_ERR_AUTH_FAILED);
  ck_assert_int_eq(mc_aes_ocb_open(&ctx, out, sizeof out, &m, nonce, 15, ct, n, ad, 20), 0);
  ck_assert_mem_eq(out, pt, sizeof pt);
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

START_TEST(misuse_is_reported) {
  uint8_t key[32] = {0}, nonce[16] = {0}, buf[64] = {0}, out[64];
  size_t n = 7;
  mc_aes_ocb_ctx ctx;
  ck_assert_int_eq(mc_aes_ocb_init(NULL, key, 16, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_init(&ctx, NULL, 16, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_init(&ctx, key, 20, 16), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_init(&ctx, key, 16, 10), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_init(&ctx, key, 16, 17), MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_init_impl(&ctx, key, 16, 16, 7), MC_ERR_INVALID_ARGUMENT);
  // A failed init leaves a zeroed context, which seal refuses and cleanup ignores.
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, nonce, 12, buf, 1, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  mc_aes_ocb_cleanup(&ctx);
  mc_aes_ocb_cleanup(NULL);

  ck_assert_int_eq(mc_aes_ocb_init(&ctx, key, 16, 16), 0);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, nonce, 0, buf, 1, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, nonce, 16, buf, 1, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, NULL, 12, buf, 1, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, nonce, 12, NULL, 1, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, nonce, 12, buf, 1, NULL, 1),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, NULL, nonce, 12, buf, 1, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, NULL, 0, &n, nonce, 12, NULL, 0, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, 16, &n, nonce, 12, buf, 1, NULL, 0),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, 17, &n, nonce, 12, buf, 1, NULL, 0), 0);
  ck_assert_uint_eq(n, 17);
  ck_assert_int_eq(mc_aes_ocb_open(&ctx, buf, 0, &n, nonce, 12, out, 17, NULL, 0),
                   MC_ERR_BUFFER_TOO_SMALL);
  ck_assert_int_eq(mc_aes_ocb_open(&ctx, buf, sizeof buf, &n, nonce, 12, out, 15, NULL, 0),
                   MC_ERR_BAD_CIPHERTEXT);
  ck_assert_int_eq(mc_aes_ocb_open(&ctx, buf, sizeof buf, &n, nonce, 12, out, 17, NULL, 0), 0);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(mc_aes_ocb_open(&ctx, NULL, 0, &n, nonce, 12, out, 17, NULL, 0),
                   MC_ERR_INVALID_ARGUMENT);
  // An empty message opens with no output buffer at all.
  ck_assert_int_eq(mc_aes_ocb_seal(&ctx, out, sizeof out, &n, nonce, 12, NULL, 0, NULL, 0), 0);
  ck_assert_int_eq(mc_aes_ocb_open(&ctx, NULL, 0, &n, nonce, 12, out, 16, NULL, 0), 0);
  ck_assert_uint_eq(n, 0);
  ck_assert_uint_eq(MC_AES_OCB_MAX_INPUT_LEN, (1ull << 36) - 1);
  mc_aes_ocb_cleanup(&ctx);
}
END_TEST

// agree_one seals `len` bytes with every implementation the CPU has, checks
// that the outputs are equal byte for byte, then opens the sealed message and
// a forgery of it (one bit of the ciphertext or tag flipped) with each: the
// plaintext comes back from the first, and the second fails alike everywhere
// with nothing released.
static void agree_one(const uint8_t *key, size_t key_len, size_t tag_len, const uint8_t *nonce,
                      size_t nl, const uint8_t *ad, size_t ad_len, const uint8_t *pt, size_t len,
                      uint8_t *ref, uint8_t *got, size_t flip_bit) {
  static const int impls[] = {MC_OCB_IMPL_BORINGSSL, MC_OCB_IMPL_AESNI, MC_OCB_IMPL_VAES,
                              MC_OCB_IMPL_VAES512};
  size_t cap = len + 16, ref_len = 0, n = 0;
  for (size_t i = 0; i < sizeof impls / sizeof impls[0]; i++) {
    mc_aes_ocb_ctx ctx;
    int rc = mc_aes_ocb_init_impl(&ctx, key, key_len, tag_len, impls[i]);
    if (rc == MC_ERR_UNSUPPORTED)
      continue;
    ck_assert_int_eq(rc, 0);
    uint8_t *dst = i == 0 ? ref : got;
    ck_assert_int_eq(mc_aes_ocb_seal(&ctx, dst, cap, &n, nonce, nl, pt, len, ad, ad_len), 0);
    ck_assert_uint_eq(n, len + tag_len);
    if (i == 0)
      ref_len = n;
    else
      ck_assert_mem_eq(got, ref, n);
    // In place, as OpenPGP's chunks are opened.
    ck_assert_int_eq(mc_aes_ocb_open(&ctx, got, cap, &n, nonce, nl, ref, ref_len, ad, ad_len), 0);
    ck_assert_uint_eq(n, len);
    if (len > 0)
      ck_assert_mem_eq(got, pt, len);
    size_t bit = flip_bit % (8 * ref_len);
    memcpy(got, ref, ref_len);
    got[bit / 8] ^= (uint8_t)(1u << bit % 8);
    n = 12345;
    ck_assert_int_eq(mc_aes_ocb_open(&ctx, got, cap, &n, nonce, nl, got, ref_len, ad, ad_len),
                     MC_ERR_AUTH_FAILED);
    ck_assert_uint_eq(n, 0);
    uint8_t any = 0;
    for (size_t k = 0; k < len; k++)
      any |= got[k];
    ck_assert_uint_eq(any, 0);
    mc_aes_ocb_cleanup(&ctx);
  }
}

// The implementations agree on pseudo-random keys, nonces, associated data
// and messages of every length up to 2000 bytes and of 1 MiB.
START_TEST(implementations_agree) {
  enum { MAX = 2000, BIG = 1 << 20 };
  static const size_t key_lens[] = {16, 24, 32}, tag_lens[] = {16, 12, 8};
  uint8_t key[32], nonce[15], ad[MAX + 1];
  uint8_t *pt = malloc(BIG), *ref = malloc(BIG + 16), *got = malloc(BIG + 16);
  ck_assert_ptr_nonnull(pt);
  ck_assert_ptr_nonnull(ref);
  ck_assert_ptr_nonnull(got);
  for (unsigned len = 0; len <= MAX + 1; len++) {
    size_t msg_len = len <= MAX ? len : BIG, ad_len = (len * 37u) % (MAX + 1);
    fill_pattern(key, sizeof key, len);
    fill_pattern(nonce, sizeof nonce, len + 1);
    fill_pattern(ad, ad_len, len + 2);
    fill_pattern(pt, msg_len, len + 3);
    agree_one(key, key_lens[len % 3], tag_lens[len / 3 % 3], nonce, 1 + len % 15, ad, ad_len, pt,
              msg_len, ref, got, len * 7919u);
  }
  free(pt);
  free(ref);
  free(got);
}
END_TEST

// stream_seal encrypts `pt` with mc_ocb_enc_* in pieces whose lengths cycle
// through `steps` (0 ends the list), into `out`, and returns the length.
static size_t stream_seal(const mc_aes_ocb_ctx *ctx, uint8_t *out, const uint8_t *nonce, size_t nl,
                          const uint8_t *ad, size_t ad_len, const uint8_t *pt, size_t len,
                          const size_t *steps) {
  mc_ocb_enc st;
  size_t o = 0, pos = 0, k = 0;
  mc_ocb_enc_start(ctx, &st, nonce, nl);
  while (pos < len) {
    size_t n = steps[k] < len - pos ? steps[k] : len - pos;
    size_t w = mc_ocb_enc_update(ctx, &st, out + o, pt + pos, n);
    require(w % 16 == 0 && w <= n + 15, "update of %zu bytes wrote %zu", n, w);
    o += w;
    pos += n;
    k = steps[k + 1] == 0 ? 0 : k + 1;
    // Everything but the waiting partial block is out already.
    require(o == pos / 16 * 16, "%zu bytes out after %zu in", o, pos);
  }
  o += mc_ocb_enc_final(ctx, &st, out + o, ad, ad_len);
  return o;
}

// The incremental encryption gives the one-shot seal's bytes whatever the
// pieces: single bytes, pieces that leave a block straddling two of them,
// pieces that start mid-way between multiples of 8, 16 and 32 blocks (where
// the AES-NI, VAES and VAES-512 loops take over from narrower ones), and one
// whole piece.
START_TEST(incremental_matches_seal) {
  static const size_t plans[][8] = {
      {1, 0},  {5, 0},      {15, 17, 0},          {16, 0},      {3, 29, 260, 0},
      {33, 0}, {100000, 0}, {7, 4099, 1, 256, 0}, {520, 24, 0},
  };
  static const size_t lens[] = {0,   1,   15,  16,  17,  31,   32,   127,
                                128, 129, 255, 256, 257, 1000, 4111, 70001};
  enum { BIG = 70001 };
  uint8_t key[32], nonce[15], ad[40];
  uint8_t *pt = malloc(BIG), *ref = malloc(BIG + 16), *got = malloc(BIG + 16);
  ck_assert_ptr_nonnull(pt);
  ck_assert_ptr_nonnull(ref);
  ck_assert_ptr_nonnull(got);
  for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++) {
    for (size_t pi = 0; pi < sizeof plans / sizeof plans[0]; pi++) {
      size_t len = lens[li], key_len = 16 + 8 * ((li + pi) % 3), nl = 1 + (li * 7 + pi) % 15;
      size_t ad_len = (li + 3 * pi) % sizeof ad, n = 0;
      fill_pattern(key, sizeof key, (unsigned)(li * 31 + pi));
      fill_pattern(nonce, sizeof nonce, (unsigned)(li + 5));
      fill_pattern(ad, ad_len, (unsigned)pi);
      fill_pattern(pt, len, (unsigned)(li * 3 + pi));
      mc_aes_ocb_ctx ctx;
      ck_assert_int_eq(init_ctx(&ctx, key, key_len, 16), 0);
      ck_assert_int_eq(mc_aes_ocb_seal(&ctx, ref, len + 16, &n, nonce, nl, pt, len, ad, ad_len), 0);
      memset(got, 0xa5, len + 16);
      size_t m = stream_seal(&ctx, got, nonce, nl, ad, ad_len, pt, len, plans[pi]);
      ck_assert_uint_eq(m, n);
      ck_assert_mem_eq(got, ref, n);
      mc_aes_ocb_cleanup(&ctx);
    }
  }
  free(pt);
  free(ref);
  free(got);
}
END_TEST

static TCase *vector_tcase(const char *name, void (*setup)(void)) {
  TCase *tc = tcase_create(name);
  tcase_set_timeout(tc, 60);
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_add_loop_test(tc, rfc7253_sample_results, 0,
                      sizeof rfc7253_samples / sizeof rfc7253_samples[0]);
  tcase_add_test(tc, rfc7253_sample_taglen96);
  tcase_add_test(tc, rfc7253_internal_values);
  tcase_add_loop_test(tc, rfc7253_iterated_all_key_and_tag_lengths, 0,
                      sizeof rfc7253_iterated / sizeof rfc7253_iterated[0]);
  tcase_add_test(tc, rfc9580_a8_ocb_chunk_and_final_tag);
  tcase_add_test(tc, rfc9580_a10_skesk_and_seipd);
  tcase_add_test(tc, round_trips_every_parameter);
  tcase_add_test(tc, every_bit_flip_is_rejected);
  tcase_add_test(tc, incremental_matches_seal);
  return tc;
}

int main(void) {
  Suite *s = suite_create("ocb");
  suite_add_tcase(s, vector_tcase("vaes512", use_vaes512));
  suite_add_tcase(s, vector_tcase("vaes", use_vaes));
  suite_add_tcase(s, vector_tcase("aesni", use_aesni));
  suite_add_tcase(s, vector_tcase("boringssl", use_boringssl));
  TCase *tc = tcase_create("api");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, implementations_agree);
  tcase_add_test(tc, misuse_is_reported);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_set_tap(sr, "-");
  srunner_run_all(sr, CK_SILENT);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
