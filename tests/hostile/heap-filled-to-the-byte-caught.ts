// expect: memory
// timeout-ms: 20000
// Catches every refusal with the heap full to within a few bytes and goes
// on: the next poll stops the run, and its uncatchable error still finds
// memory.
let o: any = {};
const keep: any[] = [];
for (;;) {
  try {
    for (;;) o = { o }
  } catch (e) {
    keep.push(e);
  }
}
