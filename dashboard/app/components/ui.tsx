import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
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
 * A table that scrolls sideways on a narrow screen. The scrolling box is focusable and named, so
 * keyboard users can scroll it too.
 */
export function ScrollTable({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="table-scroll" tabIndex={0} role="region" aria-label={label}>
      {children}
    </div>
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
