import { stubSnippet } from '../sdk/snippet.ts';
import type { ConversionRecord } from '../core/http/app-module-api.ts';
import type { DemoProduct } from './catalogue.ts';
import type { OrderLine } from './order.ts';

/** Text for HTML content and attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** A value for an inline <script>: JSON that cannot close the script element. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

const money = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export interface PageContext {
  /** The service's public base URL (where embed.js is). */
  base: string;
  storeId: string;
  widgetId: string;
  /** Public CDN URL of each image key. */
  imageUrl(key: string): string;
}

const styles = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1c1917;background:#faf9f7}
a{color:inherit}
.top{display:flex;align-items:center;gap:14px;padding:14px 28px;background:#fff;border-bottom:1px solid #e7e5e4;position:sticky;top:0;z-index:5}
.brand{font-weight:750;font-size:19px;text-decoration:none;letter-spacing:-.01em;white-space:nowrap}
.brand-block{display:flex;align-items:center;gap:14px;min-width:0}
.badge{white-space:nowrap;font-size:12px;padding:2px 8px;border-radius:99px;background:#fef3c7;color:#92400e}
.spacer{flex:1}
.btn{display:inline-flex;align-items:center;justify-content:center;min-height:44px;padding:0 20px;border-radius:99px;border:1px solid #d6d3d1;background:#fff;font:inherit;font-weight:600;cursor:pointer;text-decoration:none;color:#1c1917;white-space:nowrap}
.btn.primary{background:#1f2937;border-color:#1f2937;color:#fff}
.btn:focus-visible{outline:3px solid #93c5fd;outline-offset:2px}
main{max-width:1040px;margin:0 auto;padding:32px 28px}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(260px,1fr));gap:24px}
.card{background:#fff;border-radius:16px;overflow:hidden;border:1px solid #e7e5e4;text-decoration:none}
.card img{width:100%;aspect-ratio:1;object-fit:cover;display:block;background:#eee}
.card div{padding:14px 16px}
.product{display:grid;grid-template-columns:1fr 1fr;gap:40px;align-items:start}
.product .main-image{width:100%;border-radius:18px;background:#eee;aspect-ratio:1;object-fit:cover}
.swatches{display:flex;gap:10px;margin:14px 0}
.swatches button{width:40px;height:40px;border-radius:50%;border:3px solid #fff;box-shadow:0 0 0 1px #d6d3d1;cursor:pointer}
.swatches button[aria-pressed=true]{box-shadow:0 0 0 2px #1f2937}
.price{font-size:22px;font-weight:650;margin:4px 0 12px}
.buy{display:flex;gap:12px;flex-wrap:wrap;margin-top:22px}
.mini-cart{position:fixed;right:20px;top:70px;width:320px;background:#fff;border:1px solid #e7e5e4;border-radius:16px;padding:18px;box-shadow:0 12px 40px rgba(0,0,0,.12);z-index:4}
.mini-cart ul{list-style:none;margin:0 0 12px;padding:0}
.mini-cart li{display:flex;gap:10px;align-items:center;padding:6px 0;border-bottom:1px solid #f5f5f4;font-size:14px}
.mini-cart img{width:40px;height:40px;border-radius:8px}
.mini-cart li span{flex:1}
.steps section{background:#fff;border:1px solid #e7e5e4;border-radius:16px;padding:18px 22px;margin:18px 0}
table{border-collapse:collapse;width:100%}
td,th{padding:8px 6px;border-bottom:1px solid #f0efed;text-align:left}
td:last-child,th:last-child{text-align:right}
code,pre{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#f5f5f4;border-radius:6px;padding:2px 6px}
pre{padding:12px;overflow:auto}
.ok{color:#047857}.bad{color:#b91c1c}
@media(max-width:700px){.product{grid-template-columns:1fr}.mini-cart{left:12px;right:12px;width:auto}.top{padding:10px 16px;gap:12px}main{padding:24px 16px}}
@media(max-width:520px){.brand-block{flex-direction:column;align-items:flex-start;gap:2px}.mini-cart{top:88px}}
`;

/** Cart helpers shared by every page (localStorage, tolerant of blocked storage). */
const cartScript = `
window.demoCart = {
  read: function () { try { return JSON.parse(localStorage.getItem('demo.cart') || '[]'); } catch (e) { return window.demoMemoryCart || []; } },
  write: function (lines) { window.demoMemoryCart = lines; try { localStorage.setItem('demo.cart', JSON.stringify(lines)); } catch (e) {} },
  count: function () { return window.demoCart.read().reduce(function (n, line) { return n + line.quantity; }, 0); },
};
`;

function layout(title: string, context: PageContext, body: string, script = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} · Northwind Threads (Visualizer demo)</title>
<style>${styles}</style>
<script>${stubSnippet}</script>
<script async src="${escapeHtml(context.base)}/widgets/embed.js" data-store-id="${escapeHtml(context.storeId)}"></script>
</head>
<body>
<header class="top">
  <span class="brand-block"><a class="brand" href="/demo">Northwind Threads</a><span class="badge">Visualizer demo shop</span></span>
  <span class="spacer"></span>
  <button class="btn" id="cart-button" type="button" aria-expanded="false" aria-controls="mini-cart">Cart (<span id="cart-count">0</span>)</button>
</header>
<aside class="mini-cart" id="mini-cart" aria-label="Cart" hidden>
  <ul id="cart-lines"></ul>
  <p>Total <strong id="cart-total">$0.00</strong></p>
  <a class="btn primary" id="checkout-link" href="/demo/checkout">Checkout</a>
</aside>
${body}
<script>
${cartScript}
function renderCart() {
  var lines = window.demoCart.read();
  document.getElementById('cart-count').textContent = String(window.demoCart.count());
  var list = document.getElementById('cart-lines');
  list.textContent = '';
  var total = 0;
  lines.forEach(function (line) {
    total += line.priceCents * line.quantity;
    var item = document.createElement('li');
    var image = document.createElement('img');
    image.src = line.image; image.alt = '';
    var name = document.createElement('span');
    name.textContent = line.title + (line.variationName ? ' — ' + line.variationName : '') + ' × ' + line.quantity;
    var price = document.createElement('strong');
    price.textContent = '$' + (line.priceCents * line.quantity / 100).toFixed(2);
    item.append(image, name, price);
    list.appendChild(item);
  });
  if (!lines.length) list.innerHTML = '<li>Your cart is empty.</li>';
  document.getElementById('cart-total').textContent = '$' + (total / 100).toFixed(2);
}
function openCart() {
  var cart = document.getElementById('mini-cart');
  cart.hidden = false;
  document.getElementById('cart-button').setAttribute('aria-expanded', 'true');
  document.getElementById('checkout-link').focus();
}
document.getElementById('cart-button').addEventListener('click', function () {
  var cart = document.getElementById('mini-cart');
  if (cart.hidden) openCart(); else { cart.hidden = true; this.setAttribute('aria-expanded', 'false'); }
});
renderCart();
(function () {
${script}
})();
</script>
</body>
</html>`;
}

export function indexPage(context: PageContext, products: DemoProduct[]): string {
  const cards = products
    .map(
      (product) => `<a class="card" href="/demo/product?id=${encodeURIComponent(product.id)}">
  <img src="${escapeHtml(context.imageUrl(product.colors[0]!.key))}" alt="${escapeHtml(product.title)}">
  <div><strong>${escapeHtml(product.title)}</strong><br>${money(product.priceCents)} · ${product.colors.length} colours</div></a>`,
    )
    .join('\n');
  return layout(
    'Shop',
    context,
    `<main>
  <h1>New season essentials</h1>
  <p>Every product page has a <strong>Try it on</strong> button: it opens the Visualizer widget (store <code>${escapeHtml(context.storeId)}</code>,
  widget <code>${escapeHtml(context.widgetId)}</code>). Buy something afterwards and the order is attributed to your visualization.</p>
  <div class="grid">${cards}</div>
</main>`,
  );
}

export function productPage(context: PageContext, product: DemoProduct): string {
  const data = {
    widgetId: context.widgetId,
    id: product.id,
    title: product.title,
    priceCents: product.priceCents,
    colors: product.colors.map((color) => ({
      id: color.id,
      name: color.name,
      fill: color.fill,
      src: context.imageUrl(color.key),
    })),
  };
  const swatches = product.colors
    .map(
      (color, index) =>
        `<button type="button" data-color="${escapeHtml(color.id)}" aria-pressed="${index === 0}" aria-label="${escapeHtml(color.name)}" style="background:${escapeHtml(color.fill)}"></button>`,
    )
    .join('');
  return layout(
    product.title,
    context,
    `<main class="product">
  <img class="main-image" id="main-image" src="${escapeHtml(data.colors[0]!.src)}" alt="${escapeHtml(product.title)}">
  <div>
    <p><a href="/demo">← All products</a></p>
    <h1>${escapeHtml(product.title)}</h1>
    <p class="price">${money(product.priceCents)}</p>
    <p>${escapeHtml(product.description)}</p>
    <p>Colour: <strong id="color-name">${escapeHtml(product.colors[0]!.name)}</strong></p>
    <div class="swatches" role="group" aria-label="Colour">${swatches}</div>
    <div class="buy">
      <button class="btn primary" id="try-on" type="button">Try it on</button>
      <button class="btn" id="add-to-cart" type="button">Add to cart</button>
    </div>
    <p id="page-message" role="status"></p>
  </div>
</main>
<script type="application/json" id="product-data">${scriptJson(data)}</script>`,
    `
var product = JSON.parse(document.getElementById('product-data').textContent);
var selected = product.colors[0];
/** Every call the widget made to onAddToCart, for the curious (and the browser tests). */
window.demoAddToCartCalls = [];

function addLine(variation, quantity) {
  var lines = window.demoCart.read();
  var id = product.id + ':' + variation.id;
  var line = lines.filter(function (l) { return l.key === id; })[0];
  if (line) line.quantity += quantity;
  else lines.push({ key: id, productId: product.id, title: product.title, image: variation.src, variationName: variation.name, priceCents: product.priceCents, quantity: quantity });
  window.demoCart.write(lines);
  renderCart();
}

document.querySelectorAll('.swatches button').forEach(function (button) {
  button.addEventListener('click', function () {
    selected = product.colors.filter(function (c) { return c.id === button.dataset.color; })[0];
    document.querySelectorAll('.swatches button').forEach(function (b) { b.setAttribute('aria-pressed', String(b === button)); });
    document.getElementById('main-image').src = selected.src;
    document.getElementById('color-name').textContent = selected.name;
  });
});

document.getElementById('add-to-cart').addEventListener('click', function () {
  addLine(selected, 1);
  document.getElementById('page-message').textContent = 'Added to your cart.';
});

var tryOn = document.getElementById('try-on');
// Fetch the widget UI while the pointer is on its way to the button: the dialog then opens at once.
tryOn.addEventListener('pointerenter', function () { Visualizer.preload(); }, { once: true });
tryOn.addEventListener('click', function () {
  var colors = [selected].concat(product.colors.filter(function (c) { return c !== selected; }));
  Visualizer.open(product.widgetId, {
    productId: product.id,
    productTitle: product.title,
    productImage: selected.src,
    productUrl: location.href,
    productImages: colors.map(function (c) { return { id: c.id, src: c.src, alt: c.name }; }),
    onAddToCart: function (item, quantity, variation) {
      window.demoAddToCartCalls.push({ product: item, quantity: quantity, variation: variation });
      if (quantity > 10) return { success: false, error: 'The demo shop sells at most 10 of an item per order.' };
      var color = product.colors.filter(function (c) { return variation && c.id === variation.id; })[0] || selected;
      // An asynchronous answer, as a real cart API call would give.
      return new Promise(function (resolve) {
        setTimeout(function () { addLine(color, quantity); resolve({ success: true }); }, 150);
      });
    },
    onViewCart: function () { openCart(); },
    onCheckout: function () { location.href = '/demo/checkout'; },
  });
});
`,
  );
}

export function checkoutPage(context: PageContext): string {
  return layout(
    'Checkout',
    context,
    `<main class="steps">
  <h1>Checkout</h1>
  <table><thead><tr><th>Item</th><th>Qty</th><th>Total</th></tr></thead><tbody id="checkout-lines"></tbody>
  <tfoot><tr><th colspan="2">Total</th><th id="checkout-total"></th></tr></tfoot></table>
  <p id="checkout-empty" hidden>Your cart is empty: <a href="/demo">pick a product</a> first.</p>
  <form method="post" action="/demo/checkout" id="checkout-form">
    <input type="hidden" name="items" value="">
    <input type="hidden" name="visitorId" value="">
    <input type="hidden" name="sessionId" value="">
    <p><button class="btn primary" type="submit" id="place-order" disabled>Place order</button></p>
  </form>
  <section>
    <h2>What happens</h2>
    <p>Nothing is ordered until you press <strong>Place order</strong>. The form carries <code>visitorId</code> and
    <code>sessionId</code> from <code>Visualizer.getIdentity()</code> in hidden fields; the shop's server
    (<code>POST /demo/checkout</code>) prices the cart from its catalogue and reports the order to the order webhook with
    its conversion key, then redirects to the confirmation page, which a reload does not order again.</p>
  </section>
</main>`,
    `
function cartTable(lines, body, total) {
  body.textContent = '';
  var cents = 0;
  lines.forEach(function (line) {
    var row = body.insertRow();
    row.insertCell().textContent = line.title + (line.variationName ? ' — ' + line.variationName : '');
    row.insertCell().textContent = String(line.quantity);
    row.insertCell().textContent = '$' + (line.priceCents * line.quantity / 100).toFixed(2);
    cents += line.priceCents * line.quantity;
  });
  total.textContent = '$' + (cents / 100).toFixed(2);
}
var form = document.getElementById('checkout-form');
var button = document.getElementById('place-order');
var identified = false;
function show() {
  var lines = window.demoCart.read();
  cartTable(lines, document.getElementById('checkout-lines'), document.getElementById('checkout-total'));
  // The colour is the part of the line's key after the product id.
  form.elements.items.value = JSON.stringify(lines.map(function (line) { return { productId: line.productId, colorId: String(line.key).split(':')[1], quantity: line.quantity }; }));
  document.getElementById('checkout-empty').hidden = lines.length > 0;
  button.disabled = !lines.length || !identified;
}
Visualizer.ready(function (sdk) {
  var identity = sdk.getIdentity();
  form.elements.visitorId.value = identity.visitorId;
  form.elements.sessionId.value = identity.sessionId;
  identified = true;
  show();
});
// Should the SDK never load (blocked), the order is still placed, only not attributed.
setTimeout(function () { identified = true; show(); }, 3000);
// Back from the confirmation page the cart is empty: the page from the back/forward cache must say so.
window.addEventListener('pageshow', show);
// One press, one order.
form.addEventListener('submit', function () { setTimeout(function () { button.disabled = true; }); });
show();
`,
  );
}

export function confirmationPage(
  context: PageContext,
  order: ConversionRecord | null,
  products: DemoProduct[],
  lines: OrderLine[] | null = null,
): string {
  if (!order) {
    return layout(
      'Order',
      context,
      `<main><h1>No such order</h1><p>Go to the <a href="/demo">shop</a> and check out to get here.</p></main>`,
    );
  }
  const titles = Object.fromEntries(products.map((product) => [product.id, product.title]));
  // What was bought, colours included, when this process placed the order; else the recorded products.
  const shown =
    lines?.map((line) => ({ ...line, name: line.colorName ? `${line.title} — ${line.colorName}` : line.title })) ??
    order.items.map((item) => ({ ...item, name: titles[item.productId] ?? item.productId }));
  const rows = shown
    .map(
      (line) => `<tr><td>${escapeHtml(line.name)}</td><td>${line.quantity}</td><td>${money(line.totalCents)}</td></tr>`,
    )
    .join('');
  const items = order.items.map(({ productId, quantity, priceCents, totalCents }) => ({
    productId,
    quantity,
    priceCents,
    totalCents,
  }));
  const attribution = order.attribution
    ? `attributed to the visualization <code>${escapeHtml(order.attribution.generationId)}</code> (${money(order.attribution.attributedRevenueCents)} of it)`
    : 'not attributed to a visualization';
  return layout(
    'Thank you',
    context,
    `<main class="steps">
  <h1>Thank you for your order!</h1>
  <p>Order <code id="order-id">${escapeHtml(order.orderId)}</code></p>
  <table><thead><tr><th>Item</th><th>Qty</th><th>Total</th></tr></thead><tbody id="order-lines">${rows}</tbody>
  <tfoot><tr><th colspan="2">Total</th><th id="order-total">${money(order.totalCents)}</th></tr></tfoot></table>
  <section>
    <h2>1 · Reported by the shop's server</h2>
    <p>The checkout form carried <code>visitorId</code> and <code>sessionId</code> from <code>Visualizer.getIdentity()</code>;
    the shop's server (<code>POST /demo/checkout</code>) called the order webhook with them and its conversion key.
    Visualizer recorded the order, <span id="order-attribution">${attribution}</span>.</p>
  </section>
  <section>
    <h2>2 · Reported by the browser</h2>
    <p><code>Visualizer.track('$conversion', { orderId, totalCents, currency, items })</code> reports the same order, counted once;
    it is sent once per browser session: reload this page and nothing is sent again.</p>
    <p id="track-status" role="status">Reporting…</p>
  </section>
</main>
<script type="application/json" id="order-data">${scriptJson({ orderId: order.orderId, totalCents: order.totalCents, currency: order.currency, items })}</script>`,
    `
var order = JSON.parse(document.getElementById('order-data').textContent);
// The first view of this order in this tab empties the cart it was placed from; later views leave a new cart alone.
var placedKey = 'demo.placed.' + order.orderId;
var seen;
try { seen = sessionStorage.getItem(placedKey); } catch (e) { seen = null; }
if (!seen) {
  try { sessionStorage.setItem(placedKey, '1'); } catch (e) {}
  window.demoCart.write([]);
  renderCart();
}
var trackStatus = document.getElementById('track-status');
Visualizer.track('$conversion', order).then(function (ok) {
  trackStatus.textContent = ok ? 'Reported with Visualizer.track().' : 'Visualizer.track() did not report it (see the console).';
  trackStatus.className = ok ? 'ok' : 'bad';
});
`,
  );
}

export function orderNotPlacedPage(
  context: PageContext,
  result: { status: number; request: unknown; answer: unknown },
): string {
  return layout(
    'Order not placed',
    context,
    `<main class="steps">
  <h1 id="order-result" class="bad">Order not placed</h1>
  <p>The demo server called <code>POST ${escapeHtml(context.base)}/api/webhooks/orders</code> with the shop's conversion key
  and got <strong>${result.status || 'no answer'}</strong>:</p>
  <pre id="webhook-answer">${escapeHtml(JSON.stringify(result.answer, null, 2))}</pre>
  <details><summary>Request body</summary><pre>${escapeHtml(JSON.stringify(result.request, null, 2))}</pre></details>
  <p><a class="btn" href="/demo/checkout">Back to the checkout</a></p>
</main>`,
  );
}
