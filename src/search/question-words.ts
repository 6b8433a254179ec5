// The words of a question that only say what kind of answer is wanted ("what kind of art",
// "which type of food"): they are not what the answer is about, and a memory that happens to
// hold them ("thanks for your kind words") should not match for them.

/** "kind of", "types of", "sort of": one linear pass (no nested quantifiers). */
const KIND_OF = /\b(?:kind|type|sort)s?\s+of\b/giu;

/** The query's words without its question scaffolding; the query itself when nothing is left. */
export function withoutScaffolding(query: string): string {
  const rest = query.replace(KIND_OF, ' ');
  return /[\p{L}\p{N}]/u.test(rest) ? rest : query;
}
