/** The settings routes: Cairn's settings, read and changed by a patch. */
import { os } from '../base';

export const settings = {
  get: os.settings.get.handler(({ context }) => context.registry.settings()),
  set: os.settings.set.handler(({ input, context }) => context.registry.setSettings(input)),
};
