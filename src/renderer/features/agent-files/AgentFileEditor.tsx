/**
 * Another agent's file open in the memory editor (features/editor's FileEditor with this file as
 * its source): the same conflict-safe save (every write carries the sha256 the text was based on;
 * a file changed on disk meanwhile brings the banner with Reload, Overwrite and Compare), unsaved
 * text kept across reloads, the scanners' warning before saving. Above the text: which agent reads
 * it, where it is, its size and last change, where it leads when it is a symbolic link (it is then
 * never saved: Cairn writes through no link), and that Cairn does not inject it. History shows the
 * recorded edits (AgentFileHistory); "Adopt…" proposes the file or the selected lines to the Inbox;
 * "Compare…" sets it beside other files.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Columns3, Info, Link2, Sprout } from 'lucide-react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { AGENT_NAMES } from '../../../common/agent-files/schema';
import { useApi } from '../../api/api-context';
import { relativeTime } from '../../lib/relative-time';
import { Stats } from '../../lib/Stats';
import { FileEditor, type EditorSource } from '../editor/FileEditor';
import { AdoptDialog } from './AdoptDialog';
import { AgentFileHistory } from './AgentFileHistory';
import { placeText, readByText, sizeText } from './agent-files-model';
import { CompareDialog } from './CompareDialog';

export interface AgentFileEditorProps {
  workspaceId: string;
  id: string;
  dark: boolean;
  previewByDefault: boolean;
  onClose: () => void;
  onDirtyChange: (dirty: boolean) => void;
  /** Shows the Inbox (after an adopt). */
  onOpenInbox: () => void;
}

/** How often an open agent file is looked at again (it has no change stream). */
const CHECK_EVERY_MS = 5000;

/** Whether a read's message says the file is not there (any more). */
function isGoneMessage(message: string): boolean {
  return /\b(not found|no such file|does not exist|no longer exists|is gone|not an? (known|existing))\b/i.test(message);
}

export function AgentFileEditor({ workspaceId, id, dark, previewByDefault, onClose, onDirtyChange, onOpenInbox }: AgentFileEditorProps) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  // Cairn does not watch these files: while one is open, the list is asked for again now and then,
  // and a change of its sha256 reaches the editor (a clean one reloads; a dirty one is told).
  const list = useQuery({ ...orpc.agentFiles.list.queryOptions({ input: { workspaceId } }), refetchInterval: CHECK_EVERY_MS });
  const file = list.data?.files.find((f) => f.id === id);
  const listeners = useRef(new Set<(sha256: string | null) => void>());
  const onDisk = list.data ? (file?.sha256 ?? null) : undefined;
  useEffect(() => {
    if (onDisk === undefined) return;
    for (const l of listeners.current) l(onDisk);
  }, [onDisk]);
  const [dirty, setDirty] = useState(false);
  const [selected, setSelected] = useState<Array<[number, number]>>([]);
  const [adopting, setAdopting] = useState(false);
  const [comparing, setComparing] = useState(false);

  const source = useMemo<EditorSource>(
    () => ({
      read: async () => {
        const doc = await client.agentFiles.read({ workspaceId, id });
        return { content: doc.content, sha256: doc.sha256 };
      },
      save: async (content, expectedSha256) => {
        const result = await client.agentFiles.write({ workspaceId, id, content, expectedSha256 });
        // Its size and last change, and its history, are new.
        if (result.status === 'ok') void queryClient.invalidateQueries({ queryKey: orpc.agentFiles.key() });
        return result;
      },
      isGone: isGoneMessage,
      create: async (content) => {
        const result = await client.agentFiles.write({ workspaceId, id, content, expectedSha256: null });
        void queryClient.invalidateQueries({ queryKey: orpc.agentFiles.key() });
        return result.status === 'ok' ? null : result.message;
      },
      goneHint: 'It is no longer where its agent reads it.',
      history: ({ dirty: unsaved }) => <AgentFileHistory workspaceId={workspaceId} id={id} dirty={unsaved} />,
      onChanged: (listener) => {
        listeners.current.add(listener);
        return () => listeners.current.delete(listener);
      },
    }),
    [client, orpc, queryClient, workspaceId, id],
  );

  const onDirty = useCallback(
    (d: boolean) => {
      setDirty(d);
      onDirtyChange(d);
    },
    [onDirtyChange],
  );

  const info = file && (
    <>
      <Stats
        className="af-stats"
        rows={[
          ['Agent', AGENT_NAMES[file.agent]],
          ['Read by', readByText(file.readBy).replace(/^read by /, '')],
          ['Where', placeText(file)],
          ['Size', sizeText(file.size)],
          ['Last change', relativeTime(file.mtime) ?? 'unknown'],
        ]}
      />
      {file.linkTo && (
        <div className="notice af-link-note" role="note">
          <Link2 size={14} aria-hidden /> A symbolic link to {file.linkTo}. Cairn shows what it leads to but never writes through a link: to edit it, open {file.linkTo}.
        </div>
      )}
      <div className="notice af-not-memory" role="note">
        <Info size={14} aria-hidden /> Not Cairn memory: {AGENT_NAMES[file.agent]} reads this file itself. Cairn does not inject it; Adopt copies what you choose into memory.
      </div>
    </>
  );

  const tools = (
    <>
      <button
        type="button"
        className="btn"
        aria-label="Adopt…"
        onClick={() => setAdopting(true)}
        disabled={dirty}
        title={dirty ? 'Save your edits first: Adopt copies the file as it is saved' : 'Propose the file, or the selected lines, to the Inbox as memories'}
      >
        <Sprout size={14} aria-hidden /> <span className="af-tool-label">Adopt…</span>
      </button>
      <button type="button" className="btn" aria-label="Compare…" onClick={() => setComparing(true)} disabled={!list.data} title="Set this file beside other agents' files and memory">
        <Columns3 size={14} aria-hidden /> <span className="af-tool-label">Compare…</span>
      </button>
    </>
  );

  return (
    <>
      <FileEditor
        workspaceId={workspaceId}
        path={id}
        file={undefined}
        dark={dark}
        previewByDefault={previewByDefault}
        onClose={onClose}
        onDirtyChange={onDirty}
        onPin={() => undefined}
        source={source}
        info={info}
        tools={tools}
        onSelectedLines={setSelected}
      />
      {adopting && <AdoptDialog workspaceId={workspaceId} id={id} selected={selected} onClose={() => setAdopting(false)} onOpenInbox={onOpenInbox} />}
      {comparing && list.data && <CompareDialog workspaceId={workspaceId} agentFiles={list.data.files} initial={[id]} onClose={() => setComparing(false)} />}
    </>
  );
}
