/**
 * The one mark of an error a person can fix: a refusal whose message is written for that person
 * (what is wrong, what to do) and is shown to them as it is, never with a stack. Its message
 * names no host path the person does not know as theirs (a folder they registered or named, Cairn's
 * settings file): nothing of how Cairn lays out its files.
 *
 * Every other error is Cairn's own failure: whoever answers a person (the API, a command) logs it
 * and says only that something went wrong. Classes keep their own names (`name`) and messages;
 * this class only marks them, so `instanceof CairnError` is the whole check.
 */
export class CairnError extends Error {}

/** Whether `err` is a refusal a person can fix, whose message may be shown as it is. */
export function isPersonFixable(err: unknown): err is CairnError {
  return err instanceof CairnError;
}
