/**
 * Rename or move a file or directory within its scope (actor `user`). The field holds the full
 * virtual path with the base name selected (without `.md`, as VS Code does); the person may type a
 * full path or a path inside the scope. Before anything is sent the dialog says where the item
 * will land, or why it cannot (the path rules, another scope, an existing name: rename-target.ts).
 * Cairn never overwrites, and a directory moves with everything in it.
 */
import { useRef, useState } from 'react';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog, FormActions } from '../dialogs/Dialog';
import { baseNameRange, renameTarget } from './rename-target';
import type { Row } from './tree-model';

type Target = Extract<Row, { kind: 'dir' | 'file' }>;

export interface RenameDialogProps {
  workspaceId: string | null;
  target: Target;
  /** Whether a file or directory is at a virtual path now (an existing name is explained before submitting). */
  exists?: (path: string) => boolean;
  /** Why it cannot be renamed now (unsaved edits to it), or null. */
  blocked?: string | null;
  onClose: () => void;
  onRenamed: (from: string, to: string) => void;
}

export function RenameDialog({ workspaceId, target, exists, blocked = null, onClose, onRenamed }: RenameDialogProps) {
  const { client } = useApi();
  const [typed, setTyped] = useState(target.path);
  const action = useAction();
  const destination = renameTarget(typed, target, exists);
  // The base name is selected once, when the field first gets the focus (the dialog focuses it on open).
  const selectedOnce = useRef(false);
  const whereId = `rename-where-${target.id}`;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (!destination.ok || blocked) return;
    const to = destination.path;
    void action.run(async () => {
      const result = await client.memory.rename({ workspaceId, fromPath: target.path, toPath: to });
      if (result.status === 'error') return result.message;
      onRenamed(target.path, to);
    });
  };

  // Nothing typed yet: no verdict, just where it is.
  const untouched = typed === target.path;
  return (
    <Dialog title={`Rename ${target.path}`} onClose={onClose}>
      <form className="form rename-form" onSubmit={submit}>
        <label>
          New path
          <input
            value={typed}
            onChange={(e) => {
              action.reset();
              setTyped(e.target.value);
            }}
            onFocus={(e) => {
              if (selectedOnce.current) return;
              selectedOnce.current = true;
              e.currentTarget.setSelectionRange(...baseNameRange(target.path, target.kind));
            }}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={whereId}
            aria-invalid={!untouched && !destination.ok}
            required
            data-autofocus
          />
        </label>
        <p id={whereId} className={`rename-where${!untouched && !destination.ok ? ' error-text' : ''}`} aria-live="polite">
          {untouched ? (
            <span className="muted">A full path (/memories/{target.scope}/…) or a path inside its scope.</span>
          ) : destination.ok ? (
            <>
              Will be: <code>{destination.path}</code>
            </>
          ) : (
            destination.problem
          )}
        </p>
        {blocked && <p className="error-text">{blocked}</p>}
        <FormActions error={action.error} submitLabel="Rename" disabled={action.busy || blocked !== null || !destination.ok} onCancel={onClose} />
      </form>
    </Dialog>
  );
}
