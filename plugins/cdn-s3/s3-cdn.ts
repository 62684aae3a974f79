import { createHash } from 'node:crypto';
import { AwsClient } from 'aws4fetch';
import {
  assertContentTypeFitsKey,
  assertSafeKey,
  assertSafePrefix,
  contentTypeForKey,
  etagFor,
  isSafeKey,
  type FetchedObject,
  type ImageCdn,
  type ListedObject,
  type StoredObject,
  type Visibility,
} from '../../kit/plugin.ts';

export interface S3CdnOptions {
  bucket: string;
  /** Signing region; any value the service accepts (`us-east-1` for most S3-compatible servers, `auto` for R2). */
  region: string;
  /** An S3-compatible service (`http://127.0.0.1:9000`); unset means AWS S3 in `region`. */
  endpoint?: string;
  /** `https://host/bucket/key` instead of `https://bucket.host/key`; defaults to true when `endpoint` is set. */
  forcePathStyle?: boolean;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** A CDN domain whose origin is the bucket's public prefix: public URLs become `<publicBaseUrl>/<key>`. */
  publicBaseUrl?: string;
  /** Where private objects live in the bucket; must not overlap `publicPrefix`. */
  privatePrefix?: string;
  /** Where public objects live; the only prefix a bucket policy (or CDN origin) should expose. */
  publicPrefix?: string;
  /** Send `x-amz-acl: public-read` on public objects, for buckets that still use ACLs. */
  publicAcl?: boolean;
  /** Upper bound for one operation, retries included, so a hung connection cannot stall a worker. */
  requestTimeoutMs?: number;
  /** Keys per ListObjects page (S3's maximum and default is 1000); tests make it small to cross pages. */
  listPageSize?: number;
}

const prefixPattern = /^(?:[A-Za-z0-9_.-]+\/)*$/;

function checkPrefixes(publicPrefix: string, privatePrefix: string): void {
  for (const [name, prefix] of [
    ['publicPrefix', publicPrefix],
    ['privatePrefix', privatePrefix],
  ] as const) {
    if (!prefixPattern.test(prefix) || prefix.split('/').some((segment) => segment === '.' || segment === '..')) {
      throw new Error(
        `S3 CDN ${name} ${JSON.stringify(prefix)} must be empty or path segments each ending in "/", such as "public/".`,
      );
    }
  }
  // If one prefix contained the other, a public key could name a private object
  // (publicPrefix "" + key "private/x.jpg" is the private object "x.jpg").
  if (publicPrefix.startsWith(privatePrefix) || privatePrefix.startsWith(publicPrefix)) {
    throw new Error(
      `S3 CDN publicPrefix ${JSON.stringify(publicPrefix)} and privatePrefix ${JSON.stringify(privatePrefix)} overlap; ` +
        'private objects would be reachable through public URLs.',
    );
  }
}

/**
 * Image CDN on any S3-protocol service. Public objects are stored under `publicPrefix + key` with a
 * year-long immutable Cache-Control (a key's bytes never change), private ones under
 * `privatePrefix + key`. Public reads are the bucket's (or CDN's) business: grant anonymous
 * `s3:GetObject` on `publicPrefix*` only. Grant this app `s3:ListBucket` too, or S3 answers 403
 * instead of 404 for a missing key and `get` throws instead of returning null.
 */
export function createS3Cdn(options: S3CdnOptions): ImageCdn {
  const publicPrefix = options.publicPrefix ?? 'public/';
  const privatePrefix = options.privatePrefix ?? 'private/';
  checkPrefixes(publicPrefix, privatePrefix);
  const { bucket, region } = options;
  if (!bucket || bucket.includes('/')) throw new Error(`S3 CDN bucket ${JSON.stringify(bucket)} is not a bucket name.`);
  const endpoint = options.endpoint?.replace(/\/+$/, '');
  const pathStyle = options.forcePathStyle ?? endpoint !== undefined;
  const publicBaseUrl = options.publicBaseUrl?.replace(/\/+$/, '');
  const timeoutMs = options.requestTimeoutMs ?? 60_000;
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    ...(options.sessionToken ? { sessionToken: options.sessionToken } : {}),
    // Given explicitly: aws4fetch can only guess them from amazonaws.com host names.
    service: 's3',
    region,
  });

  const bucketBase = (() => {
    if (endpoint) {
      if (pathStyle) return `${endpoint}/${bucket}`;
      const url = new URL(endpoint);
      return `${url.protocol}//${bucket}.${url.host}${url.pathname.replace(/\/+$/, '')}`;
    }
    return pathStyle ? `https://s3.${region}.amazonaws.com/${bucket}` : `https://${bucket}.s3.${region}.amazonaws.com`;
  })();

  const prefixFor = (visibility: Visibility) => {
    if (visibility !== 'public' && visibility !== 'private')
      throw new Error(`Unknown visibility ${JSON.stringify(visibility)}.`);
    return visibility === 'public' ? publicPrefix : privatePrefix;
  };
  const objectKey = (key: string, visibility: Visibility) => {
    assertSafeKey(key);
    return prefixFor(visibility) + key;
  };
  // Safe keys and prefixes hold only characters that need no escaping in a URL path.
  const objectUrl = (name: string) => `${bucketBase}/${name}`;

  async function request(
    operation: string,
    key: string,
    visibility: Visibility,
    init: RequestInit & { method: string },
  ) {
    const name = objectKey(key, visibility);
    try {
      return {
        name,
        response: await client.fetch(objectUrl(name), { ...init, signal: AbortSignal.timeout(timeoutMs) }),
      };
    } catch (error) {
      throw new Error(
        `S3 ${operation} of ${visibility} object ${JSON.stringify(key)} (s3://${bucket}/${name}) failed: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  async function failure(
    operation: string,
    key: string,
    visibility: Visibility,
    name: string,
    response: Response,
  ): Promise<Error> {
    const code = errorCode(await response.text().catch(() => ''));
    return new Error(
      `S3 ${operation} of ${visibility} object ${JSON.stringify(key)} (s3://${bucket}/${name}) failed: HTTP ${response.status}${code ? ` ${code}` : ''}`,
    );
  }

  /**
   * One page of ListObjects, after `marker` (the last key of the page before). Version 1 and a
   * marker rather than V2's continuation token: every S3-compatible service has it, and s3rver's V2
   * tokens use DES, which OpenSSL 3 no longer offers. The XML is flat and fixed, so two patterns read
   * it; the keys we store need no XML escaping, and any other key is skipped by the caller.
   */
  async function listPage(prefix: string, marker: string | null) {
    const query = new URLSearchParams({ prefix, 'max-keys': String(options.listPageSize ?? 1000) });
    if (marker) query.set('marker', marker);
    const url = `${pathStyle ? bucketBase : `${bucketBase}/`}?${query}`;
    let response: Response;
    try {
      response = await client.fetch(url, { method: 'GET', signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      throw new Error(`S3 list of s3://${bucket}/${prefix} failed: ${(error as Error).message}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok)
      throw new Error(
        `S3 list of s3://${bucket}/${prefix} failed: HTTP ${response.status} ${errorCode(text) ?? ''}`.trim(),
      );
    const objects = [...text.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)].map(([, entry]) => ({
      name: /<Key>([^<]*)<\/Key>/.exec(entry!)?.[1] ?? '',
      modifiedAt: Date.parse(/<LastModified>([^<]*)<\/LastModified>/.exec(entry!)?.[1] ?? ''),
    }));
    const truncated = /<IsTruncated>true<\/IsTruncated>/.test(text);
    // The marker must be the key itself: a foreign key with an escaped `&` would otherwise sort before itself and repeat.
    return { objects, next: truncated && objects.length > 0 ? unescapeXml(objects.at(-1)!.name) : null };
  }

  function publicUrl(key: string): string {
    const name = objectKey(key, 'public');
    return publicBaseUrl ? `${publicBaseUrl}/${key}` : objectUrl(name);
  }

  return {
    servedByApp: false,
    publicUrl,

    async put(key, body, { contentType, visibility }): Promise<StoredObject> {
      objectKey(key, visibility);
      assertContentTypeFitsKey(key, contentType);
      const headers: Record<string, string> = {
        'Content-Type': contentTypeForKey(key),
        // The real payload hash (not UNSIGNED-PAYLOAD): S3 rejects the PUT if the bytes were altered in transit.
        'X-Amz-Content-Sha256': createHash('sha256').update(body).digest('hex'),
      };
      if (visibility === 'public') {
        // A key's bytes never change (the same key is only rewritten with the same bytes), so caches may keep them forever.
        headers['Cache-Control'] = 'public, max-age=31536000, immutable';
        if (options.publicAcl) headers['x-amz-acl'] = 'public-read';
      }
      // The cast only narrows the buffer type for the DOM typings; fetch copies the bytes either way.
      const { name, response } = await request('put', key, visibility, {
        method: 'PUT',
        headers,
        body: body as Uint8Array<ArrayBuffer>,
      });
      if (!response.ok) throw await failure('put', key, visibility, name, response);
      await response.body?.cancel();
      return {
        key,
        contentType: contentTypeForKey(key),
        size: body.byteLength,
        url: visibility === 'public' ? publicUrl(key) : null,
      };
    },

    async get(key, visibility): Promise<FetchedObject | null> {
      const { name, response } = await request('get', key, visibility, { method: 'GET' });
      if (response.status === 404) {
        await response.body?.cancel();
        return null;
      }
      if (!response.ok) throw await failure('get', key, visibility, name, response);
      const body = new Uint8Array(await response.arrayBuffer());
      return {
        body,
        contentType: response.headers.get('content-type') ?? contentTypeForKey(key),
        // S3's ETag is the quoted MD5 of a single-part upload; a service that omits it gets our own validator.
        etag: response.headers.get('etag') ?? etagFor(body),
      };
    },

    async delete(key, visibility) {
      const { name, response } = await request('delete', key, visibility, { method: 'DELETE' });
      // S3 answers 204 whether or not the key existed; some compatible services answer 404.
      if (!response.ok && response.status !== 404) throw await failure('delete', key, visibility, name, response);
      await response.body?.cancel();
    },

    async *list(prefix, visibility): AsyncIterable<ListedObject> {
      assertSafePrefix(prefix);
      const base = prefixFor(visibility);
      let marker: string | null = null;
      do {
        const page = await listPage(base + prefix, marker);
        for (const { name, modifiedAt } of page.objects) {
          const key = name.slice(base.length);
          if (name.startsWith(base) && isSafeKey(key) && Number.isFinite(modifiedAt)) yield { key, modifiedAt };
        }
        marker = page.next;
      } while (marker);
    },
  };
}

/** S3 error bodies are XML with a machine-readable <Code> (AccessDenied, NoSuchBucket …). */
const errorCode = (text: string) => /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];

const xmlEntities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (text: string) => text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => xmlEntities[name]!);
