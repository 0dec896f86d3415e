/**
 * A small deterministic PRNG (mulberry32) for generated test inputs, so that a failure can be
 * replayed from its seed.
 */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` strings, each 1 to `maxPieces` pieces of `alphabet` drawn with `next`. */
export function randomStrings(
  next: () => number,
  alphabet: readonly string[],
  count: number,
  maxPieces: number,
): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const pieces = 1 + Math.floor(next() * maxPieces);
    let text = '';
    for (let j = 0; j < pieces; j++) text += alphabet[Math.floor(next() * alphabet.length)] ?? '';
    out.push(text);
  }
  return out;
}
