// The stopword package ships no types; this is the part Cairn uses.
declare module 'stopword' {
  export const eng: string[];
  export const fra: string[];
  export const deu: string[];
  export const spa: string[];
  export function removeStopwords(tokens: string[], stopwords?: string[]): string[];
}
