/**
 * Access policy by agent mode (docs/architecture.md, "Security envelope"): exec writes every scope, plan
 * writes global and workspace and only reads project, explore only reads. view is always allowed.
 */
import type { CommandName, Mode, Scope } from './constants';

const WRITABLE: Record<Mode, readonly Scope[]> = {
  exec: ['global', 'project', 'workspace'],
  plan: ['global', 'workspace'],
  explore: [],
};

export function isAllowed(mode: Mode, scope: Scope, command: CommandName): boolean {
  return command === 'view' || WRITABLE[mode].includes(scope);
}
