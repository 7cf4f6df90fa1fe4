/**
 * "Compare…": pick two to six files, other agents' files and Cairn memory files alike,
 * and see side by side the lines they state differently (agentFiles.compare): a column per file,
 * a row per statement that differs, is stated by one file only, or is missing from some. Lines
 * every file states the same way are counted, not listed. Text is shown as plain text.
 */
import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, Columns3, Loader2 } from 'lucide-react';
import { useState } from 'react';
import { COMPARE_MAX, COMPARE_MIN, type AgentFile, type CompareResult, type CompareRow } from '../../../common/agent-files/schema';
import { errorMessage, useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../dialogs/Dialog';
import { readByText, shortPath } from './agent-files-model';

export interface CompareDialogProps {
  workspaceId: string;
  agentFiles: readonly AgentFile[];
  /** Ids (or memory paths) picked when it opens. */
  initial: readonly string[];
  onClose: () => void;
}

export function CompareDialog({ workspaceId, agentFiles, initial, onClose }: CompareDialogProps) {
  const { client, orpc } = useApi();
  const memory = useQuery(orpc.memory.list.queryOptions({ input: { workspaceId } }));
  const [picked, setPicked] = useState<readonly string[]>(initial);
  const [result, setResult] = useState<CompareResult | null>(null);
  const action = useAction();
  const readable = agentFiles.filter((f) => !f.unreadable);
  const toggle = (id: string) => setPicked((p) => (p.includes(id) ? p.filter((x) => x !== id) : p.length >= COMPARE_MAX ? p : [...p, id]));
  const run = () =>
    action.run(async () => {
      setResult(await client.agentFiles.compare({ workspaceId, ids: [...picked] }));
    });
  const ready = picked.length >= COMPARE_MIN && picked.length <= COMPARE_MAX;

  if (result) {
    return (
      <Dialog
        title="Compare: what the files state differently"
        wide
        onClose={onClose}
        footer={
          <>
            <button type="button" className="btn" onClick={() => setResult(null)}>
              <ArrowLeft size={14} aria-hidden /> Pick other files
            </button>
            <button type="button" className="btn primary" onClick={onClose}>
              Close
            </button>
          </>
        }
      >
        <CompareTable result={result} />
      </Dialog>
    );
  }

  const option = (id: string, label: string, detail: string) => {
    const on = picked.includes(id);
    return (
      <li key={id}>
        <label className="cmp-pick">
          <input type="checkbox" checked={on} disabled={!on && picked.length >= COMPARE_MAX} onChange={() => toggle(id)} />
          <span className="cmp-pick-text">
            <code>{label}</code>
            <span className="muted">{detail}</span>
          </span>
        </label>
      </li>
    );
  };

  return (
    <Dialog
      title="Compare files"
      wide
      onClose={onClose}
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="button" className="btn primary" disabled={!ready || action.busy} onClick={() => void run()}>
            {action.busy ? <Loader2 size={14} className="spin" aria-hidden /> : <Columns3 size={14} aria-hidden />} Compare {picked.length} {picked.length === 1 ? 'file' : 'files'}
          </button>
        </>
      }
    >
      <p>
        Pick {COMPARE_MIN} to {COMPARE_MAX} files: other agents' files and Cairn memory. The comparison lists the lines they state differently, side by side.
      </p>
      <div className="cmp-picker">
        <fieldset>
          <legend>Other agents' files</legend>
          {readable.length === 0 ? <p className="muted">None can be opened.</p> : <ul>{readable.map((f) => option(f.id, shortPath(f.path), readByText(f.readBy)))}</ul>}
        </fieldset>
        <fieldset>
          <legend>Cairn memory</legend>
          {memory.isError ? (
            <p className="error-text">Could not load memory: {errorMessage(memory.error)}</p>
          ) : !memory.data ? (
            <p className="muted">Loading memory…</p>
          ) : memory.data.files.length === 0 ? (
            <p className="muted">No memory yet.</p>
          ) : (
            <ul>{memory.data.files.map((f) => option(f.path, f.path, f.description ?? `${f.scope} memory`))}</ul>
          )}
        </fieldset>
      </div>
      {action.error && (
        <p className="error-text" role="alert">
          {action.error}
        </p>
      )}
    </Dialog>
  );
}

const KIND_WORDS: Record<CompareRow['kind'], string> = { differs: 'stated differently', only: 'only in one file', missing: 'missing from some' };

/** The comparison as a table: a column per file, a row per statement that is not the same everywhere. */
function CompareTable({ result }: { result: CompareResult }) {
  const { sides, rows, same } = result;
  return (
    <div className="compare-view">
      <p className="cmp-summary" role="status">
        {rows.length === 0 ? 'These files state nothing differently.' : `${rows.length} ${rows.length === 1 ? 'row differs' : 'rows differ'}.`}{' '}
        {same > 0 && `${same} ${same === 1 ? 'line is' : 'lines are'} the same in every file.`}
      </p>
      {rows.length > 0 && (
        <div className="cmp-scroll">
          <table className="cmp-table" aria-label="Lines the files state differently">
            <thead>
              <tr>
                <th scope="col" className="cmp-kind">
                  <span className="sr-only">What differs</span>
                </th>
                {sides.map((s) => (
                  <th key={s.id} scope="col" title={s.id}>
                    {s.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row, i) => (
                <tr key={i} className={`cmp-row ${row.kind}`}>
                  <th scope="row" className="cmp-kind">
                    {KIND_WORDS[row.kind]}
                  </th>
                  {sides.map((s, j) => {
                    const cell = row.cells[j] ?? null;
                    return (
                      <td key={s.id} className={cell ? undefined : 'cmp-none'}>
                        {cell ? (
                          <>
                            <span className="cmp-line">{cell.line}</span>
                            <span className="cmp-text">{cell.text}</span>
                          </>
                        ) : (
                          <span className="muted">not stated</span>
                        )}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
