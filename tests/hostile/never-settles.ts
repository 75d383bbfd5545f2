// expect: runtime
// timeout-ms: 2000
// output: never finished
await new Promise(() => {})
