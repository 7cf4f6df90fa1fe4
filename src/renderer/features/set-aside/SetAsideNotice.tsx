/**
 * Says, in the sidebar, when Cairn has moved aside one of its own files that did not parse (seen
 * marks, pins and usage, a consolidation proposal, the harvest's progress): what each file was for,
 * what Cairn did (started it afresh), where the old one is and what it holds; the person removes it
 * once it holds nothing they need. Nothing is removed without that click.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { FileWarning } from 'lucide-react';
import { useState } from 'react';
import type { SetAsideFileView } from '../../../common/api/contract';
import { useApi } from '../../api/api-context';
import { CopyButton } from '../../lib/CopyButton';
import { relativeTime } from '../../lib/relative-time';
import { useAction } from '../../lib/use-action';
import { Dialog } from '../dialogs/Dialog';
import './set-aside.css';
import { ErrorText } from '../../lib/ErrorText';

/** What a file of Cairn's home is for, in a person's words (by its path relative to the home). */
export function setAsideWhat(file: string): string {
  if (file === 'seen.json') return 'which files you have opened (the "agent edited" marks)';
  if (file === 'memory-meta.json') return 'pins and how often each memory was used';
  if (file.startsWith('sweeps/')) return 'a consolidation proposal';
  if (file.startsWith('harvest/sessions/')) return 'how far one agent session was harvested';
  if (file.startsWith('harvest/jobs/')) return 'a queued harvest of one session';
  if (file.startsWith('harvest/status/')) return "a workspace's last harvest";
  return "one of Cairn's own files";
}

/** What Cairn did about it, in a person's words. */
function setAsideEffect(file: string): string {
  if (file === 'seen.json') return 'Files you had opened may show as edited by an agent again.';
  if (file === 'memory-meta.json') return 'Pins and usage that could be read from it were kept; the rest start again.';
  if (file.startsWith('harvest/sessions/')) return 'That session is harvested again from its start; the Inbox does not ask about anything already decided.';
  return 'Cairn started it afresh.';
}

function SetAsideItem({ item }: { item: SetAsideFileView }) {
  const { client, orpc } = useApi();
  const queryClient = useQueryClient();
  const action = useAction();
  const remove = () =>
    action.run(async () => {
      const result = await client.setAside.remove({ aside: item.aside });
      await queryClient.invalidateQueries({ queryKey: orpc.setAside.list.key() });
      if (result.status === 'error') return result.message;
    });
  return (
    <li className="set-aside-item">
      <div className="set-aside-head">
        <strong>{item.file}</strong>: {setAsideWhat(item.file)}
      </div>
      <div className="muted">
        Could not be read {relativeTime(item.at) ?? item.at}. {setAsideEffect(item.file)}
      </div>
      <div className="set-aside-where">
        Moved to <code>{item.aside}</code> <CopyButton text={item.aside} label={`Copy the path of ${item.file}'s old copy`} />
      </div>
      <pre className="set-aside-preview" aria-label={`What ${item.file}'s old copy holds`} tabIndex={0}>
        {item.preview}
        {item.cut ? `\n… (${item.bytes} bytes in all)` : ''}
      </pre>
      <ErrorText>{action.error}</ErrorText>
      <button type="button" className="btn danger" onClick={() => void remove()} disabled={action.busy}>
        Remove the old copy
      </button>
    </li>
  );
}

export function SetAsideNotice() {
  const { orpc } = useApi();
  // Another process (an agent's `cairn`, a hook) may set a file aside at any time: looked at again
  // each minute, as well as whenever the window gets focus.
  const list = useQuery({ ...orpc.setAside.list.queryOptions(), refetchInterval: 60_000 });
  const [open, setOpen] = useState(false);
  const files = list.data?.files ?? [];
  if (files.length === 0) return null;
  const count = files.length === 1 ? 'a file' : `${files.length} files`;
  return (
    <>
      <button type="button" className="set-aside-notice" onClick={() => setOpen(true)}>
        <FileWarning size={14} aria-hidden /> Cairn could not read {count} of its own and set {files.length === 1 ? 'it' : 'them'} aside
      </button>
      {open && (
        <Dialog title="Files Cairn set aside" onClose={() => setOpen(false)} wide footer={<button type="button" className="btn" onClick={() => setOpen(false)}>Close</button>}>
          <p>
            These files of Cairn's did not parse (a crash, a full disk, or an edit by hand). Cairn never writes over such a file: it moved each aside and
            started afresh. Look at what each holds, and remove it once it holds nothing you need.
          </p>
          <ul className="set-aside-list">
            {files.map((f) => (
              <SetAsideItem key={f.aside} item={f} />
            ))}
          </ul>
        </Dialog>
      )}
    </>
  );
}
