/**
 * How Cairn recognises its own extraction runs: the command backend starts the agent
 * (`claude -p`, `codex exec`) with HARVEST_CHILD_ENV set, and Cairn's hooks do nothing when they
 * see it, so a harvest never harvests itself. A module of its own: the hooks load it, and they
 * must stay light.
 */
export const HARVEST_CHILD_ENV = 'CAIRN_HARVEST_CHILD';
