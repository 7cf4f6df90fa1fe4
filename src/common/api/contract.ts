/**
 * The oRPC contract between the renderer and the main process: every route the UI uses, with zod
 * schemas for what goes in and out, one file per feature under ./contract/ (its schemas and its
 * routes). The renderer imports only this (through its client); the main process implements it
 * under src/main/api/routes/, one file per feature too. Results that a person must act on (a
 * refusal, a conflict on save) are typed unions, not exceptions.
 */
import { activityContract } from './contract/activity';
import { agentFilesContract } from './contract/agent-files';
import { contextContract } from './contract/context';
import { harvestContract } from './contract/harvest';
import { historyContract } from './contract/history';
import { inboxContract } from './contract/inbox';
import { memoryContract } from './contract/memory';
import { setAsideContract } from './contract/set-aside';
import { settingsContract } from './contract/settings';
import { setupContract } from './contract/setup';
import { syncContract } from './contract/sync';
import { consolidationContract } from './contract/consolidation';
import { workspacesContract } from './contract/workspaces';

export * from './contract/shared';
export * from './contract/memory';
export * from './contract/context';
export * from './contract/history';
export * from './contract/inbox';
export * from './contract/harvest';
export * from './contract/workspaces';
export * from './contract/setup';
export * from './contract/set-aside';
export * from './contract/activity';
export * from './contract/sync';

export const contract = {
  memory: memoryContract,
  context: contextContract,
  history: historyContract,
  inbox: inboxContract,
  harvest: harvestContract,
  consolidation: consolidationContract,
  agentFiles: agentFilesContract,
  workspaces: workspacesContract,
  setup: setupContract,
  settings: settingsContract,
  setAside: setAsideContract,
  activity: activityContract,
  sync: syncContract,
};
