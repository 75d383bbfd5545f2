// expect: memory
// timeout-ms: 20000
// output: tool arguments and results waiting or in flight count toward it
const s = 'x'.repeat(4 << 20);
const calls = [];
for (let i = 0; i < 100; i++) calls.push(tools.sleep({ ms: 1000, pad: s } as any));
await Promise.all(calls)
