/**
 * The app's settings, as stored in the workspace registry and carried by the API. Apart from the
 * contract so the registry (loaded by every `cairn` command) does not load oRPC with it.
 */
import { z } from 'zod';

export const settingsSchema = z.object({
  theme: z.enum(['system', 'light', 'dark']).default('system'),
  /** Show the rendered Markdown preview by default in the editor. */
  previewByDefault: z.boolean().default(false),
  /**
   * Workspaces whose agents' sessions are harvested into the inbox by the agents' hooks (issue 19):
   * off until a person turns it on.
   */
  harvestWorkspaces: z.array(z.string().min(1).max(64)).max(1000).default([]),
});
