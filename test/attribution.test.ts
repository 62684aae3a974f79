import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attribute, dayMs } from '../core/domain/attribution.ts';
import { parseIsoTime } from '../core/domain/conversion-input.ts';
import { mergeReport, type ConversionReport } from '../core/domain/conversion.ts';
import type { AttributionCandidate } from '../core/domain/attribution.ts';
import type { ConversionRecord } from '../core/domain/conversion.ts';

const order = Date.UTC(2025, 5, 10, 12);
const generation = (overrides: Partial<AttributionCandidate>): AttributionCandidate => ({
  id: 'agen_a',
  storeId: 'store_1',
  visitorId: 'v1',
  sessionId: 's1',
  status: 'complete',
  productIds: ['sku-1'],
  createdAt: order - dayMs,
  ...overrides,
});
const conversion = {
  storeId: 'store_1',
  visitorId: 'v1',
  sessionId: 's1',
  items: [{ productId: 'sku-1', quantity: 1, priceCents: 500, totalCents: 500 }],
  orderCreatedAt: order,
};

describe('attribution rules', () => {
  it('includes both ends of the window and nothing outside it', () => {
    assert.equal(
      attribute(conversion, [generation({ createdAt: order - 7 * dayMs })], 7)?.generationId,
      'agen_a',
      'exactly 7 days before',
    );
    assert.equal(
      attribute(conversion, [generation({ createdAt: order })], 7)?.generationId,
      'agen_a',
      'the same millisecond',
    );
    assert.equal(attribute(conversion, [generation({ createdAt: order - 7 * dayMs - 1 })], 7), null);
    assert.equal(attribute(conversion, [generation({ createdAt: order + 1 })], 7), null);
  });

  it('prefers any visitor match over a later session match, and the latest within each', () => {
    const candidates = [
      generation({ id: 'agen_visitor_old', createdAt: order - 3 * dayMs }),
      generation({ id: 'agen_visitor_new', createdAt: order - 2 * dayMs, sessionId: 'other' }),
      generation({ id: 'agen_session', visitorId: 'v-other', createdAt: order - dayMs }),
    ];
    assert.equal(attribute(conversion, candidates, 7)?.generationId, 'agen_visitor_new');
    assert.equal(attribute({ ...conversion, visitorId: null }, candidates, 7)?.generationId, 'agen_session');
    assert.equal(attribute({ ...conversion, visitorId: null, sessionId: null }, candidates, 7), null);
  });

  it('ignores other stores and unfinished generations, and compares product ids as strings', () => {
    assert.equal(attribute(conversion, [generation({ storeId: 'store_2' })], 7), null);
    assert.equal(attribute(conversion, [generation({ status: 'failed' })], 7), null);
    assert.equal(attribute(conversion, [generation({ status: 'processing' })], 7), null);
    const items = [
      { productId: '42', quantity: 2, priceCents: 100, totalCents: 200 },
      { productId: '42', quantity: 1, priceCents: 100, totalCents: 100 },
      { productId: 'other', quantity: 1, priceCents: 999, totalCents: 999 },
    ];
    assert.deepEqual(attribute({ ...conversion, items }, [generation({ productIds: ['42'] })], 7), {
      generationId: 'agen_a',
      attributedRevenueCents: 300,
      attributedItems: ['42'],
    });
  });
});

describe('order times', () => {
  it('reads ISO 8601 dates and zoned date-times, refusing what is not a real moment', () => {
    assert.equal(parseIsoTime('2025-03-01'), Date.UTC(2025, 2, 1));
    assert.equal(parseIsoTime('2025-03-01T10:00:00Z'), Date.UTC(2025, 2, 1, 10));
    assert.equal(parseIsoTime('2025-03-01T10:00:00.5+01:30'), Date.UTC(2025, 2, 1, 8, 30, 0, 500));
    assert.equal(parseIsoTime('2025-03-01T10:00-0500'), Date.UTC(2025, 2, 1, 15));
    for (const bad of [
      '2025-02-29',
      '2025-02-30T00:00:00Z',
      '2025-03-01T24:00:00Z',
      '2025-03-01T10:00:00',
      '01/03/2025',
      '2025-3-1',
      '',
    ])
      assert.equal(parseIsoTime(bad), null, bad);
  });
});

describe('merging reports of one order', () => {
  const stored: ConversionRecord = {
    id: 'conv_1',
    organizationId: 'org_1',
    storeId: 'store_1',
    orderId: 'o1',
    visitorId: 'v1',
    sessionId: null,
    totalCents: 0,
    currency: 'USD',
    platform: 'custom',
    status: 'completed',
    items: [],
    source: 'browser',
    attribution: null,
    orderCreatedAt: 1_000,
    createdAt: 1_000,
    updatedAt: 1_000,
  };
  const report = (overrides: Partial<ConversionReport>): ConversionReport => ({
    source: 'server',
    organizationId: 'org_1',
    storeId: 'store_1',
    orderId: 'o1',
    visitorId: 'v2',
    sessionId: 's2',
    totalCents: 900,
    currency: 'EUR',
    platform: 'custom',
    status: 'pending',
    items: [{ productId: 'a', quantity: 1, priceCents: 900, totalCents: 900 }],
    orderCreatedAt: 500,
    ...overrides,
  });

  it('lets the server override a browser report, its ids included', () => {
    const { record, reattribute } = mergeReport(stored, report({}), 2_000);
    assert.deepEqual(
      [
        record.source,
        record.totalCents,
        record.currency,
        record.status,
        record.orderCreatedAt,
        record.visitorId,
        record.sessionId,
      ],
      ['both', 900, 'EUR', 'pending', 500, 'v2', 's2'],
    );
    assert.equal(record.updatedAt, 2_000);
    assert.equal(reattribute, true);
  });

  it('never lets the browser change what the server reported', () => {
    const server = { ...stored, source: 'server' as const, status: 'refunded' as const, sessionId: 's1' };
    const { record, reattribute } = mergeReport(
      server,
      report({ source: 'browser', status: 'completed', visitorId: 'v9', sessionId: 's9' }),
      2_000,
    );
    assert.deepEqual(
      [record.status, record.totalCents, record.items, record.source, record.visitorId, record.sessionId],
      ['refunded', 0, [], 'both', 'v1', 's1'],
    );
    assert.equal(reattribute, false);
  });

  it('keeps ids a server report leaves empty, and takes the ids of a later server report as a correction', () => {
    const server = { ...stored, source: 'server' as const, sessionId: 's1' };
    const empty = mergeReport(server, report({ visitorId: null, sessionId: null }), 2_000);
    assert.deepEqual([empty.record.visitorId, empty.record.sessionId], ['v1', 's1'], 'an empty id erases nothing');
    const half = mergeReport(server, report({ visitorId: 'v2', sessionId: null }), 2_000);
    assert.deepEqual(
      [half.record.visitorId, half.record.sessionId, half.reattribute],
      ['v2', 's1', true],
      'each id on its own',
    );
    const browserOnly = mergeReport(
      { ...stored, visitorId: null },
      report({ source: 'browser', visitorId: 'v3', sessionId: 's3' }),
      2_000,
    );
    assert.deepEqual(
      [browserOnly.record.visitorId, browserOnly.record.sessionId],
      ['v3', 's3'],
      'a browser report fills gaps',
    );
  });
});
