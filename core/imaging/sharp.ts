import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/**
 * sharp, loaded on first use. Loading it maps libvips and its codecs into the process (tens of MB
 * resident), which a process that never touches an image (an idle `serve`, an API process whose
 * requests carry no upload) need not carry. Every caller is async already; after the first call
 * this is an already-settled promise.
 */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
