// The words of a question that only say what kind of answer is wanted ("what kind of art",
// "which type of food", "what does she think about", "what did he say about"): they are not what
// the answer is about, and a memory that happens to hold them ("thanks for your kind words", "I
// think so") should not match for them.

/** "kind of", "types of", "sort of": one linear pass (no nested quantifiers). */
const KIND_OF = /\b(?:kind|type|sort)s?\s+of\b/giu;

/** The verbs a question asks for an opinion or a saying with: the answer seldom repeats them. */
const ASKING_VERBS = /\b(?:think|thinks|say|says|said)\b/giu;

/** The query's words without its question scaffolding; the query itself when nothing is left. */
export function withoutScaffolding(query: string): string {
  const rest = query.replace(KIND_OF, ' ').replace(ASKING_VERBS, ' ');
  return /[\p{L}\p{N}]/u.test(rest) ? rest : query;
}
