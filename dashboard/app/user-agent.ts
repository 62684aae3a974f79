/**
 * "Chrome on Linux" from a User-Agent header, for the sessions table (the full header goes in a
 * tooltip). A few patterns cover the browsers people use; the order matters, since Edge and Opera
 * also say "Chrome", and Chrome also says "Safari".
 */
const browsers: [RegExp, string][] = [
  [/\bEdgA?\//, 'Edge'],
  [/\bOPR\//, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bHeadlessChrome\//, 'Headless Chrome'],
  [/\bChrom(e|ium)\/|\bCriOS\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^node\b|\bundici\b/i, 'Node.js'],
];

const systems: [RegExp, string][] = [
  [/\bAndroid\b/, 'Android'],
  [/\biPhone|iPad|iPod\b/, 'iOS'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b/, 'Linux'],
];

export function browserLabel(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown browser';
  const browser = browsers.find(([pattern]) => pattern.test(userAgent))?.[1];
  const system = systems.find(([pattern]) => pattern.test(userAgent))?.[1];
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `A browser on ${system}` : 'Unknown browser');
}
