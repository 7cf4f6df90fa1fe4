/**
 * The icons every tree row draws (chevrons, folders, the file icon), as plain SVG elements built once
 * and shared by all rows. The same markup lucide-react renders for them (its classes included), without
 * building each icon's attributes again for every row mounted: a large tree mounts dozens of rows at
 * once when it is first shown. Path data from lucide (ISC license).
 */
import type { ReactElement } from 'react';

function rowIcon(name: string, paths: readonly string[], extraClass = ''): ReactElement {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      width={14}
      height={14}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      className={`lucide lucide-${name}${extraClass ? ` ${extraClass}` : ''}`}
      aria-hidden="true"
    >
      {paths.map((d) => (
        <path key={d} d={d} />
      ))}
    </svg>
  );
}

export const CHEVRON_RIGHT = rowIcon('chevron-right', ['m9 18 6-6-6-6']);
export const CHEVRON_DOWN = rowIcon('chevron-down', ['m6 9 6 6 6-6']);
export const FOLDER = rowIcon('folder', ['M20 20a2 2 0 0 0 2-2V8a2 2 0 0 0-2-2h-7.9a2 2 0 0 1-1.69-.9L9.6 3.9A2 2 0 0 0 7.93 3H4a2 2 0 0 0-2 2v13a2 2 0 0 0 2 2Z'], 'dir-icon');
export const FOLDER_OPEN = rowIcon(
  'folder-open',
  ['m6 14 1.5-2.9A2 2 0 0 1 9.24 10H20a2 2 0 0 1 1.94 2.5l-1.54 6a2 2 0 0 1-1.95 1.5H4a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2h3.9a2 2 0 0 1 1.69.9l.81 1.2a2 2 0 0 0 1.67.9H18a2 2 0 0 1 2 2v2'],
  'dir-icon',
);
export const FILE_TEXT = rowIcon(
  'file-text',
  ['M6 22a2 2 0 0 1-2-2V4a2 2 0 0 1 2-2h8a2.4 2.4 0 0 1 1.704.706l3.588 3.588A2.4 2.4 0 0 1 20 8v12a2 2 0 0 1-2 2z', 'M14 2v5a1 1 0 0 0 1 1h5', 'M10 9H8', 'M16 13H8', 'M16 17H8'],
  'file-icon',
);
