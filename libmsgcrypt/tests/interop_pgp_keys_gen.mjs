// interop_pgp_keys_gen.mjs: makes one OpenPGP key with OpenPGP.js (or
// Proton's fork, which adds RFC 9980 post-quantum keys) for
// interop_pgp_keys.py and prints {"armored": ..., "fingerprints": [...]} as
// JSON: the public key and the fingerprints OpenPGP.js computes, primary
// first. The packages come from $CORVID_NODE_MODULES.
//
// usage: node interop_pgp_keys_gen.mjs PACKAGE TYPE VERSION
//   TYPE: curve25519 | curve448 | ecc-<curve> | pqc | mixed-pqc | curve25519-eax
//   (curve25519-eax: AEAD ciphersuites announced, EAX first, then GCM, OCB)
import { createRequire } from 'module';

const [pkg, type, version] = process.argv.slice(2);
const require = createRequire(process.env.CORVID_NODE_MODULES + '/');
const openpgp = require(pkg);
const opts = {
  userIDs: [{ name: 'JS ' + type, email: 'js@example.org' }],
  format: 'object',
  config: { v6Keys: version === '6' },
};
if (type.startsWith('ecc-')) {
  opts.type = 'ecc';
  opts.curve = type.slice(4);
} else if (type === 'curve25519-eax') {
  opts.type = 'curve25519';
  opts.config.aeadProtect = true;
  opts.config.preferredAEADAlgorithm = openpgp.enums.aead.eax;
} else if (type === 'mixed-pqc') {
  // A classical and a post-quantum encryption subkey side by side.
  opts.type = 'curve25519';
  opts.subkeys = [{}, { type: 'pqc' }];
} else {
  opts.type = type;
}
const { publicKey } = await openpgp.generateKey(opts);
const fingerprints = [publicKey.getFingerprint(), ...publicKey.getSubkeys().map((k) => k.getFingerprint())];
process.stdout.write(JSON.stringify({ armored: publicKey.armor(), fingerprints: fingerprints.map((f) => f.toUpperCase()) }));
