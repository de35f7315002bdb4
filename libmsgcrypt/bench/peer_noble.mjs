// peer_noble.mjs: the floor of bench_msgcrypt: @noble/post-quantum's ML-KEM
// and ML-DSA (and @noble/curves' X448 and Ed448 when installed), pure
// JavaScript, timed in node and printed as the JSON lines of
// common/include/corvid_bench.h with impl "noble", one operation per record.
//
// usage: node peer_noble.mjs [NODE_MODULES_DIR] [--quick]
//   The folder defaults to $CORVID_NODE_MODULES; install it with
//   npm install --no-package-lock --prefix DIR @noble/post-quantum@0.7.1 \
//     @noble/curves@2.4.0   (versions of tests/interop/package.json).
// Each row runs calls of a few operations until it has spent about 0.4 s (at
// least 3 calls) and keeps the fastest call, divided by its operations: the
// same reduction as bench_msgcrypt's min.
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const root = args.find((a) => !a.startsWith('--')) ?? process.env.CORVID_NODE_MODULES;
if (!root) {
  console.error('peer_noble: give the node_modules folder or set CORVID_NODE_MODULES');
  process.exit(2);
}
const load = (path) => import(pathToFileURL(root + '/' + path).href);
const budgetNs = quick ? 50_000_000n : 400_000_000n;

function emit(bench, ns) {
  const rec = {
    bench, impl: 'noble', bytes: 0, items: 1, ns: Math.round(ns), median_ns: Math.round(ns),
    reps: 1, mb_per_s: 0, items_per_s: Math.round(1e10 / ns) / 10,
  };
  process.stdout.write(JSON.stringify(rec) + '\n');
}

// measure runs fn(ops times) in calls until the budget is spent and returns
// the fastest call's time per operation in ns.
function measure(ops, fn) {
  fn(); // warm up (and let the JIT compile)
  let best = Infinity;
  const start = process.hrtime.bigint();
  for (let calls = 0; calls < 3 || process.hrtime.bigint() - start < budgetNs; calls++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < ops; i++) fn();
    const ns = Number(process.hrtime.bigint() - t0) / ops;
    if (ns < best) best = ns;
  }
  return best;
}

const seed64 = new Uint8Array(64).map((_, i) => (i * 13 + 5) & 0xff);
const coins = new Uint8Array(32).fill(0x42);
const msg = new Uint8Array(32).fill(0x6d);

const kem = await load('@noble/post-quantum/ml-kem.js');
for (const [level, k] of [[512, kem.ml_kem512], [768, kem.ml_kem768], [1024, kem.ml_kem1024]]) {
  const { publicKey, secretKey } = k.keygen(seed64);
  const { cipherText } = k.encapsulate(publicKey, coins);
  emit(`mlkem${level}-keygen`, measure(4, () => k.keygen(seed64)));
  emit(`mlkem${level}-encaps`, measure(4, () => k.encapsulate(publicKey, coins)));
  emit(`mlkem${level}-decaps`, measure(4, () => k.decapsulate(cipherText, secretKey)));
}

const dsa = await load('@noble/post-quantum/ml-dsa.js');
for (const [level, d] of [[44, dsa.ml_dsa44], [65, dsa.ml_dsa65], [87, dsa.ml_dsa87]]) {
  const { publicKey, secretKey } = d.keygen(new Uint8Array(32).fill(1));
  const sig = d.sign(msg, secretKey);
  emit(`mldsa${level}-keygen`, measure(2, () => d.keygen()));
  // Hedged signing, as ours: several per call average the rejection loop.
  emit(`mldsa${level}-sign`, measure(8, () => d.sign(msg, secretKey)));
  emit(`mldsa${level}-verify`, measure(2, () => d.verify(sig, msg, publicKey)));
}

let curves = null;
try {
  curves = await load('@noble/curves/ed448.js');
} catch {
  console.error('peer_noble: @noble/curves not installed, X448 and Ed448 left out');
}
if (curves) {
  const { ed448, x448 } = curves;
  const xsk = new Uint8Array(56).map((_, i) => (i * 7 + 3) & 0xff);
  const xpk = x448.getPublicKey(xsk);
  const esk = new Uint8Array(57).map((_, i) => (i * 5 + 1) & 0xff);
  const epk = ed448.getPublicKey(esk);
  const esig = ed448.sign(msg, esk);
  emit('x448-derive', measure(2, () => x448.getSharedSecret(xsk, xpk)));
  emit('ed448-sign', measure(2, () => ed448.sign(msg, esk)));
  emit('ed448-verify', measure(2, () => ed448.verify(esig, msg, epk)));
}
