import { existsSync } from 'node:fs';
import sharp from 'sharp';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import type { VisualizerSdk } from '../../sdk/shared/types.ts';

/** What browser tests read from pages: the SDK, and what test and demo pages record. */
declare global {
  interface Window {
    Visualizer: VisualizerSdk & { q?: unknown[] };
    results: Record<string, unknown>;
    demoAddToCartCalls: Array<{ product: unknown; quantity: number; variation: unknown }>;
  }
}

export const chromiumPath = '/usr/bin/chromium';

/**
 * Debian's Chromium, headless. A missing browser fails the suite (it is installed by `.ci/run`);
 * browser tests are never skipped.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath))
    throw new Error(`${chromiumPath} is missing: install Debian's chromium package (.ci/run does).`);
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A shopper's photo: a figure against a wall, as a JPEG (what `setInputFiles` uploads). */
export async function shopperPhoto(width = 1200, height = 1600): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 600 800">
  <defs><linearGradient id="wall" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#e9e4dc"/><stop offset="1" stop-color="#cfc6b8"/></linearGradient></defs>
  <rect width="600" height="800" fill="url(#wall)"/>
  <rect y="640" width="600" height="160" fill="#b59f84"/>
  <ellipse cx="300" cy="170" rx="62" ry="74" fill="#c98f6b"/>
  <path d="M250 120 Q300 60 352 118 Q345 90 300 86 Q255 90 250 120 Z" fill="#3b2a20"/>
  <rect x="278" y="236" width="44" height="40" fill="#c98f6b"/>
  <path d="M180 290 Q300 240 420 290 L440 640 L160 640 Z" fill="#e8e8e8"/>
  <rect x="205" y="600" width="80" height="200" fill="#2f3a56"/><rect x="315" y="600" width="80" height="200" fill="#2f3a56"/>
</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 88 }).toBuffer();
}

/**
 * An init script that records every Content-Security-Policy violation in `window.__violations`,
 * which would otherwise be only a console line.
 */
export const recordViolations = `window.__violations = [];
document.addEventListener('securitypolicyviolation', (event) => window.__violations.push(event.violatedDirective + ' ' + event.blockedURI));`;

/** Console errors and uncaught exceptions of every page of `context`, as they happen. */
export function recordPageErrors(context: BrowserContext): string[] {
  const errors: string[] = [];
  context.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  context.on('weberror', (error) => errors.push(`uncaught: ${error.error().message}`));
  return errors;
}

/** Records the requests a page makes to a path (e.g. `/api/collect`), with their bodies. */
export function recordRequests(target: Page | BrowserContext, pathname: string) {
  const seen: Array<{ method: string; body: unknown; contentType: string | undefined }> = [];
  target.on('request', (request: Request) => {
    if (new URL(request.url()).pathname !== pathname || request.method() === 'OPTIONS') return;
    const text = request.postData();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // kept as text
    }
    seen.push({ method: request.method(), body, contentType: request.headers()['content-type'] });
  });
  return seen;
}
