// expect: memory
// timeout-ms: 20000
await tools.echo({});
const a: string[] = [];
for (let i = 0; ; i++) a.push('y'.repeat(1000) + i)
