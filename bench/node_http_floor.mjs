// The floor of a Node HTTP server here: node:http answering GET / with the service's own
// body and content type, no framework. ratelimit_bench.ts compares Deno and the Node bundle
// with it. Run: PORT=0 node bench/node_http_floor.mjs
import { createServer } from "node:http";

const body = JSON.stringify({ name: "storectl", version: "0.0.0", docs: "/docs" });
const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json" });
  response.end(body);
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(`node:http floor listening on http://127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
