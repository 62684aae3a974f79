/** The widget's stylesheet, scoped by its shadow root. Theme with `visualizer-widget { --vz-accent: … }`. */
export const styles = `
:host { all: initial; }
:host, * { box-sizing: border-box; }
.backdrop {
  --accent: var(--vz-accent, #1f2937);
  --accent-text: var(--vz-accent-text, #fff);
  --radius: var(--vz-radius, 14px);
  position: fixed; inset: 0; z-index: 2147483000;
  display: flex; align-items: center; justify-content: center;
  padding: 24px; background: rgba(17, 24, 39, 0.55);
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: #111827; -webkit-font-smoothing: antialiased;
  animation: vz-fade 0.15s ease-out;
}
.dialog {
  position: relative; display: flex; flex-direction: column;
  width: min(560px, 100%); max-height: calc(100vh - 48px); overflow: auto;
  background: #fff; border-radius: var(--radius);
  box-shadow: 0 24px 64px rgba(0, 0, 0, 0.28);
  outline: none;
}
header { display: flex; align-items: flex-start; gap: 12px; padding: 20px 20px 12px; border-bottom: 1px solid #f0f0f3; }
header .titles { flex: 1; min-width: 0; }
h2 { margin: 0; font-size: 19px; font-weight: 650; letter-spacing: -0.01em; }
.subtitle { margin: 2px 0 0; color: #6b7280; font-size: 14px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.close {
  flex: none; width: 36px; height: 36px; border: 0; border-radius: 50%;
  background: #f3f4f6; color: #374151; cursor: pointer; display: grid; place-items: center;
}
.close:hover { background: #e5e7eb; }
.body { padding: 18px 20px 22px; }
section[hidden], [hidden] { display: none !important; }
.product { display: flex; gap: 14px; align-items: center; margin-bottom: 16px; }
.product img { width: 72px; height: 72px; object-fit: cover; border-radius: 10px; background: #f3f4f6; flex: none; }
.product strong { display: block; font-weight: 600; }
.product span { color: #6b7280; font-size: 14px; }
fieldset { border: 0; margin: 0 0 16px; padding: 0; }
legend { font-weight: 600; font-size: 14px; margin-bottom: 8px; padding: 0; }
.swatches { display: flex; flex-wrap: wrap; gap: 8px; }
.swatch { position: relative; }
.swatch input { position: absolute; opacity: 0; width: 1px; height: 1px; }
.swatch img { display: block; width: 56px; height: 56px; object-fit: cover; border-radius: 10px; border: 2px solid #e5e7eb; cursor: pointer; background: #f9fafb; }
.swatch input:checked + img { border-color: var(--accent); box-shadow: 0 0 0 2px #fff inset; }
.swatch input:focus-visible + img { outline: 3px solid #93c5fd; outline-offset: 2px; }
.tips { margin: 0 0 16px; padding: 12px 14px; border-radius: 10px; background: #f9fafb; color: #4b5563; font-size: 14px; }
.actions { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; }
.button {
  position: relative; display: inline-flex; align-items: center; justify-content: center; gap: 8px;
  min-height: 44px; padding: 0 18px; border-radius: 999px; border: 1px solid #d1d5db;
  background: #fff; color: #111827; font: inherit; font-weight: 600; cursor: pointer; text-decoration: none;
}
.button:hover { background: #f9fafb; }
.button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); }
.button.primary:hover { filter: brightness(1.12); }
.button[disabled] { opacity: 0.55; cursor: progress; }
.button.wide { width: 100%; }
.file input { position: absolute; inset: 0; width: 100%; height: 100%; opacity: 0; cursor: pointer; }
.file:focus-within, .button:focus-visible, .close:focus-visible, .link:focus-visible, input[type=number]:focus-visible {
  outline: 3px solid #93c5fd; outline-offset: 2px;
}
.link { border: 0; background: none; padding: 6px 2px; color: #374151; font: inherit; font-size: 14px; text-decoration: underline; cursor: pointer; }
.note { margin: 12px 0 0; color: #9ca3af; font-size: 12.5px; text-align: center; }
.stage { position: relative; border-radius: 12px; overflow: hidden; background: #f3f4f6; aspect-ratio: 4 / 5; max-height: 60vh; margin: 0 auto; display: grid; place-items: center; }
.stage img { width: 100%; height: 100%; object-fit: contain; display: block; }
.working .stage img { filter: blur(2px) saturate(0.7); opacity: 0.7; }
.spinner-wrap { position: absolute; inset: 0; display: grid; place-items: center; }
.spinner { width: 54px; height: 54px; border-radius: 50%; border: 5px solid rgba(255,255,255,0.6); border-top-color: var(--accent); animation: vz-spin 0.9s linear infinite; }
.status { text-align: center; margin: 14px 0 4px; font-weight: 600; }
.elapsed { text-align: center; margin: 0; color: #6b7280; font-size: 13px; }
.progress { height: 4px; border-radius: 4px; background: #e5e7eb; overflow: hidden; margin-top: 12px; }
.progress div { height: 100%; width: 40%; background: var(--accent); border-radius: 4px; animation: vz-slide 1.3s ease-in-out infinite; }
.dialog[data-state=result] { width: min(880px, 100%); }
.result .stage { aspect-ratio: auto; background: #fafafa; max-height: calc(100vh - 200px); }
.ai-label {
  position: absolute; left: 10px; bottom: 10px; margin: 0; max-width: calc(100% - 20px);
  padding: 4px 10px; border-radius: 999px; background: rgba(17, 24, 39, 0.78); color: #fff;
  font-size: 12.5px; font-weight: 600; line-height: 1.4;
}
.result-heading { margin: 16px 0 2px; font-size: 17px; font-weight: 650; }
.result-product { margin: 0; color: #6b7280; font-size: 14px; }
@media (min-width: 760px) {
  .result:not([hidden]) { display: grid; grid-template-columns: minmax(0, 1.3fr) minmax(0, 1fr); gap: 24px; align-items: start; }
  .result-heading { margin-top: 4px; }
  .result .footer-row { justify-content: flex-start; }
}
.cart { display: flex; gap: 10px; align-items: flex-end; margin-top: 16px; flex-wrap: wrap; }
.qty { display: flex; flex-direction: column; gap: 4px; font-size: 13px; color: #4b5563; font-weight: 600; }
.qty input { width: 76px; min-height: 44px; border: 1px solid #d1d5db; border-radius: 10px; padding: 0 10px; font: inherit; font-size: 15px; color: #111827; }
.cart .add { flex: 1; }
.message { margin: 10px 0 0; font-size: 14px; min-height: 1.45em; }
.message.ok { color: #047857; }
.message.bad, .error-text { color: #b91c1c; }
.after { margin-top: 10px; }
.error-box { padding: 16px; border-radius: 12px; background: #fef2f2; border: 1px solid #fecaca; margin-bottom: 16px; }
.error-text { margin: 0; font-weight: 600; }
.footer-row { display: flex; justify-content: center; margin-top: 12px; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@keyframes vz-spin { to { transform: rotate(360deg); } }
@keyframes vz-fade { from { opacity: 0; } }
@keyframes vz-slide { 0% { transform: translateX(-100%); } 100% { transform: translateX(250%); } }
@media (max-width: 599px) {
  .backdrop { padding: 0; align-items: stretch; }
  .dialog { width: 100%; max-height: none; border-radius: 0; }
  .stage { max-height: 55vh; }
}
@media (prefers-reduced-motion: reduce) {
  .backdrop, .spinner, .progress div { animation: none; }
}
`;
