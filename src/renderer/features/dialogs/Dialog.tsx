/**
 * A modal dialog (role `dialog`, labelled by its title): focus moves into it on open and back to
 * where it was on close, Tab stays inside, Escape cancels. ConfirmDialog is the common case.
 * When what opened it is gone by the time it closes (a tree row drawn again, a row renamed or
 * deleted), the focus goes to the row with the same id if it is drawn again, else somewhere
 * sensible (focus.ts), never to <body>.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { focusIsLost, focusSomewhereSensible, treeRowElement } from './focus';
import { ErrorText } from '../../lib/ErrorText';

export interface DialogProps {
  title: string;
  onClose: () => void;
  children: ReactNode;
  /** Buttons, in order; the first focusable element gets focus unless `initialFocus` says otherwise. */
  footer?: ReactNode;
  wide?: boolean;
  /** An extra class on the dialog box (the command palette's look). */
  className?: string;
}

/** Gives the focus back to `before` (what had it when a dialog opened), or to its stand-in when it is gone. */
function returnFocus(before: HTMLElement | null, rowId: string | null): void {
  if (before?.isConnected) {
    before.focus();
    return;
  }
  const again = rowId === null ? null : treeRowElement(rowId);
  if (again) again.focus();
  else if (focusIsLost()) focusSomewhereSensible();
}

export function Dialog({ title, onClose, children, footer, wide, className }: DialogProps) {
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const rowId = before?.closest<HTMLElement>('[data-row-id]')?.dataset.rowId ?? null;
    const box = ref.current!;
    const first = box.querySelector<HTMLElement>('[data-autofocus]') ?? box.querySelector<HTMLElement>('input, textarea, select, button');
    first?.focus();
    return () => returnFocus(before === document.body ? null : before, rowId);
  }, []);
  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.stopPropagation();
      onClose();
    }
    if (e.key !== 'Tab') return;
    const items = [...ref.current!.querySelectorAll<HTMLElement>('input, textarea, select, button, [tabindex="0"]')].filter((el) => !el.hasAttribute('disabled'));
    if (items.length === 0) return;
    const first = items[0]!;
    const last = items[items.length - 1]!;
    if (e.shiftKey && document.activeElement === first) {
      e.preventDefault();
      last.focus();
    } else if (!e.shiftKey && document.activeElement === last) {
      e.preventDefault();
      first.focus();
    }
  };
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div ref={ref} className={['dialog', wide ? 'wide' : '', className ?? ''].filter(Boolean).join(' ')} role="dialog" aria-modal="true" aria-labelledby={id} onKeyDown={onKeyDown}>
        <h2 id={id}>{title}</h2>
        <div className="dialog-body">{children}</div>
        {footer && <div className="dialog-footer">{footer}</div>}
      </div>
    </div>
  );
}

export interface ConfirmDialogProps {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ title, children, confirmLabel, danger, busy, onConfirm, onCancel }: ConfirmDialogProps) {
  return (
    <Dialog
      title={title}
      onClose={onCancel}
      footer={
        <>
          <button type="button" className="btn" onClick={onCancel} data-autofocus>
            Cancel
          </button>
          <button type="button" className={danger ? 'btn danger' : 'btn primary'} onClick={onConfirm} disabled={busy}>
            {confirmLabel}
          </button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}

/** The end of a dialog's form: what failed (role `alert`), then Cancel and the submit button. */
export function FormActions({ error, submitLabel, disabled, onCancel }: { error: string | null; submitLabel: string; disabled: boolean; onCancel: () => void }) {
  return (
    <>
      <ErrorText>{error}</ErrorText>
      <div className="dialog-footer">
        <button type="button" className="btn" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="btn primary" disabled={disabled}>
          {submitLabel}
        </button>
      </div>
    </>
  );
}
