/** Cairn's settings (config.json), read and changed by a patch; the schemas are in ../settings.ts. */
import { oc } from '@orpc/contract';
import { settingsPatchSchema, settingsSchema } from '../settings';

export const settingsContract = {
  get: oc.output(settingsSchema),
  set: oc.input(settingsPatchSchema).output(settingsSchema),
};
