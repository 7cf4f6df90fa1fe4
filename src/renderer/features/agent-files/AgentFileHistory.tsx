/**
 * The recorded edits of another agent's file (agentFiles.history), newest first: when, who and
 * how (saved in Cairn, outside Cairn), and what each edit changed as a line diff. Read-only: these
 * files belong to their agents, so the way back is to edit the file (the editor's Save).
 */
import { useQuery } from '@tanstack/react-query';
import { History as HistoryIcon } from 'lucide-react';
import { useState } from 'react';
import type { AgentFileVersion } from '../../../common/agent-files/schema';
import { useApi } from '../../api/api-context';
import { LoadFailed, Loading } from '../../lib/QueryState';
import { byWords, exactTime, whenText } from '../history/history-words';
import { LineDiff } from '../history/LineDiff';
import { baseName } from '../tree/tree-model';

const OP_WORDS: Record<AgentFileVersion['op'], string> = { create: 'Created', update: 'Edited', delete: 'Deleted', rename: 'Renamed' };

export function AgentFileHistory({ workspaceId, id, dirty }: { workspaceId: string; id: string; dirty: boolean }) {
  const { orpc } = useApi();
  const list = useQuery({ ...orpc.agentFiles.history.queryOptions({ input: { workspaceId, id, limit: 50 } }), staleTime: 0 });
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const name = baseName(id);
  const versions = list.data?.versions ?? [];
  const selected = versions.find((v) => v.id === selectedId) ?? versions[0];

  return (
    <section className="history" aria-label={`History of ${name}`}>
      {dirty && (
        <div className="notice warn" role="note">
          You have unsaved edits; the history shows saved versions only.
        </div>
      )}
      <div className="history-body">
        <div className="history-list">
          {list.isError ? (
            <LoadFailed what="the history" error={list.error} onRetry={() => void list.refetch()} />
          ) : !list.data ? (
            <Loading what="history" />
          ) : versions.length === 0 ? (
            <div className="state">
              <HistoryIcon size={18} aria-hidden />
              <p>No edits of {name} are recorded yet. Cairn records the edits saved here, and changes it sees when it reads the file.</p>
            </div>
          ) : (
            <div role="listbox" aria-label={`Versions of ${name}, newest first`} className="versions">
              {versions.map((v, i) => (
                <div
                  key={v.id}
                  role="option"
                  aria-selected={v.id === selected?.id}
                  aria-label={`${OP_WORDS[v.op]} ${whenText(v.at)} (${exactTime(v.at)}). ${byWords(v)}.`}
                  tabIndex={v.id === selected?.id ? 0 : -1}
                  className={v.id === selected?.id ? 'version selected' : 'version'}
                  onClick={() => setSelectedId(v.id)}
                  onKeyDown={(e) => {
                    const next = e.key === 'ArrowDown' ? i + 1 : e.key === 'ArrowUp' ? i - 1 : null;
                    if (next === null || next < 0 || next >= versions.length) return;
                    e.preventDefault();
                    setSelectedId(versions[next]!.id);
                    (e.currentTarget.parentElement?.children[next] as HTMLElement | undefined)?.focus();
                  }}
                >
                  <div className="v-line1">
                    <span className={`v-op ${v.op}`}>{OP_WORDS[v.op]}</span>
                    {i === 0 && <span className="badge latest">latest</span>}
                  </div>
                  <div className="v-line2">
                    <span className={`v-who ${v.actor}`}>{byWords(v)}</span>
                    <time dateTime={v.at} title={exactTime(v.at)}>
                      {whenText(v.at)}
                    </time>
                  </div>
                </div>
              ))}
            </div>
          )}
        </div>
        <div className="history-detail">
          {selected &&
            (selected.before === null && selected.after === null ? (
              <p className="history-hint">What this edit changed was not recorded.</p>
            ) : (
              <LineDiff oldText={selected.before ?? ''} newText={selected.after ?? ''} oldLabel="the file before this edit" newLabel="the file after it" />
            ))}
        </div>
      </div>
    </section>
  );
}
