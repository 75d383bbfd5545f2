// expect: memory
// timeout-ms: 20000
setTimeout(() => { const a: any[] = []; for (;;) a.push({ a }) }, 1);
await new Promise(() => {})
