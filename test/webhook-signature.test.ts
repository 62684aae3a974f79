import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signatureHeader, signWebhook } from '../core/domain/webhook-signature.ts';
import { verifyWebhook, WebhookVerificationError } from '../webhooks/verify.ts';

// The Standard Webhooks specification's published test vector.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

const event = {
  id: 'evt_0123456789abcdefghijklmn',
  type: 'generation.completed',
  createdAt: '2026-01-01T00:00:00.000Z',
  data: { id: 'agen_x', note: 'héllo ✓' },
};
const body = JSON.stringify(event);
const nowSeconds = () => Math.floor(Date.now() / 1000);

function headersFor(secrets: string[], id: string, timestamp: number, payload: string | Uint8Array) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(secrets, id, timestamp, payload),
  };
}

function rejects(fn: () => unknown, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof WebhookVerificationError, `expected WebhookVerificationError, got ${String(err)}`);
    assert.match(err.message, message);
    return true;
  });
}

describe('webhook signing', () => {
  test('matches the Standard Webhooks test vector', () => {
    assert.equal(signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.payload), VECTOR.signature);
    // The same bytes given as a Uint8Array sign the same.
    assert.equal(
      signWebhook(VECTOR.secret, VECTOR.id, VECTOR.timestamp, new TextEncoder().encode(VECTOR.payload)),
      VECTOR.signature,
    );
  });

  test('generated secrets are whsec_ + base64 of 32 random bytes', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    assert.match(a, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(a.slice(6), 'base64').length, 32);
    assert.notEqual(a, b);
  });

  test('signs the body bytes exactly: one changed byte changes the signature', () => {
    const secret = generateWebhookSecret();
    const bytes = Buffer.from(body);
    const tampered = Buffer.from(bytes);
    tampered[10] = tampered[10]! ^ 1;
    assert.notEqual(signWebhook(secret, 'evt_1', 1, bytes), signWebhook(secret, 'evt_1', 1, tampered));
  });

  test('one v1 entry per secret, space-separated', () => {
    const [a, b] = [generateWebhookSecret(), generateWebhookSecret()];
    const header = signatureHeader([a, b], 'evt_1', 1700000000, body);
    assert.deepEqual(header.split(' '), [
      signWebhook(a, 'evt_1', 1700000000, body),
      signWebhook(b, 'evt_1', 1700000000, body),
    ]);
  });

  test('refuses inputs that would produce unverifiable deliveries', () => {
    const secret = generateWebhookSecret();
    assert.throws(() => signWebhook(secret, 'evt_1', 1700000000.5, body), RangeError);
    assert.throws(() => signWebhook(secret, 'evt_1', Date.now() * 1000 * 1000, body), RangeError);
    assert.throws(() => signWebhook('whsec_not base64!', 'evt_1', 1, body), TypeError);
    assert.throws(() => signWebhook('whsec_', 'evt_1', 1, body), TypeError);
    assert.throws(() => signatureHeader([], 'evt_1', 1, body), TypeError);
  });

  test('the standardwebhooks reference verifier accepts our signatures', () => {
    const secret = generateWebhookSecret();
    const ts = nowSeconds();
    const headers = headersFor([secret], event.id, ts, body);
    assert.deepEqual(new Webhook(secret).verify(body, headers), event);
    assert.deepEqual(new Webhook(secret).verify(Buffer.from(body), headers), event);
  });

  test('during rotation each of the two secrets alone verifies with the reference', () => {
    const [current, previous] = [generateWebhookSecret(), generateWebhookSecret()];
    const ts = nowSeconds();
    const headers = headersFor([current, previous], event.id, ts, body);
    assert.deepEqual(new Webhook(current).verify(body, headers), event);
    assert.deepEqual(new Webhook(previous).verify(body, headers), event);
    assert.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers), /No matching signature/);
  });
});

describe('verifyWebhook (receiver helper)', () => {
  const secret = generateWebhookSecret();

  test('accepts our signatures and returns the parsed event', () => {
    const ts = nowSeconds();
    const result = verifyWebhook(secret, headersFor([secret], event.id, ts, body), body);
    assert.deepEqual(result, event);
    // Raw bytes work the same as the string.
    assert.deepEqual(verifyWebhook(secret, headersFor([secret], event.id, ts, body), Buffer.from(body)), event);
  });

  test('accepts signatures made by the standardwebhooks reference signer', () => {
    const ts = nowSeconds();
    const signature = new Webhook(secret).sign(event.id, new Date(ts * 1000), body);
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
    assert.deepEqual(verifyWebhook(secret, headers, body), event);
  });

  test('verifies the published test vector at its own time', () => {
    const headers = {
      'webhook-id': VECTOR.id,
      'webhook-timestamp': String(VECTOR.timestamp),
      'webhook-signature': VECTOR.signature,
    };
    assert.deepEqual(verifyWebhook(VECTOR.secret, headers, VECTOR.payload, { now: () => VECTOR.timestamp * 1000 }), {
      test: 2432232314,
    });
  });

  test('headers are case-insensitive, from a record or a fetch Headers', () => {
    const ts = nowSeconds();
    const h = headersFor([secret], event.id, ts, body);
    const shouting = {
      'Webhook-Id': h['webhook-id'],
      'WEBHOOK-TIMESTAMP': h['webhook-timestamp'],
      'Webhook-Signature': h['webhook-signature'],
    };
    assert.deepEqual(verifyWebhook(secret, shouting, body), event);
    assert.deepEqual(verifyWebhook(secret, new Headers(shouting), body), event);
    // Node gives a repeated header as an array.
    assert.deepEqual(
      verifyWebhook(secret, { ...h, 'webhook-signature': ['v1,bogus', h['webhook-signature']] }, body),
      event,
    );
  });

  test('accepts the secret with or without the whsec_ prefix', () => {
    const ts = nowSeconds();
    const headers = headersFor([secret], event.id, ts, body);
    assert.deepEqual(verifyWebhook(secret.slice('whsec_'.length), headers, body), event);
    // And a delivery signed with the bare secret verifies with the prefixed one.
    const bare = headersFor([secret.slice('whsec_'.length)], event.id, ts, body);
    assert.deepEqual(verifyWebhook(secret, bare, body), event);
  });

  test('accepts when any one of several entries matches', () => {
    const ts = nowSeconds();
    const other = generateWebhookSecret();
    const own = signWebhook(secret, event.id, ts, body);
    const signature = `v1,${Buffer.alloc(32).toString('base64')} v2,whatever ${signWebhook(other, event.id, ts, body)} ${own}`;
    const headers = { 'webhook-id': event.id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
    assert.deepEqual(verifyWebhook(secret, headers, body), event);
  });

  test('rejects a body with one byte changed', () => {
    const ts = nowSeconds();
    const headers = headersFor([secret], event.id, ts, body);
    const tampered = Buffer.from(body);
    tampered[tampered.length - 3] = tampered[tampered.length - 3]! ^ 1;
    rejects(() => verifyWebhook(secret, headers, tampered), /No matching signature/);
  });

  test('rejects a changed id or timestamp (both are signed)', () => {
    const ts = nowSeconds();
    const headers = headersFor([secret], event.id, ts, body);
    rejects(() => verifyWebhook(secret, { ...headers, 'webhook-id': 'evt_other' }, body), /No matching signature/);
    rejects(
      () => verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(ts - 1) }, body),
      /No matching signature/,
    );
  });

  test('rejects a delivery signed with another secret', () => {
    const ts = nowSeconds();
    rejects(
      () => verifyWebhook(secret, headersFor([generateWebhookSecret()], event.id, ts, body), body),
      /No matching signature/,
    );
  });

  test('rejects a delivery missing any of the three headers', () => {
    const headers = headersFor([secret], event.id, nowSeconds(), body);
    for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const) {
      const { [name]: _dropped, ...rest } = headers;
      rejects(() => verifyWebhook(secret, rest, body), new RegExp(`Missing required header ${name}`));
      rejects(
        () => verifyWebhook(secret, { ...headers, [name]: '' }, body),
        new RegExp(`Missing required header ${name}`),
      );
    }
  });

  test('rejects timestamps more than 300 s old or ahead, accepts exactly 300 s', () => {
    const now = 1_800_000_000_000;
    const at = (ts: number) => headersFor([secret], event.id, ts, body);
    const options = { now: () => now };
    rejects(() => verifyWebhook(secret, at(now / 1000 - 301), body, options), /too old/);
    rejects(() => verifyWebhook(secret, at(now / 1000 + 301), body, options), /too new/);
    assert.deepEqual(verifyWebhook(secret, at(now / 1000 - 300), body, options), event);
    assert.deepEqual(verifyWebhook(secret, at(now / 1000 + 300), body, options), event);
    // With the real clock too.
    rejects(() => verifyWebhook(secret, at(nowSeconds() - 301), body), /too old/);
    rejects(() => verifyWebhook(secret, at(nowSeconds() + 301), body), /too new/);
    // A custom tolerance.
    rejects(() => verifyWebhook(secret, at(now / 1000 - 61), body, { ...options, toleranceSeconds: 60 }), /too old/);
  });

  test('rejects a timestamp that is not integer Unix seconds', () => {
    const ts = nowSeconds();
    const headers = headersFor([secret], event.id, ts, body);
    for (const bad of [`${ts}.5`, `${ts}abc`, '1.6e9', `-${ts}`, `${ts * 1000}x`, 'now']) {
      rejects(() => verifyWebhook(secret, { ...headers, 'webhook-timestamp': bad }, body), /Invalid webhook-timestamp/);
    }
    // Milliseconds instead of seconds is an integer, but far in the future.
    rejects(() => verifyWebhook(secret, { ...headers, 'webhook-timestamp': String(ts * 1000) }, body), /too new/);
  });

  test('ignores entries of other versions: only v2 entries fail', () => {
    const ts = nowSeconds();
    const valid = signWebhook(secret, event.id, ts, body).slice('v1,'.length);
    const headers = {
      'webhook-id': event.id,
      'webhook-timestamp': String(ts),
      'webhook-signature': `v2,${valid} v1a,${valid}`,
    };
    rejects(() => verifyWebhook(secret, headers, body), /No matching signature/);
  });

  test('a verified body that is not JSON is still refused with a verification error', () => {
    const ts = nowSeconds();
    rejects(() => verifyWebhook(secret, headersFor([secret], event.id, ts, 'not json'), 'not json'), /not valid JSON/);
  });

  test('setup mistakes are TypeErrors, not failed deliveries', () => {
    const headers = headersFor([secret], event.id, nowSeconds(), body);
    assert.throws(() => verifyWebhook('whsec_***', headers, body), TypeError);
    assert.throws(() => verifyWebhook(secret, headers, JSON.parse(body) as string), TypeError);
  });
});
