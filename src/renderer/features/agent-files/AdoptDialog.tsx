/**
 * "Adopt…": copy another agent's file, or the lines selected in it, into a Cairn scope
 * as Inbox proposals (agentFiles.adopt: split into entries, scanned, deduplicated against memory
 * and the Inbox). Nothing is written to memory here: the person approves each proposal in the
 * Inbox. The result is said in words ("3 proposed to the Inbox, 2 already in memory, 1 refused: a
 * secret on line 12."), with a way to the Inbox.
 */
import { useQuery } from '@tanstack/react-query';
import { Inbox, Loader2 } from 'lucide-react';
import { useState } from 'react';
import type { AdoptResult } from '../../../common/agent-files/schema';
import { SCOPES, type Scope } from '../../../common/memory/constants';
import { useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../dialogs/Dialog';
import { baseName } from '../tree/tree-model';
import { adoptResultText, mergeRanges, rangesText } from './agent-files-model';
import { ErrorText } from '../../lib/ErrorText';

const SCOPE_WORDS: Record<Scope, string> = {
  global: 'Global: yours, for every project',
  project: "Project: this codebase's, shared in the checkout",
  workspace: "Workspace: this checkout's own",
};

export interface AdoptDialogProps {
  workspaceId: string;
  id: string;
  /** Lines selected in the editor (empty: none; the whole file is adopted). */
  selected: ReadonlyArray<readonly [number, number]>;
  onClose: () => void;
  onOpenInbox: () => void;
}

export function AdoptDialog({ workspaceId, id, selected, onClose, onOpenInbox }: AdoptDialogProps) {
  const { client, orpc } = useApi();
  const memory = useQuery(orpc.memory.list.queryOptions({ input: { workspaceId } }));
  const available = SCOPES.filter((s) => memory.data?.scopes.some((x) => x.scope === s && x.available) ?? s !== 'project');
  const lines = mergeRanges(selected);
  const [what, setWhat] = useState<'file' | 'lines'>(lines.length > 0 ? 'lines' : 'file');
  const [chosen, setChosen] = useState<Scope | null>(null);
  const scope: Scope | undefined = chosen && available.includes(chosen) ? chosen : available.includes('project') ? 'project' : available[0];
  const [result, setResult] = useState<AdoptResult | null>(null);
  const action = useAction();
  const name = baseName(id);

  const adopt = () =>
    action.run(async () => {
      if (!scope) return;
      const answer = await client.agentFiles.adopt({ workspaceId, id, scope, ...(what === 'lines' && lines.length > 0 ? { lines } : {}) });
      setResult(answer);
    });

  if (result) {
    const added = result.status === 'ok' ? result.added.length : 0;
    return (
      <Dialog
        title={`Adopted from ${name}`}
        onClose={onClose}
        footer={
          <>
            <button type="button" className="btn" onClick={onClose}>
              Close
            </button>
            {added > 0 && (
              <button
                type="button"
                className="btn primary"
                onClick={() => {
                  onClose();
                  onOpenInbox();
                }}
              >
                <Inbox size={14} aria-hidden /> Open the Inbox
              </button>
            )}
          </>
        }
      >
        <p className={result.status === 'error' ? 'error-text' : 'adopt-result'} role={result.status === 'error' ? 'alert' : 'status'}>
          {adoptResultText(result)}
        </p>
        {added > 0 && <p className="muted">Nothing is in memory yet: approve, edit or reject each proposal in the Inbox.</p>}
      </Dialog>
    );
  }

  return (
    <Dialog
      title={`Adopt from ${name}`}
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn primary" disabled={!scope || action.busy} onClick={() => void adopt()}>
            {action.busy && <Loader2 size={14} className="spin" aria-hidden />} Propose to the Inbox
          </button>
        </>
      }
    >
      <p>
        Copies {id} into Cairn memory as proposals in the Inbox, one per entry; entries already in memory or in the Inbox are left out, and the scanners refuse secrets and
        injected instructions. The file itself is not changed.
      </p>
      <div className="form">
        <fieldset className="adopt-what">
          <legend>What</legend>
          <label>
            <input type="radio" name="adopt-what" checked={what === 'file'} onChange={() => setWhat('file')} /> The whole file
          </label>
          <label>
            <input type="radio" name="adopt-what" checked={what === 'lines'} disabled={lines.length === 0} onChange={() => setWhat('lines')} />{' '}
            {lines.length > 0 ? `The selected ${rangesText(lines)}` : 'Selected lines (select lines in the editor first)'}
          </label>
        </fieldset>
        <fieldset className="adopt-scope">
          <legend>Into</legend>
          {SCOPES.map((s) => (
            <label key={s}>
              <input type="radio" name="adopt-scope" checked={scope === s} disabled={!available.includes(s)} onChange={() => setChosen(s)} /> {SCOPE_WORDS[s]}
            </label>
          ))}
        </fieldset>
      </div>
      <ErrorText>{action.error}</ErrorText>
    </Dialog>
  );
}
