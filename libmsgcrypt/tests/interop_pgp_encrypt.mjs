// interop_pgp_encrypt.mjs: the JavaScript peers of diff_pgp_encrypt.py.
// Usage: node interop_pgp_encrypt.mjs PACKAGE gen TYPE
//        node interop_pgp_encrypt.mjs PACKAGE decrypt KEY_FILE MESSAGE_FILE
//        node interop_pgp_encrypt.mjs PACKAGE decrypt-many < JOBS
// PACKAGE is "openpgp" (OpenPGP.js) or "@protontech/openpgp" (Proton's
// fork, which reads ML-KEM-768+X25519), loaded from CORVID_NODE_MODULES.
// gen prints a new unprotected v6 secret key of TYPE (curve25519,
// curve448); decrypt prints the decrypted data as hex, or exits 1 with the
// peer's error on stderr.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkg, cmd, ...args] = process.argv.slice(2);
const root = join(process.env.CORVID_NODE_MODULES || '', pkg);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entry = manifest.exports?.['.']?.node?.import ?? manifest.exports?.['.']?.import ?? 'dist/node/openpgp.mjs';
const openpgp = await import(pathToFileURL(join(root, typeof entry === 'string' ? entry : entry.default)).href);

// decrypt returns the data of the message in MESSAGE_FILE as hex.
async function decrypt(keyFile, messageFile) {
  const privateKey = await openpgp.readPrivateKey({ armoredKey: readFileSync(keyFile, 'utf8') });
  const raw = readFileSync(messageFile);
  const message = raw.subarray(0, 5).toString() === '-----'
    ? await openpgp.readMessage({ armoredMessage: raw.toString('utf8') })
    : await openpgp.readMessage({ binaryMessage: new Uint8Array(raw) });
  const { data } = await openpgp.decrypt({ message, decryptionKeys: privateKey, format: 'binary' });
  return Buffer.from(data).toString('hex');
}

try {
  if (cmd === 'gen') {
    const { privateKey } = await openpgp.generateKey({
      type: args[0],
      userIDs: [{ email: 'peer@example.org' }],
      format: 'armored',
      config: { v6Keys: true },
    });
    process.stdout.write(privateKey);
  } else if (cmd === 'decrypt') {
    process.stdout.write(await decrypt(args[0], args[1]) + '\n');
  } else if (cmd === 'decrypt-many') {
    // One "KEY_FILE MESSAGE_FILE" per stdin line; one answer line each.
    const lines = readFileSync(0, 'utf8').split('\n').filter((l) => l.length > 0);
    for (const line of lines) {
      const [key, msg] = line.split(' ');
      try {
        process.stdout.write(await decrypt(key, msg) + '\n');
      } catch (e) {
        process.stdout.write('ERR ' + String(e && e.message || e).replace(/\n/g, ' ') + '\n');
      }
    }
  } else {
    throw new Error('unknown command ' + cmd);
  }
} catch (e) {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
}
