/**
 * The stub snippet shops paste before the embed tag (or anywhere above their first call): it
 * defines `window.Visualizer` at once, so `track`, `open`, `identify`, `preload`, `ready` and
 * `consent` can be called before `embed.js` has loaded. Each call is queued as `[name, args,
 * resolve]` and returns a Promise; the loader replays the queue in order and resolves each Promise
 * with the real result.
 * `getIdentity()` answers synchronously, so it cannot be queued: use `Visualizer.ready(fn)`.
 */
export const stubSnippet =
  'window.Visualizer=window.Visualizer||{q:[]};(function(v){["track","open","identify","preload","ready","consent"].forEach(function(m){v[m]=v[m]||function(){var a=[].slice.call(arguments);return new Promise(function(r){v.q.push([m,a,r])})}})})(window.Visualizer);';

const escapeAttribute = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * What a shop pastes to use a widget: the stub, the loader for its store, and the `open` call its
 * "Try it on" button makes. `base` is the service's public URL (a path prefix kept). Pure, so the
 * dashboard's bundle and the server can both print it.
 */
export function embedSnippet(input: { base: string; storeId: string; widgetId: string }): string {
  const base = input.base.replace(/\/+$/, '');
  return `<script>${stubSnippet}</script>
<script async src="${escapeAttribute(base)}/widgets/embed.js" data-store-id="${escapeAttribute(input.storeId)}"></script>
<script>
  // On your "Try it on" button:
  // Visualizer.open(${JSON.stringify(input.widgetId).replace(/</g, '\\u003c')}, { productId: '…', productTitle: '…', productImage: 'https://…' });
</script>`;
}
