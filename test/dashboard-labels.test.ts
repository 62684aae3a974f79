import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ledgerReason, productNames } from '../dashboard/app/labels.ts';
import { browserLabel } from '../dashboard/app/user-agent.ts';

/** The dashboard's words for machine values: what the browser test sees for one case, here for each. */
describe("the dashboard's labels", () => {
  it('names browsers and systems from real User-Agent headers', () => {
    const cases: [string | null, string][] = [
      [
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        'Chrome on Linux',
      ],
      [
        'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
        'Edge on Windows',
      ],
      [
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
        'Safari on macOS',
      ],
      [
        'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
        'Safari on iOS',
      ],
      ['Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0', 'Firefox on Linux'],
      [
        'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
        'Chrome on Android',
      ],
      ['curl/8.5.0', 'curl'],
      ['Mozilla/5.0 (test)', 'Unknown browser'],
      [null, 'Unknown browser'],
    ];
    for (const [header, label] of cases) assert.equal(browserLabel(header), label, String(header));
  });

  it('names every ledger reason the service writes, and prettifies one given on the command line', () => {
    assert.equal(ledgerReason('initial_grant'), 'Initial credits');
    assert.equal(ledgerReason('manual_grant'), 'Credits added by the operator');
    assert.equal(ledgerReason('demo_top_up'), 'Demo credits');
    assert.equal(ledgerReason('generation'), 'Charged for a generation');
    assert.equal(ledgerReason('generation_refund'), 'Refund of a generation');
    assert.equal(ledgerReason('black_friday_bonus'), 'Black friday bonus');
  });

  it('lists products by title, in plain English', () => {
    const product = (productTitle: string) => ({
      productId: 'x',
      productTitle,
      imageUrl: 'https://shop.example/x.png',
    });
    assert.equal(productNames({ products: [product('Red shirt')] }), 'Red shirt');
    assert.equal(
      productNames({ products: [product('Red shirt'), product('Blue scarf'), product('Hat')] }),
      'Red shirt, Blue scarf and Hat',
    );
  });
});
