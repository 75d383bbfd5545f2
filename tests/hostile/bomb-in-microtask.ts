// expect: memory
// timeout-ms: 20000
const a: any[] = [];
await Promise.resolve().then(() => { for (;;) a.push([1, 2, 3]) });
