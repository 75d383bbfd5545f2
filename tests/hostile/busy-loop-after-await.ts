// expect: timeout
// timeout-ms: 300
await tools.echo({});
while (true) {}
