import { assert, assertEquals } from "../../testing/assert.ts";
import { createBm25Engine, MAX_NEAR_SPELLINGS, MAX_QUERY_TERMS, scanTokens, tokenize } from "./bm25.ts";
import { createMiniSearchEngine } from "./engine.ts";

const words = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "lambda"];

/** BM25 computed the obvious way, for comparison. */
function naive(docs: Map<string, string[]>, query: string[], k: number) {
  const n = docs.size;
  const avg = [...docs.values()].reduce((s, d) => s + d.length, 0) / n;
  const scores: { id: string; score: number }[] = [];
  for (const [id, tokens] of docs) {
    let score = 0;
    for (const term of query) {
      const df = [...docs.values()].filter((d) => d.includes(term)).length;
      const tf = tokens.filter((t) => t === term).length;
      if (tf === 0) continue;
      const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      score += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * tokens.length / avg));
    }
    if (score > 0) scores.push({ id, score });
  }
  return scores.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1)).slice(0, k);
}

Deno.test("tokenize() lower-cases runs of letters and digits in any script", () => {
  assertEquals(tokenize("Hello, Wörld! 42 fois—déjà"), ["hello", "wörld", "42", "fois", "déjà"]);
});

Deno.test("tokenize() splits where letters and digits end, in any script; equal tokens hash alike", () => {
  const cases: [string, string[]][] = [
    ["İstanbul ΣΊΣΥΦΟΣ naïve café 東京タワー 2024年", [
      "i",
      "stanbul",
      "σίσυφος",
      "naïve",
      "café",
      "東京タワー",
      "2024年",
    ]],
    ["math 𝒜𝒷𝒸 and emoji 🙂🙂 between, e\u0301 combining", [
      "math",
      "𝒜𝒷𝒸",
      "and",
      "emoji",
      "between",
      "e",
      "combining",
    ]],
    ["  a-b_c.d/e:f  ", ["a", "b", "c", "d", "e", "f"]],
    ["", []],
  ];
  const hashes = new Map<string, number>();
  for (const [text, expected] of cases) {
    assertEquals(tokenize(text), expected, text);
    const lowered = text.toLowerCase();
    scanTokens(lowered, (start, end, hash) => {
      const token = lowered.slice(start, end);
      assertEquals(hashes.get(token) ?? hash, hash, token);
      hashes.set(token, hash);
    });
  }
  assertEquals(hashes.get("e") !== hashes.get("a"), true);
});

Deno.test("createBm25Engine() ranks as BM25 does, also after removals", () => {
  let seed = 7;
  const rand = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const engine = createBm25Engine();
  const docs = new Map<string, string[]>();
  for (let i = 0; i < 300; i++) {
    const tokens = Array.from({ length: 5 + Math.floor(rand() * 30) }, () => words[Math.floor(rand() ** 2 * 8)]);
    docs.set(`c${i}`, tokens);
    engine.add([{ id: `c${i}`, title: "", text: tokens.join(" ") }]);
  }
  const removed = [...docs.keys()].filter((_, i) => i % 3 === 0);
  engine.remove(removed);
  for (const id of removed) docs.delete(id);
  assertEquals(engine.size, 200);
  for (const query of [["omega"], ["lambda", "alpha"], ["kappa", "sigma", "beta"]]) {
    const got = engine.search(query.join(" "), 10);
    const want = naive(docs, query, 10);
    assertEquals(got.map((h) => h.id), want.map((h) => h.id), query.join(" "));
    got.forEach((h, i) => assert(Math.abs(h.score - want[i].score) < 1e-9));
  }
});

Deno.test("createBm25Engine() matches the last term as a prefix and unknown terms one edit away", () => {
  const engine = createBm25Engine();
  engine.add([
    { id: "a", title: "Streams", text: "Consumers read entries after an id." },
    { id: "b", title: "Cats", text: "Cats sleep in warm places." },
  ]);
  assertEquals(engine.search("consum", 5).map((h) => h.id), ["a"]);
  assertEquals(engine.search("consum cats", 5).map((h) => h.id), ["b"]); // a prefix only at the end
  assertEquals(engine.search("plases", 5).map((h) => h.id), ["b"]);
  assertEquals(engine.search("streams", 5)[0].id, "a"); // from the title
  assertEquals(engine.search("zebra", 5), []);
});

Deno.test("createBm25Engine() replaces a re-added id, and compacts once removals outnumber live chunks", () => {
  const engine = createBm25Engine();
  engine.add([{ id: "x", title: "", text: "old words" }]);
  engine.add([{ id: "x", title: "", text: "new words" }]);
  assertEquals([engine.size, engine.search("old", 5)], [1, []]);
  const many = Array.from({ length: 12_000 }, (_, i) => ({ id: `m${i}`, title: "", text: `filler ${i}` }));
  engine.add(many);
  engine.remove(many.map((m) => m.id));
  assertEquals(engine.size, 1);
  assertEquals(engine.search("filler", 5), []);
  assertEquals(engine.search("new", 5).map((h) => h.id), ["x"]);
});

Deno.test(`createBm25Engine() searches the first ${MAX_QUERY_TERMS} distinct terms of a query, not the ones after`, () => {
  const engine = createBm25Engine();
  const terms = Array.from({ length: MAX_QUERY_TERMS + 8 }, (_, i) => `q${i}`);
  engine.add(terms.map((term, i) => ({ id: `c${String(i).padStart(2, "0")}`, title: "", text: term })));
  const query = [...terms.slice(0, 3), ...terms].join(" "); // a repeated term counts once
  const hits = engine.search(query, 100).map((h) => h.id).sort();
  assertEquals(hits, terms.slice(0, MAX_QUERY_TERMS).map((_, i) => `c${String(i).padStart(2, "0")}`));
});

Deno.test(`createBm25Engine() matches an unknown term with at most ${MAX_NEAR_SPELLINGS} near spellings, the closest first`, () => {
  const engine = createBm25Engine();
  // "lighthouse" (10 letters: two edits allowed) is not indexed; one word is an edit away, 14 are two away.
  const twoAway = Array.from(
    { length: 14 },
    (_, i) => `lighthou${String.fromCharCode(97 + i)}${String.fromCharCode(97 + i)}`,
  );
  engine.add([
    { id: "one-away", title: "", text: "lighthouses" },
    ...twoAway.map((word, i) => ({ id: `two-away-${i}`, title: "", text: word })),
    { id: "three-away", title: "", text: "lightxxxse" },
  ]);
  const hits = engine.search("lighthouse", 100).map((h) => h.id);
  assertEquals(hits.length, MAX_NEAR_SPELLINGS);
  assertEquals(hits[0], "one-away");
});

Deno.test("createBm25Engine() looks for a near spelling among the words that begin with the same letter", () => {
  const engine = createBm25Engine();
  engine.add([{ id: "a", title: "", text: "lighthouse" }, { id: "b", title: "", text: "keeper" }]);
  assertEquals(engine.search("lighthoose", 5).map((h) => h.id), ["a"]);
  assertEquals(engine.search("nighthouse", 5), []);
});

Deno.test("createBm25Engine() stops looking for near spellings once a query has taken its steps", () => {
  const words = ["harbour", "lantern", "lighthouse", "keeper", "signal", "breakwater"];
  const chunks = words.map((word) => ({ id: word, title: "", text: word }));
  const roomy = createBm25Engine();
  const tight = createBm25Engine({ nearSpellingSteps: 12 });
  roomy.add(chunks);
  tight.add(chunks);
  // Each misspelling alone is found within 12 steps; together, the first takes them all.
  assertEquals(tight.search("lanterm", 5).map((h) => h.id), ["lantern"]);
  assertEquals(tight.search("keepor", 5).map((h) => h.id), ["keeper"]);
  assertEquals(roomy.search("lanterm keepor", 5).map((h) => h.id).sort(), ["keeper", "lantern"]);
  assertEquals(tight.search("lanterm keepor", 5).map((h) => h.id), ["lantern"]);
});

Deno.test("both engines leave the stop words of a query out: 'What is the price of bananas?' finds no text that has only 'of'", () => {
  for (const engine of [createBm25Engine(), createMiniSearchEngine()]) {
    engine.add([
      { id: "c1", title: "Harbours", text: "The shelter of boats is the purpose of a harbour." },
      { id: "c2", title: "Fruit", text: "The price of bananas rose in spring." },
    ]);
    assertEquals(engine.search("What is the price of bananas?", 5).map((hit) => hit.id), ["c2"]);
    assertEquals(engine.search("What is the price of oranges?", 5).map((hit) => hit.id), ["c2"], "price still counts");
    assertEquals(engine.search("What is the colour of apples?", 5), [], "nothing but stop words in common");
    assertEquals(engine.search("the of", 5).length, 2, "a query of stop words only searches them");
  }
});
