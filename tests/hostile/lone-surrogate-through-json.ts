// expect: ok
// timeout-ms: 2000
// output: "d":"�"
return await tools.echo({ d: new Date(0), toJSON() { return { d: '\ud800' } } })
