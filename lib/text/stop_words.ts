/**
 * English stop words: words that say nothing about what is asked ("what", "is", "the", "of").
 * Queries and questions leave them out, so that sharing "of" with a document does not make it an
 * answer; the index keeps them (a query of stop words only still finds its words). English only:
 * the documents and questions this product is shown with are English, and a word list of
 * another language would drop that language's content words here.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  ("a an and are as at be by can do does for from had has have how i if in into is it its me my of on or " +
    "should so that the their then there these this to was we were what when where which who why will with " +
    "you your about tell explain").split(" "),
);

/**
 * The words of `words` that carry meaning: all but the stop words, or every word when they are
 * all stop words (a query of "to be or not to be" still searches).
 *
 * @example
 * ```ts
 * contentWords(["what", "is", "the", "price", "of", "bananas"]); // ["price", "bananas"]
 * contentWords(["to", "be"]); // ["to", "be"]
 * ```
 */
export function contentWords(words: readonly string[]): string[] {
  const meaningful = words.filter((w) => !STOP_WORDS.has(w));
  return meaningful.length > 0 ? meaningful : [...words];
}
