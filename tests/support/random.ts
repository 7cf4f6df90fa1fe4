/** A seeded pseudo-random sequence in [0, 1) (a linear congruential generator): random tests that replay exactly. */
export function seededRandom(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}
