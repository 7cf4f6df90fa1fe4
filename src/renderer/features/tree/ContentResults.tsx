/**
 * The results of a content search (the filter box's Content mode): the files best first, ranked by
 * the server as agents' memory_search ranks them (memory.search), each with its path and a line of
 * it, the matching words highlighted. A list box: Up/Down/Home/End move, Enter opens, Escape goes
 * back to the search field. Text from memory is shown as plain text (React escapes it).
 */
import { forwardRef, useImperativeHandle, useRef, useState } from 'react';
import type { SearchHit } from '../../../common/api/contract';

export interface ContentResultsProps {
  readonly query: string;
  readonly hits: readonly SearchHit[] | undefined;
  readonly error: string | null;
  readonly selectedPath: string | null;
  readonly onOpen: (path: string) => void;
  /** Escape, or Up from the first result: back to the search field. */
  readonly onLeave: () => void;
}

export interface ContentResultsHandle {
  focusFirst(): void;
}

/** `line` cut at the matches' spans: the text between, and the matches (marked). Also other agents' files' hits (features/agent-files). */
export function Highlighted({ line, matches }: Pick<SearchHit, 'line' | 'matches'>) {
  const parts: React.ReactNode[] = [];
  let at = 0;
  for (const [start, end] of matches) {
    if (start < at || end > line.length) continue;
    if (start > at) parts.push(line.slice(at, start));
    parts.push(<mark key={start}>{line.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(line.slice(at));
  return <>{parts}</>;
}

export const ContentResults = forwardRef<ContentResultsHandle, ContentResultsProps>(function ContentResults({ query, hits, error, selectedPath, onOpen, onLeave }, ref) {
  const [active, setActive] = useState(0);
  const listRef = useRef<HTMLUListElement>(null);
  const focusAt = (i: number) => {
    const items = listRef.current?.querySelectorAll<HTMLElement>('[role="option"]');
    if (!items || items.length === 0) return;
    const index = Math.max(0, Math.min(items.length - 1, i));
    setActive(index);
    items[index]!.focus();
    items[index]!.scrollIntoView?.({ block: 'nearest' });
  };
  useImperativeHandle(ref, () => ({ focusFirst: () => focusAt(0) }));

  if (error) {
    return (
      <p className="content-results-note error-text" role="alert">
        {error}
      </p>
    );
  }
  if (query.trim() === '') return <p className="content-results-note muted">Type words to search inside every memory, ranked as agents' memory_search ranks them.</p>;
  if (!hits) {
    return (
      <p className="content-results-note muted" role="status">
        Searching…
      </p>
    );
  }
  if (hits.length === 0) {
    return (
      <p className="content-results-note muted" role="status">
        No memory matches “{query.trim()}”. Agents' memory_search would find nothing either.
      </p>
    );
  }
  const onKeyDown = (e: React.KeyboardEvent) => {
    switch (e.key) {
      case 'ArrowDown':
        focusAt(active + 1);
        break;
      case 'ArrowUp':
        if (active === 0) onLeave();
        else focusAt(active - 1);
        break;
      case 'Home':
        focusAt(0);
        break;
      case 'End':
        focusAt(hits.length - 1);
        break;
      case 'Enter':
        onOpen(hits[active]!.path);
        break;
      case 'Escape':
        onLeave();
        break;
      default:
        return;
    }
    e.preventDefault();
  };
  return (
    <ul ref={listRef} className="content-results" role="listbox" aria-label={`Content matches (${hits.length})`} onKeyDown={onKeyDown}>
      {hits.map((hit, i) => (
        <li
          key={hit.path}
          role="option"
          aria-selected={hit.path === selectedPath}
          aria-label={hit.path}
          tabIndex={i === active ? 0 : -1}
          className={`content-hit${hit.path === selectedPath ? ' selected' : ''}`}
          onFocus={() => setActive(i)}
          onClick={() => {
            setActive(i);
            onOpen(hit.path);
          }}
        >
          <span className="hit-path" title={hit.path}>
            {hit.path}
          </span>
          <span className="hit-line">
            <Highlighted line={hit.line} matches={hit.matches} />
          </span>
        </li>
      ))}
    </ul>
  );
});
