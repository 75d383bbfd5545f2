// expect: ok
// timeout-ms: 2000
// output: "k�":"�v"
return await tools.echo({ ['k\ud800']: '\udc00v' })
