// expect: timeout
// timeout-ms: 300
return await tools.echo({ get x() { for (;;) {} } })
