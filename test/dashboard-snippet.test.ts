import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { embedSnippet, stubSnippet } from '../sdk/snippet.ts';

describe("a widget's embed snippet (shown on the dashboard's Stores & widgets page)", () => {
  it('is the stub, the loader for the store from the service base (prefix kept), and the open call', () => {
    const snippet = embedSnippet({ base: 'https://shop.example/visualizer/', storeId: 'store_1', widgetId: 'wdg_1' });
    assert.ok(snippet.startsWith(`<script>${stubSnippet}</script>\n`));
    assert.match(
      snippet,
      /<script async src="https:\/\/shop\.example\/visualizer\/widgets\/embed\.js" data-store-id="store_1"><\/script>/,
    );
    assert.match(snippet, /Visualizer\.open\("wdg_1", \{/);
  });

  it('escapes what it puts in attributes and in the script', () => {
    const snippet = embedSnippet({ base: 'https://a.example/"><x', storeId: 'store_"<', widgetId: '</script><x>' });
    assert.doesNotMatch(snippet, /"><x|store_"<|<\/script><x>/);
    assert.match(snippet, /data-store-id="store_&quot;&lt;"/);
  });
});
