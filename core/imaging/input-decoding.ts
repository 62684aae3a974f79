import type { SharpOptions } from 'sharp';

/**
 * How every decode of a photo or product image reads it, the intake check's and the renderers'
 * alike, so that what the check accepts a renderer can read: a truncated file fails, while damaged
 * data that browsers still show (libjpeg's "corrupt JPEG data" warnings) does not.
 */
export const inputDecoding = { failOn: 'truncated' } as const satisfies SharpOptions;
