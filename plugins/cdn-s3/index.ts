import * as v from 'valibot';
import { definePlugin } from '../../kit/plugin.ts';
import { createS3Cdn } from './s3-cdn.ts';

export { createS3Cdn, type S3CdnOptions } from './s3-cdn.ts';

const nonEmpty = v.pipe(v.string(), v.minLength(1));
const httpUrl = v.pipe(v.string(), v.url('must be an absolute URL'), v.regex(/^https?:\/\//, 'must be http or https'));
const prefix = v.pipe(
  v.string(),
  v.regex(/^(?:[A-Za-z0-9_.-]+\/)*$/, 'must be empty or end in "/", such as "public/"'),
);

export default definePlugin({
  name: 'cdn-s3',
  provides: ['cdn'],
  configSchema: v.object({
    bucket: nonEmpty,
    /** Defaults to AWS_REGION, then us-east-1 (what most S3-compatible servers expect). */
    region: v.optional(nonEmpty),
    /** An S3-compatible service; unset means AWS S3. */
    endpoint: v.optional(httpUrl),
    forcePathStyle: v.optional(v.boolean()),
    /** Default to AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (read at startup, not stored in config). */
    accessKeyId: v.optional(nonEmpty),
    secretAccessKey: v.optional(nonEmpty),
    /** A CDN domain in front of the bucket's public prefix; unset means the bucket's own URLs. */
    publicBaseUrl: v.optional(httpUrl),
    publicPrefix: v.optional(prefix, 'public/'),
    privatePrefix: v.optional(prefix, 'private/'),
    publicAcl: v.optional(v.boolean(), false),
    requestTimeoutMs: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 60_000),
  }),
  register({ options }) {
    const env = process.env;
    const accessKeyId = options.accessKeyId ?? env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = options.secretAccessKey ?? env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey) {
      throw new Error(
        'the s3 CDN needs credentials: pluginOptions.cdn-s3.accessKeyId and secretAccessKey, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.',
      );
    }
    // A session token only makes sense with the environment's own keys (temporary credentials).
    const sessionToken = options.accessKeyId ? undefined : env.AWS_SESSION_TOKEN || undefined;
    const cdn = createS3Cdn({
      ...options,
      region: options.region ?? (env.AWS_REGION || env.AWS_DEFAULT_REGION || 'us-east-1'),
      accessKeyId,
      secretAccessKey,
      ...(sessionToken ? { sessionToken } : {}),
    });
    return { cdn };
  },
});
