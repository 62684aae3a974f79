import { readFile } from 'node:fs/promises';
import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createC2paCredentials } from './c2pa-credentials.ts';
import { signerMaterial, type SignerMaterial } from './signer-material.ts';
import { developmentSigner } from './development-certificate.ts';

export { createC2paCredentials, manifestDefinition } from './c2pa-credentials.ts';
export { signerMaterial } from './signer-material.ts';
export { developmentSigner, developmentSignerFile } from './development-certificate.ts';

const text = v.pipe(v.string(), v.minLength(1));

const packageVersion = async () =>
  (JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export default definePlugin({
  name: 'credentials-c2pa',
  provides: ['credentials'],
  configSchema: v.object({
    /** PEM certificate chain, the signing certificate first (env `VISUALIZER_C2PA_CERTIFICATE_FILE`). */
    certificateFile: v.optional(text),
    /** PEM private key of the signing certificate (env `VISUALIZER_C2PA_KEY_FILE`). */
    keyFile: v.optional(text),
    /** The chain itself, PEM (env `VISUALIZER_C2PA_CERTIFICATE`), instead of a file. */
    certificate: v.optional(text),
    /** The key itself, PEM (env `VISUALIZER_C2PA_KEY`), instead of a file. */
    key: v.optional(text),
    /** How long one signature may take before the signing thread is taken for stuck, ended and its signatures failed. */
    signTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 60_000),
    /** Where the development certificate is made and kept when no certificate is given: the data dir, filled from config. */
    developmentCertificateDir: v.optional(text),
  }),
  async register({ options, logger }) {
    const chain = options.certificate
      ? { pem: options.certificate, source: 'VISUALIZER_C2PA_CERTIFICATE (pluginOptions.credentials-c2pa.certificate)' }
      : options.certificateFile
        ? { pem: await readFile(options.certificateFile, 'utf8'), source: options.certificateFile }
        : null;
    const key = options.key
      ? { pem: options.key, source: 'VISUALIZER_C2PA_KEY (pluginOptions.credentials-c2pa.key)' }
      : options.keyFile
        ? { pem: await readFile(options.keyFile, 'utf8'), source: options.keyFile }
        : null;
    if (Boolean(chain) !== Boolean(key)) {
      throw new Error(
        'Content Credentials need both a certificate and its key: set VISUALIZER_C2PA_CERTIFICATE_FILE and VISUALIZER_C2PA_KEY_FILE (or pluginOptions.credentials-c2pa), or neither for a development certificate.',
      );
    }
    let material: SignerMaterial;
    if (chain && key) {
      material = signerMaterial(key, chain, { development: false });
    } else {
      if (!options.developmentCertificateDir)
        throw new Error('Content Credentials need a certificate and its key, or developmentCertificateDir.');
      const made = await developmentSigner(options.developmentCertificateDir);
      material = signerMaterial(
        { pem: made.pem, source: made.file },
        { pem: made.pem, source: made.file },
        { development: true },
      );
      if (made.created) logger.info('content credentials: made a development signing certificate', { file: made.file });
    }
    const credentials = createC2paCredentials(material, await packageVersion(), {
      signTimeoutMs: options.signTimeoutMs,
    });
    return { credentials, dispose: () => credentials.dispose() };
  },
});
