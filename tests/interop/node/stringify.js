// Reads a JSON array of values on stdin; writes a JSON array holding, for each
// value, the exact text of JSON.stringify(value, null, 2).
"use strict";
const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("end", () => {
  const values = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  process.stdout.write(JSON.stringify(values.map((v) => JSON.stringify(v, null, 2))));
});
