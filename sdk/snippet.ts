/**
 * The stub snippet shops paste before the embed tag (or anywhere above their first call): it
 * defines `window.Visualizer` at once, so `track`, `open`, `identify`, `preload` and `ready` can be
 * called before `embed.js` has loaded. Each call is queued as `[name, args, resolve]` and returns a
 * Promise; the loader replays the queue in order and resolves each Promise with the real result.
 * `getIdentity()` answers synchronously, so it cannot be queued: use `Visualizer.ready(fn)`.
 */
export const stubSnippet =
  'window.Visualizer=window.Visualizer||{q:[]};(function(v){["track","open","identify","preload","ready"].forEach(function(m){v[m]=v[m]||function(){var a=[].slice.call(arguments);return new Promise(function(r){v.q.push([m,a,r])})}})})(window.Visualizer);';
