import { describe, expect, it } from 'vitest';
import { COMMANDS, MODES, SCOPES } from './constants';
import { isAllowed } from './policy';

// The design's table, spelled out: which scopes each mode may write.
const writes = { exec: ['global', 'project', 'workspace'], plan: ['global', 'workspace'], explore: [] } as const;

describe('access policy', () => {
  const cells = MODES.flatMap((mode) => SCOPES.flatMap((scope) => COMMANDS.map((command) => [mode, scope, command] as const)));
  it.each(cells)('%s mode, %s scope, %s', (mode, scope, command) => {
    const expected = command === 'view' || (writes[mode] as readonly string[]).includes(scope);
    expect(isAllowed(mode, scope, command)).toBe(expected);
  });
});
