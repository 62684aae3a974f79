import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { explain } from '../sdk/widget/explain.ts';

// The browser tests force the refusals a real server gives the widget; these are the ones it
// cannot be made to give there (the widget re-encodes every photo, so the service never refuses one).
describe('what the widget tells the shopper', () => {
  const answer = (status: number, code: string, param: string | null = null, message = 'the reason') =>
    explain({ status, code, param, message });
  const productRefused = { words: "This product can't be tried on right now.", next: 'none' };
  const photoRefused = {
    words: 'This photo could not be used. Please choose another photo, such as a JPEG or PNG.',
    next: 'pick',
  };

  it('asks for another photo when the service refuses the photo', () => {
    assert.deepEqual(answer(400, 'invalid_image', 'image'), photoRefused);
    assert.deepEqual(answer(400, 'image_too_large', 'image'), photoRefused);
    assert.deepEqual(answer(413, 'body_too_large'), photoRefused);
    assert.deepEqual(answer(400, 'parameter_invalid', 'image'), photoRefused);
    assert.equal(
      answer(0, 'invalid_image', null, 'The image is damaged or truncated.').next,
      'pick',
      'a generation that failed on the photo',
    );
    assert.equal(answer(0, 'content_blocked').next, 'pick');
  });

  it("says the product can't be tried on when the service refuses what the page gave", () => {
    assert.deepEqual(answer(400, 'parameter_invalid', 'products[0].imageUrl'), productRefused);
    assert.deepEqual(answer(400, 'parameter_invalid', 'products[0].productId'), productRefused);
    assert.deepEqual(answer(400, 'invalid_json'), productRefused);
    assert.deepEqual(
      answer(0, 'invalid_image', null, 'products[0].imageUrl: The image is damaged or truncated.'),
      productRefused,
      'a generation that failed on the product image',
    );
  });

  it('asks the shopper to wait after a rate limit, and calls the feature unavailable for a cap, credits or another refusal', () => {
    assert.deepEqual(answer(429, 'rate_limited'), {
      words: 'Too many tries in a short time. Please wait a minute and try again.',
      next: 'retry',
    });
    const unavailable = { words: 'Visualizations are not available right now. Please try again later.', next: 'none' };
    assert.deepEqual(answer(429, 'daily_cap_reached'), unavailable);
    assert.deepEqual(
      answer(429, 'daily_credit_cap_reached'),
      unavailable,
      'not "wait a minute": the cap holds until midnight UTC',
    );
    assert.deepEqual(answer(403, 'insufficient_credits', 'imageSize'), unavailable);
    assert.deepEqual(answer(403, 'store_not_allowed'), unavailable);
    assert.deepEqual(answer(403, 'origin_not_allowed'), {
      words: 'This widget is not enabled for this website.',
      next: 'none',
    });
  });

  it('offers a retry only where one can succeed', () => {
    assert.equal(answer(503, 'storage_unavailable').next, 'retry');
    assert.equal(answer(0, 'network').next, 'retry');
    assert.equal(answer(0, 'timeout').next, 'retry');
    assert.equal(
      answer(0, 'image_fetch_failed', null, 'products[0].imageUrl: The image URL answered 404').next,
      'retry',
    );
  });
});
