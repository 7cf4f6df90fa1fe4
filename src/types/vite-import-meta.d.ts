// What Vite adds to import.meta (the build and vitest), the part Cairn uses. Absent under plain
// node or tsx, so code that needs it checks import.meta.env first (src/main/runtime/ssh/remote-helper.ts).
interface ImportMeta {
  readonly env?: Readonly<Record<string, unknown>>;
  glob<T>(pattern: string, options: { query: string; import: string; eager: true }): Record<string, T>;
}
