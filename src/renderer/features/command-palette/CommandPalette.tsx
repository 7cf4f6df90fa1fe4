/**
 * The command palette and quick open, one dialog with two modes, reachable from anywhere (the
 * editor included: the shortcut is heard in the capture phase, before CodeMirror's keymap):
 * Ctrl/Cmd+P fuzzy-filters the memory files of the view on screen (every scope) and opens the one
 * chosen; Ctrl/Cmd+Shift+P, or a `>` typed first, lists the registered commands (registry.ts).
 * The field is a combobox over a listbox (aria-activedescendant): Up/Down move, Enter runs,
 * Escape closes and the focus goes back where it was (Dialog).
 *
 * Invariants: the shortcut does nothing while another modal dialog is open (it would act behind
 * it); what the palette lists is read from the registry when it opens and as the person types, so
 * it is never older than the view.
 */
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Dialog } from '../dialogs/Dialog';
import { fuzzyFilter, type FuzzyMatch } from './fuzzy';
import { paletteCommands, quickOpenSource, type PaletteCommand, type QuickOpenFile } from './registry';

/** How many entries the list shows at most (the rest are one more keystroke away). */
const MAX_SHOWN = 50;

export const QUICK_OPEN_SHORTCUT = 'Ctrl+P';
export const PALETTE_SHORTCUT = 'Ctrl+Shift+P';

type Entry = { kind: 'file'; file: QuickOpenFile; match: FuzzyMatch } | { kind: 'command'; command: PaletteCommand; match: FuzzyMatch };

/** The text with the matched characters in <mark>. */
function Highlighted({ text, indices, offset = 0 }: { text: string; indices: readonly number[]; offset?: number }) {
  const marks = new Set(indices.map((i) => i - offset));
  const parts: React.ReactNode[] = [];
  let run = '';
  let marked = false;
  const flush = (key: number) => {
    if (run) parts.push(marked ? <mark key={key}>{run}</mark> : run);
    run = '';
  };
  for (let i = 0; i < text.length; i++) {
    const m = marks.has(i);
    if (m !== marked) {
      flush(i);
      marked = m;
    }
    run += text[i];
  }
  flush(text.length);
  return <>{parts}</>;
}

/** Listens for the palette's shortcuts on the whole window and says which mode to open. */
export function usePaletteShortcuts(open: (mode: 'files' | 'commands') => void): void {
  const latest = useRef(open);
  latest.current = open;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || e.altKey || e.key.toLowerCase() !== 'p') return;
      const modal = document.querySelector('[aria-modal="true"]');
      if (modal && !modal.closest('.palette')) return;
      e.preventDefault();
      e.stopPropagation();
      latest.current(e.shiftKey ? 'commands' : 'files');
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
}

export interface CommandPaletteProps {
  mode: 'files' | 'commands';
  onClose: () => void;
}

export function CommandPalette({ mode, onClose }: CommandPaletteProps) {
  const [typed, setTyped] = useState(mode === 'commands' ? '>' : '');
  const [cursor, setCursor] = useState(0);
  const listId = useId();
  const listRef = useRef<HTMLUListElement>(null);
  const commands = typed.startsWith('>');
  const query = commands ? typed.slice(1) : typed;
  // Read once per mode: the view does not change under an open modal.
  const source = useMemo(() => (commands ? null : quickOpenSource()), [commands]);
  const allCommands = useMemo(() => (commands ? paletteCommands() : []), [commands]);

  const entries: Entry[] = useMemo(() => {
    if (commands) return fuzzyFilter(allCommands, query, (c) => c.title, MAX_SHOWN).map(({ item, match }) => ({ kind: 'command', command: item, match }));
    return fuzzyFilter(source?.files ?? [], query, (f) => f.path.replace(/^\/memories\//, ''), MAX_SHOWN).map(({ item, match }) => ({ kind: 'file', file: item, match }));
  }, [commands, allCommands, source, query]);
  const at = Math.min(cursor, Math.max(0, entries.length - 1));
  const optionId = (i: number) => `${listId}-${i}`;

  useEffect(() => {
    listRef.current?.querySelector(`[id="${CSS.escape(optionId(at))}"]`)?.scrollIntoView({ block: 'nearest' });
  });

  const choose = (entry: Entry | undefined) => {
    if (!entry) return;
    onClose();
    if (entry.kind === 'command') entry.command.run();
    else source?.open(entry.file.path);
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      const n = entries.length;
      if (n > 0) setCursor((at + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    } else if (e.key === 'Enter') {
      e.preventDefault();
      choose(entries[at]);
    }
  };

  const title = commands ? 'Run a command' : 'Go to a memory';
  const empty = commands ? 'No command matches.' : source === null ? 'No memory is listed in this view.' : source.files.length === 0 ? 'No memories yet.' : 'No memory matches.';
  return (
    <Dialog title={title} onClose={onClose} className="palette">
      <input
        className="palette-input"
        role="combobox"
        aria-label={commands ? 'Command' : 'Memory file (type > for commands)'}
        aria-expanded="true"
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={entries.length > 0 ? optionId(at) : undefined}
        placeholder={commands ? 'Type a command' : 'Type part of a path (> for commands)'}
        value={typed}
        spellCheck={false}
        autoComplete="off"
        data-autofocus
        onChange={(e) => {
          setTyped(e.target.value);
          setCursor(0);
        }}
        onKeyDown={onKeyDown}
      />
      <ul ref={listRef} id={listId} role="listbox" className="palette-list" aria-label={commands ? 'Commands' : 'Memory files'}>
        {entries.map((entry, i) => {
          const selected = i === at;
          if (entry.kind === 'command') {
            return (
              <li key={entry.command.id} id={optionId(i)} role="option" aria-selected={selected} className={selected ? 'palette-item selected' : 'palette-item'} onMouseDown={(e) => e.preventDefault()} onClick={() => choose(entry)} onMouseMove={() => setCursor(i)}>
                <span className="palette-title">
                  <Highlighted text={entry.command.title} indices={entry.match.indices} />
                </span>
                {entry.command.hint && <kbd className="palette-hint">{entry.command.hint}</kbd>}
              </li>
            );
          }
          const rel = entry.file.path.replace(/^\/memories\//, '');
          const slash = rel.lastIndexOf('/');
          return (
            <li key={entry.file.path} id={optionId(i)} role="option" aria-selected={selected} data-path={entry.file.path} className={selected ? 'palette-item selected' : 'palette-item'} onMouseDown={(e) => e.preventDefault()} onClick={() => choose(entry)} onMouseMove={() => setCursor(i)}>
              <span className="palette-title">
                <Highlighted text={rel.slice(slash + 1)} indices={entry.match.indices} offset={slash + 1} />
              </span>
              <span className="palette-path">
                <Highlighted text={rel.slice(0, slash + 1)} indices={entry.match.indices} />
              </span>
              {entry.file.description && <span className="palette-desc">{entry.file.description}</span>}
            </li>
          );
        })}
      </ul>
      {entries.length === 0 && (
        <p className="palette-empty" role="status">
          {empty}
        </p>
      )}
      <p className="palette-keys muted" aria-hidden>
        <kbd>↑</kbd>
        <kbd>↓</kbd> move · <kbd>Enter</kbd> {commands ? 'run' : 'open'} · <kbd>Esc</kbd> close
      </p>
    </Dialog>
  );
}
