/** A file's facts under its editor's header: a description list, one term and its value a row. */
import type { ReactNode } from 'react';

export function Stats({ rows, className }: { rows: ReadonlyArray<readonly [string, ReactNode]>; className?: string }) {
  return (
    <dl className={className ? `stats ${className}` : 'stats'}>
      {rows.map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
