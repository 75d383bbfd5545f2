// expect: timeout
// timeout-ms: 300
return await tools.echo(new Proxy({}, { ownKeys() { for (;;) {} } }))
