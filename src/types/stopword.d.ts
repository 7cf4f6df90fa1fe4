// The stopword package ships no types; this is the part Cairn uses.
declare module 'stopword' {
  export const eng: string[];
  export function removeStopwords(tokens: string[], stopwords?: string[]): string[];
}
