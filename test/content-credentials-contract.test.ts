import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { loadConfig } from '../config/load.ts';
import { silentLogger } from '../core/logger.ts';
import type { ContentCredentials } from '../core/ports/content-credentials.ts';
import { contentCredentialsContract, readContentCredentials } from '../kit/testing/index.ts';
import c2paPlugin, {
  createC2paCredentials,
  developmentSigner,
  developmentSignerFile,
  signerMaterial,
} from '../plugins/credentials-c2pa/index.ts';
import { coseSigner } from '../plugins/credentials-c2pa/cose-sign1.js';
import type { Provided } from '../core/plugin.ts';
import { validatedOptions } from '../core/plugin-host.ts';
import { pkcs8, signingCertificates } from './support/signing-certificates.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'c2pa-'));
  dirs.push(dir);
  return dir;
};
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The plugin registered as the kernel would, with `env` for its configuration (the data dir filled into its options). */
async function register(env: Record<string, string>) {
  const config = loadConfig({ VISUALIZER_DATA_DIR: tempDir(), ...env });
  const provided = (await c2paPlugin.register({
    options: validatedOptions(c2paPlugin, config) as never,
    logger: silentLogger,
    outbound: undefined as never,
    port: () => {
      throw new Error('no port');
    },
  })) as Provided<'credentials'>;
  return { credentials: provided.credentials, dispose: () => provided.dispose?.(), config };
}

describe('c2pa content credentials', () => {
  const registered: Array<{ credentials: ContentCredentials; dispose: () => unknown }> = [];
  contentCredentialsContract({
    name: 'c2pa, development certificate',
    async create() {
      const plugin = await register({});
      registered.push(plugin);
      return plugin.credentials;
    },
    dispose: async () => {
      for (const plugin of registered.splice(0)) await plugin.dispose();
    },
  });

  it('makes the development certificate once per data directory, as C2PA wants a signer, and says it is one', async () => {
    const dir = tempDir();
    const [first, second] = await Promise.all([developmentSigner(dir), developmentSigner(dir)]);
    assert.equal(first.pem, second.pem, 'two processes starting at once agree on one');
    assert.equal([first.created, second.created].filter(Boolean).length, 1);
    const again = await developmentSigner(dir);
    assert.equal(again.created, false);
    assert.equal(again.pem, first.pem);
    assert.equal(again.file, path.join(dir, developmentSignerFile));
    assert.equal(statSync(again.file).mode & 0o077, 0, 'the key is readable by its owner only');
    const [signer, ca] = (first.pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map(
      (pem) => new X509Certificate(pem),
    );
    assert.ok(signer && ca);
    assert.equal(signer.ca, false);
    assert.equal(ca.ca, true);
    assert.ok(signer.verify(ca.publicKey), 'the CA issued it');
    assert.notEqual(signer.subject, signer.issuer, 'not self-signed');
    assert.deepEqual(signer.keyUsage, ['1.3.6.1.5.5.7.3.4']);

    const plugin = await register({ VISUALIZER_DATA_DIR: dir });
    try {
      assert.equal(plugin.credentials.signer.development, true);
      assert.equal(plugin.credentials.signer.source, again.file);
      assert.match(plugin.credentials.signer.subject, /Visualizer development signer/);
    } finally {
      await plugin.dispose();
    }
  });

  it('keeps a development certificate in memory where the data directory cannot be written', async () => {
    // A file where the data directory should be: no directory can be made under it (as root too).
    const notADirectory = path.join(tempDir(), 'data');
    writeFileSync(notADirectory, '');
    const made = await developmentSigner(notADirectory);
    assert.equal(made.created, true);
    assert.match(made.file, /^memory \(.+ could not be written: ENOTDIR\)$/);
    assert.match(made.pem, /-----BEGIN PRIVATE KEY-----/);
  });

  it('signs with a configured certificate and key instead, from files or from the environment', async () => {
    const dir = tempDir();
    // A CA-issued signer of our own, as an operator's would be (here the development one's, moved).
    const { pem } = await developmentSigner(tempDir());
    const key = pem.match(/-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----\n/)![0];
    const chain = pem.slice(pem.indexOf('-----BEGIN CERTIFICATE-----'));
    writeFileSync(path.join(dir, 'chain.pem'), chain);
    writeFileSync(path.join(dir, 'key.pem'), key);
    const envs: Array<Record<string, string>> = [
      {
        VISUALIZER_C2PA_CERTIFICATE_FILE: path.join(dir, 'chain.pem'),
        VISUALIZER_C2PA_KEY_FILE: path.join(dir, 'key.pem'),
      },
      { VISUALIZER_C2PA_CERTIFICATE: chain, VISUALIZER_C2PA_KEY: key },
    ];
    for (const env of envs) {
      const plugin = await register(env);
      try {
        assert.equal(plugin.credentials.signer.development, false);
        assert.throws(
          () => statSync(path.join(plugin.config.dataDir, developmentSignerFile)),
          /ENOENT/,
          'no development certificate is made',
        );
        const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } })
          .jpeg()
          .toBuffer();
        const signed = await plugin.credentials.sign(image, 'jpeg', {
          action: 'c2pa.created',
          digitalSourceType: 'trainedAlgorithmicMedia',
          engine: 'gemini',
          generationId: 'gen_1',
          title: 'original.jpg',
        });
        const read = await readContentCredentials(signed, 'image/jpeg');
        assert.deepEqual(read.failures, ['signingCredential.untrusted']);
        assert.match(read.manifest.signature_info?.common_name ?? '', /Visualizer development signer/);
      } finally {
        await plugin.dispose();
      }
    }
  });

  it('refuses a key that is not the certificate’s, a CA certificate, or half a configuration', async () => {
    const dir = tempDir();
    const { pem } = await developmentSigner(tempDir());
    const chain = pem.slice(pem.indexOf('-----BEGIN CERTIFICATE-----'));
    const otherKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    await assert.rejects(
      register({ VISUALIZER_C2PA_CERTIFICATE: chain, VISUALIZER_C2PA_KEY: otherKey }),
      /the private key in VISUALIZER_C2PA_KEY .* is not the signing certificate's/,
    );
    // The CA's own key, so that only the certificate being a CA's is wrong.
    const { ca } = await signingCertificates();
    await assert.rejects(
      register({ VISUALIZER_C2PA_CERTIFICATE: ca.certPem, VISUALIZER_C2PA_KEY: ca.keyPem }),
      /the signing certificate \(VISUALIZER_C2PA_CERTIFICATE .*\) is a CA's/,
    );
    // A certificate that exists, and no key: the configuration, not the file, is what is wrong.
    writeFileSync(path.join(dir, 'chain.pem'), chain);
    await assert.rejects(
      register({ VISUALIZER_C2PA_CERTIFICATE_FILE: path.join(dir, 'chain.pem') }),
      /^Error: Content Credentials need both a certificate and its key/,
    );
    await assert.rejects(
      register({ VISUALIZER_C2PA_KEY: otherKey }),
      /^Error: Content Credentials need both a certificate and its key/,
    );
  });
});

/** The worker threads this process starts from now on, each with its exit; `stop` stops watching. */
function watchThreads() {
  const started: Array<{ worker: Worker; exited: Promise<number> }> = [];
  const onWorker = (worker: Worker) =>
    started.push({ worker, exited: new Promise((resolve) => worker.once('exit', resolve)) });
  process.on('worker', onWorker);
  return { started, stop: () => process.off('worker', onWorker) };
}

/** `promise`, or a rejection naming `what` after `ms`; its timer keeps the process up while the adapter's threads and timers do not. */
async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

describe('what startup checks of a configured signer', () => {
  let certificates: Awaited<ReturnType<typeof signingCertificates>>;
  before(async () => {
    certificates = await signingCertificates();
  });
  const p256 = () => pkcs8(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }));

  async function startupError(env: Record<string, string>): Promise<Error> {
    try {
      await (await register(env)).dispose();
    } catch (error) {
      return error as Error;
    }
    assert.fail('started');
  }

  /** Registers the plugin with `issued` in files, and in environment variables; both must reject with `pattern`, naming where. */
  async function refusedFromFilesAndEnvironment(
    issued: { keyPem: string; chainPem: string },
    pattern: RegExp,
    names: 'key' | 'certificate',
  ) {
    const dir = tempDir();
    const files = { key: path.join(dir, 'signer.key'), certificate: path.join(dir, 'chain.pem') };
    writeFileSync(files.key, issued.keyPem);
    writeFileSync(files.certificate, issued.chainPem);
    const fromFiles = await startupError({
      VISUALIZER_C2PA_CERTIFICATE_FILE: files.certificate,
      VISUALIZER_C2PA_KEY_FILE: files.key,
    });
    assert.match(fromFiles.message, pattern);
    assert.ok(fromFiles.message.includes(files[names]), `names ${files[names]}: ${fromFiles.message}`);
    const fromEnvironment = await startupError({
      VISUALIZER_C2PA_CERTIFICATE: issued.chainPem,
      VISUALIZER_C2PA_KEY: issued.keyPem,
    });
    assert.match(fromEnvironment.message, pattern);
    assert.ok(
      fromEnvironment.message.includes(names === 'key' ? 'VISUALIZER_C2PA_KEY' : 'VISUALIZER_C2PA_CERTIFICATE'),
      fromEnvironment.message,
    );
  }

  it('accepts a CA-issued certificate for digital signatures and email protection, document signing or no stated purpose, with a P-256 or RSA-2048 key', async () => {
    const accepted = [
      await certificates.issue(p256()),
      await certificates.issue(p256(), [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature,nonRepudiation',
        'extendedKeyUsage=1.3.6.1.5.5.7.3.36',
      ]),
      await certificates.issue(p256(), ['basicConstraints=critical,CA:FALSE', 'keyUsage=critical,digitalSignature']),
      await certificates.issue(pkcs8(generateKeyPairSync('rsa', { modulusLength: 2048 }))),
    ];
    for (const issued of accepted) {
      const material = signerMaterial(
        { pem: issued.keyPem, source: 'key' },
        { pem: issued.chainPem, source: 'chain' },
        { development: false },
      );
      assert.match(material.signer.subject, /Visualizer test signer/);
    }
  });

  it('refuses a key C2PA does not sign with, naming the key’s file or variable: secp256k1, DSA, RSA under 2048 bits', async () => {
    const refused: Array<[string, RegExp]> = [
      [
        pkcs8(generateKeyPairSync('ec', { namedCurve: 'secp256k1' })),
        /cannot sign Content Credentials: the signing key is on the curve secp256k1, which C2PA does not allow/,
      ],
      [
        pkcs8(generateKeyPairSync('dsa', { modulusLength: 2048, divisorLength: 256 })),
        /cannot sign Content Credentials: the signing key is of type dsa, which C2PA does not allow/,
      ],
      [
        pkcs8(generateKeyPairSync('rsa', { modulusLength: 1024 })),
        /cannot sign Content Credentials: the signing key is RSA of 1024 bits; C2PA requires 2048 bits or more/,
      ],
    ];
    for (const [key, pattern] of refused)
      await refusedFromFilesAndEnvironment(await certificates.issue(key), pattern, 'key');
  });

  it('refuses a certificate without the digitalSignature key usage, or for purposes C2PA does not accept', async () => {
    const noDigitalSignature = /does not have the digitalSignature key usage, which C2PA requires/;
    await refusedFromFilesAndEnvironment(
      await certificates.issue(p256(), [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,nonRepudiation',
        'extendedKeyUsage=emailProtection',
      ]),
      noDigitalSignature,
      'certificate',
    );
    await refusedFromFilesAndEnvironment(
      await certificates.issue(p256(), ['basicConstraints=critical,CA:FALSE', 'extendedKeyUsage=emailProtection']),
      noDigitalSignature,
      'certificate',
    );
    await refusedFromFilesAndEnvironment(
      await certificates.issue(p256(), [
        'basicConstraints=critical,CA:FALSE',
        'keyUsage=critical,digitalSignature',
        'extendedKeyUsage=serverAuth,clientAuth',
      ]),
      /is for 1\.3\.6\.1\.5\.5\.7\.3\.1, 1\.3\.6\.1\.5\.5\.7\.3\.2, none of which C2PA accepts/,
      'certificate',
    );
  });
});

describe('the signing thread', () => {
  const standIn = fileURLToPath(new URL('./fixtures/signing-thread-stand-in.js', import.meta.url));
  const claim = (title: string) =>
    ({
      action: 'c2pa.created',
      digitalSourceType: 'trainedAlgorithmicMedia',
      engine: 'mock',
      generationId: 'gen_1',
      title,
    }) as const;

  it('ends a signature that takes longer than signTimeoutMs, with its thread and what was queued behind it; the next starts a fresh thread', {
    timeout: 20_000,
  }, async () => {
    const { pem } = await developmentSigner(tempDir());
    // The clock runs from when a signature is sent, a fresh thread's start included: the next
    // signature below starts one, which on a loaded host can take a good part of a second.
    const signTimeoutMs = 2_000;
    const threads = watchThreads();
    const credentials = createC2paCredentials(
      signerMaterial({ pem, source: 'test' }, { pem, source: 'test' }, { development: true }),
      '1.2.3',
      { signTimeoutMs, threadFile: standIn },
    );
    try {
      const image = new Uint8Array([1, 2, 3]);
      const started = Date.now();
      const stuck = credentials.sign(image, 'png', claim('hang'));
      const queued = credentials.sign(image, 'png', claim('queued'));
      await assert.rejects(
        within(stuck, 10_000, 'the stuck signature failing'),
        /took longer than 2000 ms; the signing thread was stopped/,
      );
      await assert.rejects(queued, /took longer than 2000 ms/);
      assert.ok(Date.now() - started >= signTimeoutMs, 'not before its time');
      assert.equal(threads.started.length, 1);
      await within(threads.started[0]!.exited, 5_000, 'the stuck thread exiting');
      assert.deepEqual(await credentials.sign(image, 'png', claim('next')), image);
      assert.equal(threads.started.length, 2, 'a fresh thread signed the next');
    } finally {
      threads.stop();
      await credentials.dispose();
    }
  });

  it('ends after a WebAssembly trap, so signing again at once starts a fresh thread', { timeout: 20_000 }, async () => {
    const { pem } = await developmentSigner(tempDir());
    const threads = watchThreads();
    const credentials = createC2paCredentials(
      signerMaterial({ pem, source: 'test' }, { pem, source: 'test' }, { development: true }),
      '1.2.3',
      { threadFile: standIn },
    );
    try {
      const image = new Uint8Array([1, 2, 3]);
      await assert.rejects(credentials.sign(image, 'png', claim('trap')), /unreachable/);
      assert.deepEqual(await within(credentials.sign(image, 'png', claim('again')), 5_000, 'signing again'), image);
      assert.equal(threads.started.length, 2, 'a fresh thread signed it');
      await within(threads.started[0]!.exited, 5_000, 'the trapped thread exiting');
    } finally {
      threads.stop();
      await credentials.dispose();
    }
  });

  it('ends when idle, and a new one signs the next image', { timeout: 30_000 }, async () => {
    const { pem } = await developmentSigner(tempDir());
    const threads = watchThreads();
    const credentials = createC2paCredentials(
      signerMaterial({ pem, source: 'test' }, { pem, source: 'test' }, { development: true }),
      '1.2.3',
      { idleMs: 50 },
    );
    try {
      const image = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#468' } })
        .png()
        .toBuffer();
      await credentials.sign(image, 'png', claim('original.png'));
      assert.equal(threads.started.length, 1);
      await within(threads.started[0]!.exited, 5_000, 'the idle thread ending');
      const signed = await credentials.sign(image, 'png', claim('original.png'));
      assert.equal(threads.started.length, 2, 'a new thread signed the next image');
      const read = await readContentCredentials(signed, 'image/png');
      assert.equal(read.state, 'Valid');
      assert.equal(read.manifest.claim_generator_info[0]?.version, '1.2.3');
    } finally {
      threads.stop();
      await credentials.dispose();
    }
  });
});

describe('COSE_Sign1 signer', () => {
  it('fills exactly the size reserved for the signature, whatever the size', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const chain = [new Uint8Array(700), new Uint8Array(500)];
    // Every size around the boundaries of CBOR's length heads (24, 256, 65536 bytes of padding).
    for (let reserveSize = 1400; reserveSize < 2000; reserveSize++) {
      assert.equal(coseSigner({ key: privateKey, chain, reserveSize })(new Uint8Array(100)).length, reserveSize);
    }
  });
});
