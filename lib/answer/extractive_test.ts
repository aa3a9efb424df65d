import { assertEquals } from "../../testing/assert.ts";
import { extractiveAnswer, questionTerms, sentences, wordTokens } from "./extractive.ts";
import { chunkText, type SearchHit } from "../pipelines/mod.ts";

const hit = (chunk_id: string, text: string, score = 1): SearchHit => ({
  chunk_id,
  document_id: `doc-${chunk_id}`,
  title: `Title ${chunk_id}`,
  source: `${chunk_id}.md`,
  text,
  score,
});

Deno.test("questionTerms() drops stop words, short words and repeats; keeps all when only stop words", () => {
  assertEquals(questionTerms("What is the sliding window of the rate limiter? Window!"), [
    "sliding",
    "window",
    "rate",
    "limiter",
  ]);
  assertEquals(questionTerms("What is it?"), ["what", "is", "it"]);
  assertEquals(questionTerms("Qu'est-ce que la Größe?"), ["qu", "est", "ce", "que", "la", "größe"]);
});

Deno.test("sentences() splits after . ! ? and at line ends (a chunk's paragraphs), collapsing whitespace", () => {
  assertEquals(sentences("Redis\nRedis is a store. It keeps  data in memory! Fast? Yes 3.5 times."), [
    "Redis",
    "Redis is a store.",
    "It keeps data in memory!",
    "Fast?",
    "Yes 3.5 times.",
  ]);
  assertEquals(sentences("  \n\n "), []);
});

Deno.test("sentences() reads a chunk's Markdown: a heading is no sentence, a block's marker no part of one", () => {
  const chunk = chunkText(
    "# Beacons\nA beacon burns on the headland. Keepers carry wood\n## Rules\n- Light it at dusk\n- Keep it dry.\n" +
      "> An old saying\n1. First step",
    { chunkSize: 1000 },
  )[0];
  assertEquals(sentences(chunk), [
    "A beacon burns on the headland.",
    "Keepers carry wood",
    "Light it at dusk",
    "Keep it dry.",
    "An old saying",
    "First step",
  ]);
  assertEquals(
    extractiveAnswer("Why does a beacon burn?", [hit("a", chunk)]).answer,
    "A beacon burns on the headland. [1]",
  );
});

Deno.test("extractiveAnswer() picks the best sentences, in reading order, citing each run of a chunk", () => {
  const hits = [
    hit("a", "Redis keeps data in memory. Persistence writes snapshots to disk. The weather is fine."),
    hit("b", "Snapshots of memory are written by a forked child. Unrelated text here."),
    hit("c", "Nothing to see."),
  ];
  const { answer, sources } = extractiveAnswer("How are memory snapshots written to disk?", hits);
  // terms memory, snapshots, written, disk: b0 scores 3, a1 2 ("writes" is not "written"), a0 1
  assertEquals(
    answer,
    "Redis keeps data in memory. Persistence writes snapshots to disk. [1] " +
      "Snapshots of memory are written by a forked child. [2]",
  );
  assertEquals(sources, [
    { title: "Title a", source: "a.md", chunk_id: "a", score: 1 },
    { title: "Title b", source: "b.md", chunk_id: "b", score: 1 },
  ]);
});

Deno.test("extractiveAnswer() takes at most 3 sentences, best first, and skips repeated sentences", () => {
  const hits = [
    hit("a", "Alpha beta. Alpha. Gamma delta."),
    hit("b", "Alpha beta. Alpha beta gamma. Beta."),
  ];
  const { answer, sources } = extractiveAnswer("alpha beta gamma", hits);
  // scores: a0=2, a1=1, a2=1, b0=2 (same text as a0), b1=3, b2=1 → b1, a0, then a1 (rank 0 before rank 1)
  assertEquals(answer, "Alpha beta. Alpha. [1] Alpha beta gamma. [2]");
  assertEquals(sources.map((s) => s.chunk_id), ["a", "b"]);
});

Deno.test("extractiveAnswer() matches words sharing a prefix of 4+ characters (plurals, -ing)", () => {
  const hits = [hit("a", "The index stores chunks. Chunking splits documents. Cats sleep.")];
  assertEquals(
    extractiveAnswer("indexes and chunk", hits).answer,
    "The index stores chunks. Chunking splits documents. [1]",
  );
  assertEquals(extractiveAnswer("cat", hits).answer, "The index stores chunks. [1]"); // "cat" is too short to be a prefix
});

Deno.test("extractiveAnswer() falls back to the best hit's first sentence when no sentence has a term", () => {
  const hits = [hit("x", "Fuzzy matches only. Second sentence."), hit("y", "Other.")];
  const { answer, sources } = extractiveAnswer("fuzzzy", hits);
  assertEquals([answer, sources.map((s) => s.chunk_id)], ["Fuzzy matches only. [1]", ["x"]]);
  assertEquals(extractiveAnswer("anything", []), { answer: "", sources: [] });
});

Deno.test("wordTokens() makes word-sized tokens that join back to the text", () => {
  const text = "Redis keeps  data in memory. [1]\nNext";
  const tokens = wordTokens(text);
  assertEquals(tokens, ["Redis", " keeps", "  data", " in", " memory.", " [1]", "\nNext"]);
  assertEquals(tokens.join(""), text);
  assertEquals(wordTokens(""), []);
});
