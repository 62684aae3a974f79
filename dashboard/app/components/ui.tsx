import type { ComponentChildren } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { dateTime } from '../format.ts';
import { useNotify } from './notices.tsx';

/** The page's heading, focused when the page opens so keyboard and screen reader users start there. */
export function PageTitle({ children }: { children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <h1 tabIndex={-1} ref={heading}>
      {children}
    </h1>
  );
}

export function ErrorText({ error }: { error: string | null | undefined }) {
  if (!error) return null;
  return (
    <p class="error" role="alert">
      {error}
    </p>
  );
}

export function Time({ iso }: { iso: string | null | undefined }) {
  return iso ? <time dateTime={iso}>{dateTime(iso)}</time> : <>—</>;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

/** Copies `text`; says so in the live region (or that it could not, so the reader selects it). */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const notify = useNotify();
  return (
    <button
      type="button"
      class="secondary small"
      onClick={async () =>
        notify((await copyText(text)) ? 'Copied to the clipboard.' : 'Copying failed: select the text and copy it.')
      }
    >
      {label}
    </button>
  );
}

/** A secret shown once (a new key, a signing secret, an invitation link), with a copy button. */
export function ShownOnce({ label, value, onDone }: { label: string; value: string; onDone: () => void }) {
  return (
    <section class="shown-once" aria-label={label}>
      <p>
        <strong>{label}</strong> — shown only now: copy it and keep it somewhere safe.
      </p>
      <div class="copy-row">
        <code class="secret" data-testid="shown-once-value">
          {value}
        </code>
        <CopyButton text={value} />
      </div>
      <button type="button" class="secondary small" onClick={onDone}>
        Done
      </button>
    </section>
  );
}

export function LoadMore({ hasMore, loading, onClick }: { hasMore: boolean; loading: boolean; onClick: () => void }) {
  if (loading)
    return (
      <p class="muted" aria-live="polite">
        Loading…
      </p>
    );
  if (!hasMore) return null;
  return (
    <button type="button" class="secondary" onClick={onClick}>
      Load more
    </button>
  );
}

/** A destructive action asked twice, in place (no modal dialog to trap focus in). */
export function ConfirmButton({
  label,
  confirmLabel,
  onConfirm,
  disabled,
}: {
  label: string;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  disabled?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) confirm.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="secondary small" disabled={disabled} onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  }
  return (
    <span class="confirm">
      <button
        type="button"
        class="danger small"
        ref={confirm}
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirmLabel}
      </button>
      <button type="button" class="secondary small" onClick={() => setAsking(false)}>
        Cancel
      </button>
    </span>
  );
}

/** A status as a word plus a shape, so it does not rest on colour alone. */
export function StatusBadge({ status }: { status: string }) {
  const mark = /^(complete|succeeded|enabled|active)$/.test(status)
    ? '✓'
    : /^(failed|disabled|revoked)$/.test(status)
      ? '✕'
      : '…';
  return (
    <span class={`badge badge-${status}`}>
      <span aria-hidden="true">{mark} </span>
      {status}
    </span>
  );
}

/** Runs a form's action, showing its error; the action's own result decides what happens next. */
export function useAction() {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (failure) {
      setError(failure instanceof Error ? failure.message : String(failure));
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, run, setError };
}

/**
 * A table, inside a focusable, named box. On a narrow screen each row becomes a card and each cell
 * shows its column's header before it (`data-label`, copied here from the `<thead>` so pages need
 * not repeat it); `grid` keeps a table of figures a table, scrolling inside its box instead.
 */
export function ScrollTable({
  label,
  grid = false,
  children,
}: {
  label: string;
  grid?: boolean;
  children: ComponentChildren;
}) {
  const box = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element || grid) return;
    const labelAll = () => {
      for (const table of Array.from(element.querySelectorAll('table'))) labelCells(table);
    };
    labelAll();
    // Rows arrive and change after this first render (loading, "Load more", an edited row).
    const observer = new MutationObserver(labelAll);
    observer.observe(element, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [grid]);
  return (
    <div ref={box} class={grid ? 'table-scroll grid' : 'table-scroll'} tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
  );
}

/**
 * Labels each body cell with its column's header (none for a column whose header is visually
 * hidden, such as the actions), and states the table roles outright: rows shown as blocks lose
 * them in some browsers.
 */
function labelCells(table: HTMLTableElement) {
  table.setAttribute('role', 'table');
  const headers = Array.from(table.tHead?.rows[0]?.cells ?? []).map((header) =>
    header.querySelector('.visually-hidden') ? '' : (header.textContent ?? '').trim(),
  );
  for (const group of [table.tHead, ...Array.from(table.tBodies)]) group?.setAttribute('role', 'rowgroup');
  for (const row of Array.from(table.rows)) {
    row.setAttribute('role', 'row');
    Array.from(row.cells).forEach((cell, index) => {
      const inHead = row.parentElement === table.tHead;
      cell.setAttribute('role', inHead ? 'columnheader' : cell.tagName === 'TH' ? 'rowheader' : 'cell');
      const header = headers[index];
      if (!inHead && header && cell.dataset.label !== header) cell.dataset.label = header;
    });
  }
}

/** An id longer than this shows as its start and end, `agen_0VcA…Z7rh`. */
const shortIdLength = 16;

/** `id` cut to its prefix, a few characters and its last four (unchanged if short already). */
export function shortId(id: string): string {
  if (id.length <= shortIdLength) return id;
  const start = id.indexOf('_') + 5;
  return `${id.slice(0, start)}…${id.slice(-4)}`;
}

/**
 * A long id shown shortened, with its copy button; the whole id stays in the title (on hover) and
 * for screen readers. With `href`, the shortened id is a link.
 */
export function ShortId({ id, href, label = 'Copy id' }: { id: string; href?: string; label?: string }) {
  const text = (
    <>
      <span aria-hidden="true">{shortId(id)}</span>
      <span class="visually-hidden">{id}</span>
    </>
  );
  return (
    <span class="short-id">
      {href ? (
        <a href={href} title={id}>
          <code>{text}</code>
        </a>
      ) : (
        <code title={id}>{text}</code>
      )}
      <CopyButton text={id} label={label} />
    </span>
  );
}

/** The words over every generated image, as the widget shows them to shoppers (EU AI Act, Article 50). */
export const aiLabel = 'Image generated by AI';

/** A generated image with its visible "generated by AI" label over it. */
export function GeneratedImage({ src, width, alt }: { src: string; width: number; alt: string }) {
  return (
    <span class="generated">
      <img src={src} width={width} alt={alt} loading="lazy" />
      <span class="ai-label">{aiLabel}</span>
    </span>
  );
}
