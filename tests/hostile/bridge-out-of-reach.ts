// expect: ok
// timeout-ms: 2000
// output: []
return Object.getOwnPropertyNames(globalThis).filter((k) => /ptc|host|native/i.test(k))
