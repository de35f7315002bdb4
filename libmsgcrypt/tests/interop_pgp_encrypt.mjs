// interop_pgp_encrypt.mjs: the JavaScript peers of diff_pgp_encrypt.py.
// Usage: node interop_pgp_encrypt.mjs PACKAGE gen TYPE
//        node interop_pgp_encrypt.mjs PACKAGE gen-many DIR TYPE...
//        node interop_pgp_encrypt.mjs PACKAGE public KEY_FILE
//        node interop_pgp_encrypt.mjs PACKAGE decrypt KEY_FILE MESSAGE_FILE
//        node interop_pgp_encrypt.mjs PACKAGE decrypt-many < JOBS
// PACKAGE is "openpgp" (OpenPGP.js) or "@protontech/openpgp" (Proton's
// fork, which reads ML-KEM-768+X25519), loaded from CORVID_NODE_MODULES.
// gen prints a new unprotected secret key of TYPE (see below); public
// writes the binary certificate of a secret key file; decrypt prints the decrypted data as hex, or exits 1 with the
// peer's error on stderr.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [pkg, cmd, ...args] = process.argv.slice(2);
const root = join(process.env.CORVID_NODE_MODULES || '', pkg);
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const entry = manifest.exports?.['.']?.node?.import ?? manifest.exports?.['.']?.import ?? 'dist/node/openpgp.mjs';
const openpgp = await import(pathToFileURL(join(root, typeof entry === 'string' ? entry : entry.default)).href);

// generate returns a new unprotected armored secret key of TYPE:
// curve25519 or curve448 make a v6 key; rsaBITS or ecc:CURVE (nistP256,
// nistP384, nistP521, curve25519Legacy) a v4 key.
async function generate(t) {
  const [type, arg] = t.startsWith('rsa') ? ['rsa', Number(t.slice(3))]
    : t.startsWith('ecc:') ? ['ecc', t.slice(4)] : [t, null];
  const { privateKey } = await openpgp.generateKey({
    type,
    ...(type === 'rsa' ? { rsaBits: arg } : {}),
    ...(type === 'ecc' ? { curve: arg } : {}),
    userIDs: [{ email: 'peer@example.org' }],
    format: 'armored',
    config: { v6Keys: type !== 'rsa' && type !== 'ecc' },
  });
  return privateKey;
}

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
    process.stdout.write(await generate(args[0]));
  } else if (cmd === 'gen-many') {
    // gen-many DIR TYPE...: DIR/TYPE.asc (secret) and DIR/TYPE.pub (binary
    // certificate) for each TYPE (':' in a name becomes '-').
    for (const t of args.slice(1)) {
      const key = await generate(t);
      const base = join(args[0], t.replace(':', '-'));
      writeFileSync(base + '.asc', key);
      const parsed = await openpgp.readPrivateKey({ armoredKey: key });
      writeFileSync(base + '.pub', parsed.toPublic().write());
    }
  } else if (cmd === 'public') {
    const key = await openpgp.readPrivateKey({ armoredKey: readFileSync(args[0], 'utf8') });
    process.stdout.write(key.toPublic().write());
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
