/**
 * "Compare…": pick two to six files, other agents' files and Cairn memory files alike,
 * and see side by side the lines they state differently (agentFiles.compare): a column per file,
 * a row per statement that differs, is stated by one file only, or is missing from some. Lines
 * every file states the same way are counted, not listed. Text is shown as plain text.
 * With thousands of memory files the picker is narrowed by a filter (words matched in the path or
 * description, in any order); files already picked stay listed whatever it says.
 */
import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, Columns3, Loader2 } from 'lucide-react';
import { useState } from 'react';
import { COMPARE_MAX, COMPARE_MIN, type AgentFile, type CompareResult, type CompareRow } from '../../../common/agent-files/schema';
import { errorMessage, useApi } from '../../api/api-context';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../dialogs/Dialog';
import { readByText, shortPath } from './agent-files-model';
import { ErrorText } from '../../lib/ErrorText';

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
  const [filter, setFilter] = useState('');
  const words = filter.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = (id: string, label: string, detail: string) => picked.includes(id) || words.every((w) => label.toLowerCase().includes(w) || detail.toLowerCase().includes(w));
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
      <label className="cmp-filter">
        Filter files
        <input type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="words in a path or description" />
      </label>
      <div className="cmp-picker">
        <fieldset>
          <legend>Other agents' files</legend>
          {readable.length === 0 ? (
            <p className="muted">None can be opened.</p>
          ) : (
            <PickList items={readable.map((f) => ({ id: f.id, label: shortPath(f.path), detail: readByText(f.readBy) }))} shown={shown} option={option} filtered={words.length > 0} />
          )}
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
            <PickList items={memory.data.files.map((f) => ({ id: f.path, label: f.path, detail: f.description ?? `${f.scope} memory` }))} shown={shown} option={option} filtered={words.length > 0} />
          )}
        </fieldset>
      </div>
      <ErrorText>{action.error}</ErrorText>
    </Dialog>
  );
}

/** One group of the picker: the files the filter leaves, and how many of how many that is while it narrows. */
function PickList({
  items,
  shown,
  option,
  filtered,
}: {
  items: readonly { id: string; label: string; detail: string }[];
  shown: (id: string, label: string, detail: string) => boolean;
  option: (id: string, label: string, detail: string) => React.ReactNode;
  filtered: boolean;
}) {
  const left = items.filter((i) => shown(i.id, i.label, i.detail));
  return (
    <>
      {filtered && (
        <p className="muted cmp-count">
          {left.length === 0 ? 'None match the filter' : `${left.length} of ${items.length} match`}
        </p>
      )}
      {left.length > 0 && <ul>{left.map((i) => option(i.id, i.label, i.detail))}</ul>}
    </>
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
