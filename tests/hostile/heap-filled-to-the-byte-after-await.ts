// expect: memory
// timeout-ms: 20000
// Fills the heap with small objects to within a few bytes of the limit,
// in a step resumed from a promise job (the async function's rejection then
// needs memory QuickJS must still have: the process aborted without it).
await null;
let o: any = {};
for (;;) o = { o }
