import { basicIdentity } from "../server/routes/rate_limited.ts";

const ascii = `Basic ${btoa("user-123456789-42:secret")}`;
const utf8 = `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode("älice✓:pw")))}`;
Deno.bench("basicIdentity() ASCII", () => {
  basicIdentity(ascii);
});
Deno.bench("basicIdentity() UTF-8", () => {
  basicIdentity(utf8);
});
