import type { ProductData, ProductImage, WidgetContext } from '../shared/types.ts';
import { WidgetApiError, type Generation, type WidgetApi, type WidgetConfig } from './api.ts';
import { explain, logProblem, type Next } from './explain.ts';
import { PhotoError, photoToDataUri } from './photo.ts';
import { cartProduct } from './product-data.ts';
import { absoluteUrl } from './url-rules.ts';
import { styles } from './styles.ts';

/** Polling cadence and overall patience (the spec: poll every 1–2 s, with an overall timeout). */
export const pollIntervalMs = 1500;
export const renderTimeoutMs = 120_000;

const copy = {
  'virtual-try-on': {
    title: 'Virtual try-on',
    tips: 'Use a well-lit photo of yourself facing the camera — waist-up or full-body works best.',
    capture: 'user',
    alt: 'on you',
    done: 'Your try-on is ready',
  },
  'room-visualizer': {
    title: 'See it in your room',
    tips: 'Take a photo of the room where it will go, in good light, from a few steps back.',
    capture: 'environment',
    alt: 'in your room',
    done: 'Here it is in your room',
  },
} as const;

const closeIcon = '<svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true"><path d="M6 6l12 12M18 6L6 18" stroke="currentColor" stroke-width="2.2" stroke-linecap="round"/></svg>';
const cameraIcon = '<svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true" fill="none" stroke="currentColor" stroke-width="2"><path d="M4 8h3l2-3h6l2 3h3v11H4z"/><circle cx="12" cy="13" r="3.5"/></svg>';

const template = `
<div class="backdrop" part="backdrop">
  <div class="dialog" role="dialog" aria-modal="true" aria-labelledby="vz-title" aria-describedby="vz-subtitle" tabindex="-1">
    <header>
      <div class="titles"><h2 id="vz-title"></h2><p class="subtitle" id="vz-subtitle"></p></div>
      <button type="button" class="close" aria-label="Close">${closeIcon}</button>
    </header>
    <div class="body">
      <section class="pick">
        <div class="product"><img class="product-img" alt=""><div><strong class="product-title"></strong><span>Your photo + this product</span></div></div>
        <fieldset class="variations" hidden><legend>Choose a variation</legend><div class="swatches"></div></fieldset>
        <p class="tips"></p>
        <div class="actions">
          <label class="button primary file wide">${cameraIcon}<span>Choose a photo</span><input type="file" accept="image/*" class="photo-input"></label>
          <label class="button file wide camera" hidden><span>Take a photo</span><input type="file" accept="image/*" class="camera-input"></label>
        </div>
        <p class="note">Your photo is only used to create this image.</p>
      </section>
      <section class="working" hidden>
        <div class="stage"><img class="preview" alt="Your photo"><div class="spinner-wrap"><div class="spinner"></div></div></div>
        <p class="status"></p>
        <p class="elapsed"></p>
        <div class="progress"><div></div></div>
      </section>
      <section class="result" hidden>
        <div class="stage"><picture><source type="image/webp" class="result-webp"><img class="result-img"></picture></div>
        <div class="side">
          <h3 class="result-heading"></h3>
          <p class="result-product"></p>
          <div class="cart">
            <label class="qty">Quantity<input type="number" class="qty-input" min="1" max="99" step="1" value="1" inputmode="numeric"></label>
            <button type="button" class="button primary add">Add to cart</button>
          </div>
          <p class="message" role="status"></p>
          <div class="actions after">
            <button type="button" class="button view-cart" hidden>View cart</button>
            <button type="button" class="button checkout" hidden>Checkout</button>
          </div>
          <div class="footer-row"><button type="button" class="link again">Try another photo</button></div>
        </div>
      </section>
      <section class="error" hidden>
        <div class="error-box"><p class="error-text" role="alert"></p></div>
        <div class="actions">
          <button type="button" class="button primary retry">Try again</button>
          <button type="button" class="link other">Choose another photo</button>
        </div>
      </section>
      <p class="visually-hidden live" aria-live="polite"></p>
    </div>
  </div>
</div>`;

type Section = 'pick' | 'working' | 'result' | 'error';

const focusableSelector = 'button, input, select, textarea, a[href], [tabindex]:not([tabindex="-1"])';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Overlay {
  close(): void;
}

/** Builds and shows the dialog. Everything lives in a shadow root, so page CSS neither leaks in nor out. */
export function openOverlay(context: WidgetContext, api: WidgetApi, config: WidgetConfig | Error, data: ProductData, onClosed: () => void): Overlay {
  const host = document.createElement('visualizer-widget');
  const root = host.attachShadow({ mode: 'open' });
  root.innerHTML = `<style>${styles}</style>${template}`;
  const $ = <T extends HTMLElement>(selector: string) => root.querySelector(selector) as T;

  const mode = config instanceof Error ? 'virtual-try-on' : config.mode === 'room-visualizer' ? 'room-visualizer' : 'virtual-try-on';
  const text = copy[mode];
  const images: ProductImage[] = data.productImages || [];
  let variation: ProductImage | null = images[0] || null;
  let photo: string | null = null;
  let run = 0;
  let closed = false;
  let ticking: ReturnType<typeof setInterval> | undefined;
  let retryable = false;
  let adding = false;

  const dialog = $<HTMLDivElement>('.dialog');
  const sections: Record<Section, HTMLElement> = { pick: $('.pick'), working: $('.working'), result: $('.result'), error: $('.error') };
  const live = $<HTMLParagraphElement>('.live');
  const productImg = $<HTMLImageElement>('.product-img');
  const photoInput = $<HTMLInputElement>('.photo-input');
  const cameraInput = $<HTMLInputElement>('.camera-input');
  const preview = $<HTMLImageElement>('.preview');
  const status = $<HTMLParagraphElement>('.status');
  const elapsed = $<HTMLParagraphElement>('.elapsed');
  const resultImg = $<HTMLImageElement>('.result-img');
  const resultWebp = $<HTMLSourceElement>('.result-webp');
  const quantityInput = $<HTMLInputElement>('.qty-input');
  const addButton = $<HTMLButtonElement>('.add');
  const message = $<HTMLParagraphElement>('.message');
  const viewCart = $<HTMLButtonElement>('.view-cart');
  const checkout = $<HTMLButtonElement>('.checkout');
  const errorText = $<HTMLParagraphElement>('.error-text');
  const retryButton = $<HTMLButtonElement>('.retry');

  $('#vz-title').textContent = text.title;
  $('#vz-subtitle').textContent = data.productTitle;
  $('.product-title').textContent = data.productTitle;
  $('.tips').textContent = text.tips;
  productImg.src = variation ? variation.src : data.productImage;
  cameraInput.setAttribute('capture', text.capture);
  // Phones get a second button that opens the camera directly; `capture` would hide the gallery.
  $('.camera').hidden = !(window.matchMedia && window.matchMedia('(pointer: coarse)').matches);
  if (!data.onAddToCart) $('.cart').hidden = true;
  viewCart.hidden = !data.onViewCart;
  checkout.hidden = !data.onCheckout;

  if (images.length) {
    $('.variations').hidden = false;
    const swatches = $('.swatches');
    images.forEach((image, index) => {
      const label = document.createElement('label');
      label.className = 'swatch';
      const radio = document.createElement('input');
      radio.type = 'radio';
      radio.name = 'variation';
      radio.checked = index === 0;
      radio.setAttribute('aria-label', image.alt || `Variation ${index + 1}`);
      radio.addEventListener('change', () => {
        variation = image;
        productImg.src = image.src;
      });
      const thumb = document.createElement('img');
      thumb.src = image.src;
      thumb.alt = '';
      label.append(radio, thumb);
      swatches.appendChild(label);
    });
  }

  function announce(words: string) {
    live.textContent = words;
  }

  function focusables(): HTMLElement[] {
    return Array.from(root.querySelectorAll<HTMLElement>(focusableSelector)).filter(
      (element) => !element.closest('[hidden]') && !(element as HTMLButtonElement).disabled,
    );
  }

  function show(section: Section, focus?: HTMLElement) {
    for (const name of Object.keys(sections) as Section[]) sections[name].hidden = name !== section;
    dialog.dataset.state = section;
    dialog.setAttribute('aria-busy', String(section === 'working'));
    (focus || dialog).focus();
  }

  function stopClock() {
    if (ticking) clearInterval(ticking);
    ticking = undefined;
  }

  function startClock() {
    stopClock();
    const started = Date.now();
    elapsed.textContent = '';
    ticking = setInterval(() => {
      const seconds = Math.round((Date.now() - started) / 1000);
      elapsed.textContent = seconds < 5 ? '' : `${seconds} s — most take under 30 s`;
    }, 1000);
  }

  /** Shows what went wrong; `next` overrides what the error itself offers (see `explain`). */
  function showError(error: unknown, next?: Next) {
    stopClock();
    let explained: { words: string; next: Next };
    if (error instanceof PhotoError) explained = { words: error.message, next: 'pick' };
    else if (error instanceof WidgetApiError) {
      logProblem(error);
      explained = explain(error);
    } else {
      console.error('[Visualizer]', error);
      explained = explain({ status: 0, code: 'unknown', message: String(error), param: null });
    }
    const words = explained.words;
    next = next || explained.next;
    retryable = next === 'retry' && !!photo;
    errorText.textContent = words;
    retryButton.hidden = !retryable;
    $('.other').hidden = next === 'none';
    show('error', retryable ? retryButton : next === 'none' ? $('.close') : $('.other'));
    announce(words);
  }

  async function showResult(generation: Generation) {
    const variants = generation.imageVariants!;
    const variant = window.innerWidth < 600 ? variants.card : variants.detail;
    resultWebp.srcset = /\.jpe?g$/i.test(variant.url) ? variant.url.replace(/\.jpe?g$/i, '.webp') : '';
    resultImg.alt = `${data.productTitle} ${text.alt}`;
    $('.result-heading').textContent = text.done;
    $('.result-product').textContent = data.productTitle + (variation && variation.alt ? ` — ${variation.alt}` : '');
    resultImg.dataset.generationId = generation.id;
    resultImg.src = variant.url;
    try {
      await Promise.race([resultImg.decode(), sleep(10_000)]);
    } catch {
      // shown anyway; the browser keeps trying
    }
    stopClock();
    message.textContent = '';
    message.className = 'message';
    quantityInput.value = '1';
    show('result', data.onAddToCart ? addButton : $('.again'));
    announce('Your visualization is ready.');
  }

  async function submit() {
    if (!photo) return show('pick', photoInput);
    const token = ++run;
    const stale = () => token !== run || closed;
    preview.src = photo;
    status.textContent = 'Uploading your photo…';
    show('working');
    announce('Uploading your photo.');
    startClock();
    try {
      if (config instanceof Error) throw config;
      const identity = context.identity();
      const product: { productId: string | number; productTitle: string; imageUrl: string; productUrl?: string } = {
        productId: data.productId,
        productTitle: data.productTitle,
        imageUrl: absoluteUrl(variation ? variation.src : data.productImage) ?? data.productImage,
      };
      if (data.productUrl) product.productUrl = absoluteUrl(data.productUrl) ?? data.productUrl;
      let generation = await api.create({ visitorId: identity.visitorId, sessionId: identity.sessionId, image: photo, products: [product] });
      if (stale()) return;
      status.textContent = mode === 'room-visualizer' ? 'Placing it in your room…' : 'Creating your try-on…';
      announce('Creating your visualization. This usually takes less than 30 seconds.');
      const deadline = Date.now() + renderTimeoutMs;
      while (generation.status === 'processing') {
        await sleep(pollIntervalMs);
        if (stale()) return;
        if (Date.now() > deadline) throw new WidgetApiError('timed out', 0, 'timeout');
        try {
          generation = await api.get(generation.id, identity.visitorId);
        } catch (error) {
          // The network or the server hiccupped: keep polling until the deadline.
          if (!(error instanceof WidgetApiError) || !(error.status === 0 || error.status === 429 || error.status >= 500)) throw error;
        }
        if (stale()) return;
      }
      if (generation.status !== 'complete' || !generation.imageVariants) {
        const failure = generation.error || { code: 'render_failed', message: 'failed' };
        throw new WidgetApiError(failure.message, 0, failure.code);
      }
      await showResult(generation);
    } catch (error) {
      if (stale()) return;
      showError(error);
    }
  }

  async function takePhoto(input: HTMLInputElement) {
    const file = input.files && input.files[0];
    if (!file) return;
    const token = ++run;
    status.textContent = 'Preparing your photo…';
    preview.removeAttribute('src');
    show('working');
    try {
      photo = await photoToDataUri(file);
    } catch (error) {
      if (token !== run || closed) return;
      photo = null;
      return showError(error instanceof PhotoError ? error : new PhotoError('This file could not be read as a photo. Please choose a JPEG or PNG photo.'), 'pick');
    } finally {
      input.value = ''; // the same file can be chosen again
    }
    if (token === run && !closed) void submit();
  }

  async function addToCart() {
    if (adding || !data.onAddToCart) return;
    const quantity = Number(quantityInput.value);
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > 99) {
      message.className = 'message bad';
      message.textContent = 'Enter a quantity from 1 to 99.';
      quantityInput.focus();
      return;
    }
    adding = true;
    addButton.setAttribute('aria-disabled', 'true');
    message.className = 'message';
    message.textContent = 'Adding to cart…';
    let result: { success?: boolean; error?: string } | void;
    try {
      result = await data.onAddToCart(cartProduct(data), quantity, variation);
    } catch (error) {
      console.error('[Visualizer] onAddToCart threw', error);
      result = { success: false };
    }
    adding = false;
    addButton.removeAttribute('aria-disabled');
    if (closed) return;
    if (result && result.success === false) {
      message.className = 'message bad';
      message.textContent = (typeof result.error === 'string' && result.error) || 'Could not add this to your cart. Please try again.';
    } else {
      message.className = 'message ok';
      message.textContent = quantity > 1 ? `Added ${quantity} to your cart.` : 'Added to your cart.';
    }
  }

  const previousFocus = document.activeElement as HTMLElement | null;
  const previousOverflow = document.documentElement.style.overflow;

  function onKeydown(event: KeyboardEvent) {
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
      return;
    }
    if (event.key !== 'Tab') return;
    const list = focusables();
    if (!list.length) return event.preventDefault();
    const first = list[0]!;
    const last = list[list.length - 1]!;
    const active = root.activeElement as HTMLElement | null;
    const inside = !!active && list.indexOf(active) >= 0;
    if (event.shiftKey && (!inside || active === first)) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && (!inside || active === last)) {
      event.preventDefault();
      first.focus();
    }
  }

  /** Focus that escapes the dialog (a page script, a click outside) is brought back. */
  function onFocusIn(event: FocusEvent) {
    if (event.target !== host && !closed) (focusables()[0] || dialog).focus();
  }

  function close() {
    if (closed) return;
    closed = true;
    run++;
    stopClock();
    document.removeEventListener('focusin', onFocusIn, true);
    host.remove();
    document.documentElement.style.overflow = previousOverflow;
    if (previousFocus && previousFocus.isConnected && typeof previousFocus.focus === 'function') previousFocus.focus();
    onClosed();
  }

  dialog.addEventListener('keydown', onKeydown);
  $('.close').addEventListener('click', close);
  $('.backdrop').addEventListener('click', (event) => {
    // A click beside the dialog closes it, except while a render is under way (credits are spent).
    if (event.target === event.currentTarget && sections.working.hidden) close();
  });
  photoInput.addEventListener('change', () => void takePhoto(photoInput));
  cameraInput.addEventListener('change', () => void takePhoto(cameraInput));
  addButton.addEventListener('click', () => void addToCart());
  $('.again').addEventListener('click', () => show('pick', photoInput));
  $('.other').addEventListener('click', () => show('pick', photoInput));
  retryButton.addEventListener('click', () => void submit());
  viewCart.addEventListener('click', () => {
    close();
    data.onViewCart!();
  });
  checkout.addEventListener('click', () => {
    close();
    data.onCheckout!();
  });

  document.body.appendChild(host);
  document.documentElement.style.overflow = 'hidden';
  document.addEventListener('focusin', onFocusIn, true);
  if (config instanceof Error) showError(config, 'none');
  else show('pick', photoInput);
  return { close };
}
