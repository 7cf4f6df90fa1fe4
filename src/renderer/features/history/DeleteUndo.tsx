/**
 * Undo for a delete made in the UI: right after a delete, a toast says what went and offers Undo
 * for 10 seconds (also Ctrl/Cmd+Z while the focus is not in a text field or the editor). Undo
 * takes back the delete's whole change (a directory's files all come back) through
 * `history.undo`; if something is at that path again (an agent wrote there meanwhile) the toast
 * says so as an alert and nothing is written.
 *
 * Which version to undo: the delete just recorded for that path, asked from `history.deleted`
 * right after the delete answered; only a person's delete recorded since the delete was asked for
 * counts (never an older delete of the same path). When none is found (the history could not
 * record it) the toast says it cannot be undone here.
 */
import { useQueryClient } from '@tanstack/react-query';
import { RotateCcw } from 'lucide-react';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import { errorMessage, useApi } from '../../api/api-context';
import { Toast } from './Toast';

/** How long the Undo toast stays after a delete. */
export const UNDO_TOAST_MS = 10_000;
/** How long the toast saying the undo worked stays. */
const DONE_TOAST_MS = 5_000;
/** A delete recorded this long before it was asked for is not the one just made (clocks of one machine, a margin). */
const CLOCK_MARGIN_MS = 5_000;

type ToastState =
  | { kind: 'deleted'; key: number; text: string; versionId: string | null }
  | { kind: 'undoing'; key: number; text: string; versionId: string }
  | { kind: 'done'; key: number; text: string; focus: boolean }
  | { kind: 'failed'; key: number; text: string; focus: boolean };

export interface DeleteUndo {
  /** Call once a delete of `path` succeeded (`askedAt`: Date.now() before it was asked for). */
  deleted(path: string, what: string, askedAt: number): Promise<void>;
  /** The toast to render (null when none shows). */
  readonly toast: ReactNode;
}

function typing(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('input, textarea, select, [contenteditable="true"], .cm-editor') !== null;
}

export function useDeleteUndo(workspaceId: string | null, onUndone?: (paths: readonly string[]) => void): DeleteUndo {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const [toast, setToast] = useState<ToastState | null>(null);
  const seq = useRef(0);
  const boxRef = useRef<HTMLDivElement>(null);
  const undone = useRef(onUndone);
  undone.current = onUndone;

  const deleted = useCallback(
    async (path: string, what: string, askedAt: number) => {
      const key = ++seq.current;
      let versionId: string | null = null;
      try {
        const { versions } = await client.history.deleted({ workspaceId, path, scope: null, limit: 500 });
        const mine = versions.find((v) => v.actor === 'person' && (v.path === path || v.path.startsWith(`${path}/`)) && Date.parse(v.at) >= askedAt - CLOCK_MARGIN_MS);
        versionId = mine?.id ?? null;
      } catch {
        // The history could not be asked: the toast says the delete cannot be undone here.
      }
      if (seq.current !== key) return; // another delete came after
      setToast({
        kind: 'deleted',
        key,
        text: versionId ? `Deleted ${what}.` : `Deleted ${what}. The history did not record it, so it cannot be undone here.`,
        versionId,
      });
    },
    [client, workspaceId],
  );

  const undo = useCallback(
    async (t: Extract<ToastState, { kind: 'deleted' }>) => {
      if (!t.versionId) return;
      const focus = boxRef.current?.contains(document.activeElement) ?? false;
      setToast({ kind: 'undoing', key: t.key, text: t.text, versionId: t.versionId });
      let next: ToastState;
      try {
        const result = await client.history.undo({ workspaceId, id: t.versionId });
        if (result.status === 'ok') {
          next = { kind: 'done', key: ++seq.current, text: `${result.message}`, focus };
          void queryClient.invalidateQueries({ queryKey: orpc.memory.list.key() });
          void queryClient.invalidateQueries({ queryKey: orpc.history.key() });
          undone.current?.(result.paths);
        } else {
          next = { kind: 'failed', key: ++seq.current, text: `Could not undo the delete: ${result.message}`, focus };
        }
      } catch (err) {
        next = { kind: 'failed', key: ++seq.current, text: `Could not undo the delete: ${errorMessage(err)}`, focus };
      }
      setToast((prev) => (prev?.kind === 'undoing' && prev.key === t.key ? next : prev));
    },
    [client, orpc, queryClient, workspaceId],
  );

  // Ctrl/Cmd+Z undoes the delete while its toast shows (not while typing: that is the text's undo).
  useEffect(() => {
    if (toast?.kind !== 'deleted' || !toast.versionId) return;
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || e.key.toLowerCase() !== 'z' || typing(e.target)) return;
      e.preventDefault();
      void undo(toast);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [toast, undo]);

  const dismiss = useCallback(() => setToast(null), []);

  let node: ReactNode = null;
  if (toast) {
    const action =
      (toast.kind === 'deleted' && toast.versionId) || toast.kind === 'undoing' ? (
        <button
          type="button"
          className="btn toast-action"
          aria-keyshortcuts="Control+Z Meta+Z"
          title="Undo (Ctrl+Z)"
          disabled={toast.kind === 'undoing'}
          onClick={() => toast.kind === 'deleted' && void undo(toast)}
        >
          <RotateCcw size={14} aria-hidden /> Undo
        </button>
      ) : undefined;
    node = (
      <div ref={boxRef} className="toast-region">
        <Toast
          key={toast.key}
          message={toast.text}
          tone={toast.kind === 'failed' ? 'alert' : 'status'}
          action={action}
          durationMs={toast.kind === 'failed' || toast.kind === 'undoing' ? null : toast.kind === 'done' ? DONE_TOAST_MS : UNDO_TOAST_MS}
          onDismiss={dismiss}
          takeFocus={(toast.kind === 'done' || toast.kind === 'failed') && toast.focus}
        />
      </div>
    );
  }
  return { deleted, toast: node };
}
